// PostgreSQL with pgvector through `pg`: the same SQL as the embedded store (schema.ts). One client connection;
// lookups are one statement each. Bulk loads stage rows with one INSERT … SELECT FROM unnest(…) per paper (a real
// server parses vector text quickly; PGlite's WASM does not, hence its binary COPY).
import type { Client } from 'pg';
import { firstLine, vectorText } from './rows.js';
import { SqlCorpusStore, type Row, type SqlDriver, type SqlTx, type StagedSentence } from './sql.js';
import { StoreError } from './types.js';

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

/** Connects to `url` (postgres://user:pass@host:port/db) and returns the store; one clear line on failure. */
export async function openPostgresStore(url: string, options: { connectTimeoutMs?: number } = {}): Promise<SqlCorpusStore> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000 });
  client.on('error', () => {
    /* a dropped connection surfaces on the next query */
  });
  try {
    await client.connect();
  } catch (err) {
    const code = (err as { code?: string }).code;
    const msg = firstLine(err);
    if (code === '28P01' || code === '28000' || /password|authentication/i.test(msg)) {
      throw new StoreError(`authentication failed for ${redactUrl(url)}: ${msg}`, { cause: err });
    }
    throw new StoreError(`cannot reach the corpus at ${redactUrl(url)}: ${msg || code || 'connection failed'}`, {
      cause: err,
    });
  }
  return postgresStore(client, { ownsClient: true });
}

/** A store over a connected client. */
export function postgresStore(client: Client, options: { ownsClient?: boolean } = {}): SqlCorpusStore {
  return new SqlCorpusStore(new PgDriver(client, options.ownsClient ?? false), 'text');
}

async function stage(q: (sql: string, params: unknown[]) => Promise<unknown>, rows: readonly StagedSentence[]) {
  await q(
    `INSERT INTO staging_sentences SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[],
       $6::int[], $7::int[], $8::text[], $9::text[])`,
    [
      rows.map((r) => r.paperId),
      rows.map((r) => r.sectionTitle ?? null),
      rows.map((r) => r.sectionNumber ?? null),
      rows.map((r) => r.sectionIndex),
      rows.map((r) => r.sentenceIndex),
      rows.map((r) => r.globalIndex),
      rows.map((r) => r.page ?? null),
      rows.map((r) => r.text),
      rows.map((r) => vectorText(r.embedding)),
    ],
  );
}

class PgDriver implements SqlDriver {
  readonly kind = 'postgres' as const;

  constructor(
    readonly client: Client,
    private readonly owns: boolean,
  ) {}

  async query(sql: string, params: readonly unknown[] = []) {
    const r = await this.client.query(sql, [...params]);
    return { rows: r.rows as Row[], rowCount: r.rowCount ?? r.rows.length };
  }

  async exec(sql: string): Promise<void> {
    await this.client.query(sql);
  }

  async lookup(sql: string, vector: Float32Array | null, params: readonly unknown[], prepareAs?: string): Promise<Row[]> {
    const values = vector ? [vectorText(vector), ...params] : [...params];
    // pg prepares a named statement once per client and then only binds it.
    const r = await this.client.query(prepareAs ? { name: prepareAs, text: sql, values } : { text: sql, values });
    return r.rows as Row[];
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    await this.client.query('BEGIN');
    try {
      const tx: SqlTx = {
        query: (sql, params = []) => this.query(sql, params),
        stage: (rows) => stage((sql, p) => this.client.query(sql, p), rows),
      };
      const out = await fn(tx);
      await this.client.query('COMMIT');
      return out;
    } catch (err) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.owns) await this.client.end();
  }
}
