// How the SQL store speaks to a database: one statement, a transaction, a bulk load. The PGlite and `pg` backends
// implement it; the shared SQL store (sql/store.ts) and the in-memory keyword index (sql/keyword-index.ts) only use it.
import type { SentenceInput, StoreKind } from './types.js';

export type Row = Record<string, unknown>;

/** A staged sentence row: what the bulk loader writes into the temporary table `staging_sentences`. */
export interface StagedSentence extends SentenceInput {
  paperId: string;
}

export interface SqlDriver {
  readonly kind: StoreKind;
  /** One parameterised statement. */
  query(sql: string, params?: readonly unknown[]): Promise<{ rows: Row[]; rowCount: number }>;
  /** Several statements, no parameters. */
  exec(sql: string): Promise<void>;
  /**
   * A lookup statement whose first parameter is the query vector (sent as efficiently as the driver can). With
   * `prepareAs`, the statement is prepared once per connection under that name (the same name must always carry
   * the same text) and later lookups only bind and execute it.
   */
  lookup(sql: string, vector: Float32Array | null, params: readonly unknown[], prepareAs?: string): Promise<Row[]>;
  /** A `COPY … TO '/dev/blob'` statement's output (PGlite only: the native vector index reads the vectors by it). */
  copyOut?(sql: string): Promise<Uint8Array>;
  /** Runs fn in one transaction on one connection. */
  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface SqlTx {
  query(sql: string, params?: readonly unknown[]): Promise<{ rows: Row[]; rowCount: number }>;
  /** Fills `staging_sentences` (a temp table, emptied on commit) with the rows. */
  stage(rows: readonly StagedSentence[]): Promise<void>;
}
