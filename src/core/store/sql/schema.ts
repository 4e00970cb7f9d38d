// The ONE SQL source of the Corpus Lens schema: tables, indexes and the lookup functions. The same text is run
// by the embedded PGlite store, by the `pg` store on a first `init`, and by Supabase users as a migration
// (`corpus-lens schema --print`). Every lookup is one statement: the functions select the hits, apply the
// threshold and filters, and join the previous/next sentence of the same paper AND section and the paper's
// metadata. Rows come back as (similarity float8, score float8, sentence jsonb, previous jsonb, next jsonb,
// paper jsonb) with camelCase keys, so every backend maps them the same way.
//
// The schema is written by job in this folder (tables, stats, lookup, ranking, elements, roles) and composed here, in
// the order it runs: each part creates what the next ones read.

import type { IndexPrecision } from '../types.js';
import { elementsSql } from './elements.js';
import { healthSql } from './health.js';
import { contextSql, efSearchSql } from './lookup.js';
import { rankingSql } from './ranking.js';
import { FIXED_SEARCH_PATH } from './roles.js';
import { statsSql, statsTablesSql } from './stats.js';
import { tablesSql } from './tables.js';
import { vectorIndex } from './vector.js';

export type { IndexPrecision };

export const SCHEMA_VERSION = '18';
export const DEFAULT_DIMENSIONS = 384;

/**
 * What a migration records of the corpus it creates (kept where already recorded): its dimension and schema version,
 * so that a writer's first fill finds a corpus to write into and never needs DDL (the model is recorded by that fill,
 * a plain INSERT; the writer role may insert rows).
 */
function recordedSql(dimensions: number): string {
  return `INSERT INTO corpus_meta (key, value) VALUES ('dimensions', '${dimensions}'), ('schema_version', '${SCHEMA_VERSION}'),
  ('created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ON CONFLICT (key) DO NOTHING;
`;
}

/**
 * The schema, indexes and functions for embeddings of `dimensions` floats, indexed at `precision` (see
 * {@link vectorIndex}: default float32 up to 2,000 dimensions, half above). Idempotent (IF NOT EXISTS / OR REPLACE).
 */
export function schemaSql(dimensions: number = DEFAULT_DIMENSIONS, precision?: IndexPrecision): string {
  const v = vectorIndex(dimensions, precision);
  return [
    `-- Corpus Lens schema v${SCHEMA_VERSION}, embeddings of ${v.dimensions} dimensions (pgvector), ${v.precision} HNSW indexes.\n`,
    tablesSql(v),
    recordedSql(v.dimensions),
    statsTablesSql(),
    efSearchSql(),
    statsSql(v),
    rankingSql(v),
    contextSql(),
    elementsSql(v),
    healthSql(),
    FIXED_SEARCH_PATH,
  ].join('');
}
