// zotero.sqlite through sql.js (SQLite compiled to WASM: no native module in the extension). The database is
// read from a copy of its bytes, so the lock a running Zotero holds on the file does not matter and nothing
// is ever written back.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';

let sqlPromise: Promise<SqlJsStatic> | undefined;

/** The sql.js WASM: next to the bundle (esbuild.mjs copies it into dist/), else in node_modules (tests, tsx). */
function wasmPath(): string {
  const shipped = join(__dirname, 'sql-wasm.wasm');
  if (existsSync(shipped)) return shipped;
  return createRequire(__filename).resolve('sql.js/dist/sql-wasm.wasm');
}

function loadSqlJs(): Promise<SqlJsStatic> {
  sqlPromise ??= (async () => {
    const init = (await import('sql.js')).default as unknown as (config: { wasmBinary: ArrayBuffer }) => Promise<SqlJsStatic>;
    const bytes = await readFile(wasmPath());
    return init({ wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer });
  })();
  sqlPromise.catch(() => (sqlPromise = undefined));
  return sqlPromise;
}

/** A read-only view of a SQLite file's committed content at the moment it was copied. */
export class SqliteSnapshot {
  private constructor(private readonly db: Database) {}

  static async open(file: string): Promise<SqliteSnapshot> {
    const bytes = await readFile(file).catch((e: NodeJS.ErrnoException) => {
      throw new Error(
        e.code === 'ENOENT' ? `${file} does not exist (is this a Zotero data directory?)` : `cannot read ${file}: ${e.message}`,
      );
    });
    const SQL = await loadSqlJs();
    const db = new SQL.Database(new Uint8Array(bytes));
    try {
      db.exec('SELECT count(*) FROM sqlite_master');
    } catch (e) {
      db.close();
      throw new Error(`${file} is not a readable SQLite database (${(e as Error).message})`, { cause: e });
    }
    return new SqliteSnapshot(db);
  }

  /** Rows as objects; `params` are bound, never spliced into the SQL. */
  all<T = Record<string, SqlValue>>(sql: string, params: SqlValue[] = []): T[] {
    const stmt = this.db.prepare(sql, params);
    try {
      const rows: T[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject() as T);
      return rows;
    } finally {
      stmt.free();
    }
  }

  hasTable(name: string): boolean {
    return this.all("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", [name]).length > 0;
  }

  close(): void {
    this.db.close();
  }
}
