// PostgreSQL with pgvector through `pg`: the same SQL as the embedded store (sql/schema.ts). Lookups go through a
// connection pool, so one store serves concurrent lookups (the extension's panel, a CLI batch) without queueing
// them behind each other; every write and session setting goes through ONE pinned connection of that pool, because
// a bulk load's session state (SET corpus_lens.defer_stats, the temp staging table) must stay on one session.
// Bulk loads stage rows by binary COPY (ops/pg-copy.ts), as PGlite's loader does.
import type { Pool, PoolClient } from 'pg';
import { copyIn, sentenceTuple, SENTENCE_COPY_COLUMNS } from '../ops/pg-copy.js';
import { firstLine, vectorText } from '../rows.js';
import type { Row, SqlDriver, SqlTx } from '../driver.js';
import { SqlCorpusStore, type SqlStoreOptions } from '../sql/store.js';
import { SESSION_EF_SEARCH } from '../sql/lookup.js';
import { StoreError } from '../types.js';

import { redactUrl } from '../../redact.js';

/** The URL without its password, for messages (one redaction for every message: core/redact.ts). */
export { redactUrl };

export interface PoolOptions {
  /** Most connections this store opens (default 10: a writer plus concurrent lookups; servers default to 100). */
  max?: number;
  /** An idle connection is closed after this long (default 30 s), so idle editors hold no server slots. */
  idleTimeoutMs?: number;
  /** How long to wait for a new connection or a free pooled one before failing (default 10 s). */
  connectTimeoutMs?: number;
}

export const POOL_DEFAULTS = { max: 10, idleTimeoutMs: 30_000, connectTimeoutMs: 10_000 } as const;

/**
 * Session settings for every pooled connection: filtered HNSW scans return k rows (pgvector ≥ 0.8) and ef_search
 * by the corpus's size (sql/lookup.ts SESSION_EF_SEARCH; the unfiltered prepared lookups run outside the functions'
 * own settings), never below a higher value the server's administrator set.
 */
const SESSION_SQL = `SET hnsw.iterative_scan = relaxed_order; ${SESSION_EF_SEARCH}`;

/** Connects to `url` (postgres://user:pass@host:port/db) and returns the store; one clear line on failure. */
export async function openPostgresStore(
  url: string,
  options: PoolOptions = {},
  storeOptions: SqlStoreOptions = {},
): Promise<SqlCorpusStore> {
  const pg = (await import('pg')).default;
  const o = { ...POOL_DEFAULTS, ...options };
  const pool = new pg.Pool({
    connectionString: url,
    max: o.max,
    idleTimeoutMillis: o.idleTimeoutMs,
    connectionTimeoutMillis: o.connectTimeoutMs,
  });
  pool.on('error', () => {
    /* an idle connection dropped by the server: the pool replaces it on the next query */
  });
  pool.on('connect', (client) => {
    // Queued ahead of the caller's first statement on this connection. Older pgvector lacks iterative scans.
    client.query(SESSION_SQL).catch(() => undefined);
  });
  const driver = new PgDriver(pool, url, o);
  try {
    await driver.pinned();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return new SqlCorpusStore(driver, storeOptions);
}

/** The error of a failed connect: authentication, an exhausted pool, or an unreachable server — one line each. */
function connectError(err: unknown, url: string, pool: Pool, o: Required<PoolOptions>): StoreError {
  const code = (err as { code?: string }).code;
  const msg = firstLine(err);
  if (code === '28P01' || code === '28000' || /password|authentication/i.test(msg)) {
    return new StoreError(`authentication failed for ${redactUrl(url)}: ${msg}`, { cause: err });
  }
  if (/timeout exceeded when trying to connect/i.test(msg) && pool.totalCount >= o.max) {
    return new StoreError(
      `all ${o.max} connections to ${redactUrl(url)} stayed busy for ${o.connectTimeoutMs} ms (connection pool exhausted); ` +
        'retry, or allow this store more connections',
      { cause: err },
    );
  }
  return new StoreError(`cannot reach the corpus at ${redactUrl(url)}: ${msg || code || 'connection failed'}`, { cause: err });
}

class PgDriver implements SqlDriver {
  readonly kind = 'postgres' as const;
  private writer: Promise<PoolClient> | null = null;
  private writerClient: PoolClient | null = null;

  constructor(
    readonly pool: Pool,
    private readonly url: string,
    private readonly options: Required<PoolOptions>,
  ) {}

  /** A pooled connection for one statement; connection failures become one clear StoreError. */
  private async acquire(): Promise<PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw connectError(err, this.url, this.pool, this.options);
    }
  }

  /** The one connection every write and session setting uses (held until close; re-made if it broke). */
  pinned(): Promise<PoolClient> {
    if (!this.writer) {
      this.writer = this.acquire().then((c) => {
        c.on('error', () => {
          // A dropped writer: the next write takes a new connection.
          this.writer = null;
          this.writerClient = null;
          c.release(true);
        });
        this.writerClient = c;
        return c;
      });
      this.writer.catch(() => {
        this.writer = null;
      });
    }
    return this.writer;
  }

  private async withClient<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    const c = await this.acquire();
    let broken: Error | undefined;
    try {
      return await fn(c);
    } catch (err) {
      // A connection-level failure (no SQLSTATE) may have left the socket unusable: do not return it to the pool.
      if (!(err as { code?: string }).code) broken = err as Error;
      throw err;
    } finally {
      c.release(broken);
    }
  }

  async query(sql: string, params: readonly unknown[] = []) {
    const r = await this.withClient((c) => c.query(sql, [...params]));
    return { rows: r.rows as Row[], rowCount: r.rowCount ?? r.rows.length };
  }

  async exec(sql: string): Promise<void> {
    await (await this.pinned()).query(sql);
  }

  async lookup(sql: string, vector: Float32Array | null, params: readonly unknown[], prepareAs?: string): Promise<Row[]> {
    const values = vector ? [vectorText(vector), ...params] : [...params];
    // pg prepares a named statement once per connection and then only binds it.
    const r = await this.withClient((c) => c.query(prepareAs ? { name: prepareAs, text: sql, values } : { text: sql, values }));
    return r.rows as Row[];
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    const c = await this.pinned();
    await c.query('BEGIN');
    try {
      const tx: SqlTx = {
        query: async (sql, params = []) => {
          const r = await c.query(sql, [...params]);
          return { rows: r.rows as Row[], rowCount: r.rowCount ?? r.rows.length };
        },
        stage: (rows) => copyIn(c, `staging_sentences (${SENTENCE_COPY_COLUMNS})`, rows.map(sentenceTuple)),
      };
      const out = await fn(tx);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  /** The pinned writer connection, for binary COPY (copy.ts): same session as the store's writes. */
  async writerConnection(): Promise<PoolClient> {
    return this.pinned();
  }

  async close(): Promise<void> {
    this.writerClient?.release();
    this.writerClient = null;
    this.writer = null;
    await this.pool.end();
  }
}
