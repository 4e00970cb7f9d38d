// A corpus's vector shape (dimensions, index precision) and the HNSW index and distance generated for it: every
// table, index and lookup statement of the schema is written for one shape.
import { StoreError, type IndexPrecision } from '../types.js';

/*
 * Index precision (corpus_meta.index_precision; absent: float32): `float32` indexes the `vector` column itself;
 * `half` indexes its `halfvec` cast (an expression index; the column stays float32). At 1M × 384-d on PostgreSQL
 * the half index is 1.75× smaller (1.17 vs 2.05 GB) at the same recall and no slower (docs/benchmarks.md, `npm run bench --
 * scale`); in PGlite's WASM it builds and searches slower.
 */
export const INDEX_PRECISIONS: readonly IndexPrecision[] = ['float32', 'half'];
/** pgvector's HNSW limits: a `vector` index up to 2,000 dimensions, a `halfvec` one up to 4,000. */
export const MAX_INDEX_DIMENSIONS: Readonly<Record<IndexPrecision, number>> = { float32: 2000, half: 4000 };

/** A corpus's vector shape: what every index and every lookup through one is generated for. */
export interface VectorIndex {
  readonly dimensions: number;
  readonly precision: IndexPrecision;
}

/**
 * The vector shape for `dimensions` at `precision` (default: float32 where pgvector can index it, else half), or a
 * StoreError naming the limit — thrown before any SQL runs.
 */
export function vectorIndex(dimensions: number, precision?: IndexPrecision): VectorIndex {
  const d = dimensions;
  if (!Number.isInteger(d) || d < 1) throw new StoreError(`invalid embedding dimension ${d}`);
  const p = precision ?? (d > MAX_INDEX_DIMENSIONS.float32 ? 'half' : 'float32');
  if (!INDEX_PRECISIONS.includes(p)) throw new StoreError(`unknown index precision '${String(p)}' (float32 or half)`);
  if (d > MAX_INDEX_DIMENSIONS[p]) {
    throw new StoreError(
      `${d}-d embeddings cannot be indexed: pgvector's HNSW index takes at most ${MAX_INDEX_DIMENSIONS.float32} dimensions ` +
        `in float32 and ${MAX_INDEX_DIMENSIONS.half} in half precision` +
        (p === 'float32' ? ' (use half)' : ''),
    );
  }
  return { dimensions: d, precision: p };
}

/** What an index over `expr` holds (half: the halfvec cast), so what a lookup must compare for the index to serve it. */
function indexed(v: VectorIndex, expr: string): string {
  return v.precision === 'half' ? `(${expr})::halfvec(${v.dimensions})` : expr;
}

/**
 * The cosine distance an HNSW index over `column` serves: an ORDER BY must be exactly this expression (the index's
 * own) or the planner cannot use the index. Distances shown to the user are computed from the float32 column instead
 * (`column <=> query`), exact whatever the index's precision, for the few rows returned.
 */
export function indexedDistance(v: VectorIndex, column: string, query: string): string {
  return `${indexed(v, column)} <=> ${indexed(v, query)}`;
}

/** The HNSW index `name` over `table`.embedding at the corpus's precision; `params` e.g. " WITH (m = 16, …)". */
export function hnswIndexSql(v: VectorIndex, name: string, table: string, params = ''): string {
  const key = v.precision === 'half' ? `((embedding::halfvec(${v.dimensions})) halfvec_cosine_ops)` : '(embedding vector_cosine_ops)';
  return `CREATE INDEX IF NOT EXISTS ${name} ON ${table} USING hnsw ${key}${params}`;
}
