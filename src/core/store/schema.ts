// The ONE SQL source of the Corpus Lens schema: tables, indexes and the lookup functions. The same text is run
// by the embedded PGlite store, by the `pg` store on a first `init`, and by Supabase users as a migration
// (`corpus-lens schema --print`). Every lookup is one statement: the functions below select the hits, apply the
// threshold and filters, and join the previous/next sentence of the same paper AND section and the paper's
// metadata. Rows come back as (similarity float8, score float8, sentence jsonb, previous jsonb, next jsonb,
// paper jsonb) with camelCase keys, so every backend maps them the same way.

import { HYBRID_DEFAULTS, PAPER_DEFAULTS, StoreError, type IndexPrecision } from './types.js';

export type { IndexPrecision };

export const SCHEMA_VERSION = '12';
export const DEFAULT_DIMENSIONS = 384;

/*
 * Index precision (corpus_meta.index_precision; absent: float32): `float32` indexes the `vector` column itself;
 * `half` indexes its `halfvec` cast (an expression index; the column stays float32). At 1M × 384-d on PostgreSQL
 * the half index is 1.75× smaller (1.17 vs 2.05 GB) at the same recall and no slower (README, `npm run bench --
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
        `in float32 and ${MAX_INDEX_DIMENSIONS.half} in half precision` + (p === 'float32' ? ' (use half)' : ''),
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

/**
 * The shared tail of every lookup: `hits(id, score, similarity)` → target (shifted by `offset`, an SQL expression),
 * context, paper.
 */
function contextTail(offset: string): string {
  return `
  SELECT h.similarity, h.score,
    jsonb_build_object('id', t.id, 'paperId', t.paper_id, 'text', t.text, 'sectionTitle', t.section_title,
      'sectionNumber', t.section_number, 'sentenceIndex', t.sentence_index, 'globalIndex', t.global_index) AS sentence,
    CASE WHEN p.id IS NULL THEN NULL ELSE jsonb_build_object('id', p.id, 'paperId', p.paper_id, 'text', p.text,
      'sectionTitle', p.section_title, 'sectionNumber', p.section_number, 'sentenceIndex', p.sentence_index,
      'globalIndex', p.global_index) END AS previous,
    CASE WHEN n.id IS NULL THEN NULL ELSE jsonb_build_object('id', n.id, 'paperId', n.paper_id, 'text', n.text,
      'sectionTitle', n.section_title, 'sectionNumber', n.section_number, 'sentenceIndex', n.sentence_index,
      'globalIndex', n.global_index) END AS next,
    jsonb_build_object('id', pa.id, 'title', pa.title, 'authors', to_jsonb(pa.authors), 'year', pa.year,
      'venue', pa.venue, 'doi', pa.doi, 'citationKey', pa.citation_key) AS paper
  FROM hits h
  JOIN sentences m ON m.id = h.id
  JOIN sentences t ON t.paper_id = m.paper_id AND t.section_index = m.section_index
                  AND t.sentence_index = m.sentence_index + coalesce(${offset}, 0)
  LEFT JOIN sentences p ON p.paper_id = t.paper_id AND p.section_index = t.section_index
                       AND p.sentence_index = t.sentence_index - 1
  LEFT JOIN sentences n ON n.paper_id = t.paper_id AND n.section_index = t.section_index
                       AND n.sentence_index = t.sentence_index + 1
  JOIN papers pa ON pa.id = t.paper_id
  ORDER BY h.score DESC, t.id`;
}

const CONTEXT_TAIL = contextTail('match_offset');

/** The filter on a sentence row `s` (year range through its paper, paper ids). */
const FILTER = `(paper_ids IS NULL OR s.paper_id = ANY (paper_ids))
      AND ((year_min IS NULL AND year_max IS NULL) OR EXISTS (
        SELECT 1 FROM papers fp WHERE fp.id = s.paper_id
          AND (year_min IS NULL OR fp.year >= year_min) AND (year_max IS NULL OR fp.year <= year_max)))`;

/** The filter parameters of every lookup function (see FILTER). */
const FILTER_PARAMS = `year_min int DEFAULT NULL,
  year_max int DEFAULT NULL,
  paper_ids text[] DEFAULT NULL`;

/** Queries that use web-search syntax (quotes, OR, -word) select candidates with websearch_to_tsquery. */
const WEBSEARCH = `query_text ~ '("|\\mOR\\M|(^|\\s)-\\w)'`;

/**
 * Keyword candidates are bounded: the selective terms select (rarest first) only while their document frequencies
 * sum to at most this many sentences (the rarest term always selects). The rest still score the candidates. On the
 * 15k-sentence citation corpus the unbounded rule selected a median 978 sentences (p90 1,848, max 3,617), and the
 * count grows with the corpus; scoring costs a few µs a candidate plus its section's.
 */
export const CANDIDATE_BUDGET = 2000;

/** BM25 constants (Robertson/Lucene defaults). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * Query terms whose document frequency is above this share of the corpus score the candidates but do not select
 * them (a sentence that shares only "model" with the query is not worth ranking); the 3 rarest terms always select.
 */
export const COMMON_TERM_SHARE = 0.02;
/**
 * A sentence's keyword score adds this times its section's BM25 (the section as one document; IDF from sentences):
 * a sentence about the query in a section about the query ranks first. In memory on Citation-Integrity: dev
 * recall@10 0.687 (sentences) → 0.801 (sentence + 2 × section).
 */
export const BM25_SECTION_WEIGHT = 2;
/**
 * Keyword ranking in two stages (schema v10). Reading a candidate's section row and its lexemes was about 60 % of
 * the keyword half (PGlite, 100k sentences: ~1,300 sections for ~1,500 candidates). So the candidates are first
 * ranked by their own BM25 plus the summed BM25 of the candidates in the same section (no section row read), and
 * only the best max(RERANK_MIN, RERANK_FACTOR × k) get the exact score (their own + twice their section's).
 * Chosen on Citation-Integrity claims_train (every 3rd; R 200 / 400 / 600, rough section weight 0 / 1 / 3): R 400
 * keeps train keyword R@10 0.844 and hybrid 0.886, as the exact ranking; R 200 loses 0.005 / 0.004; weight 0
 * (the sentence alone) ties on train but agrees far less with the exact top 100 on the synthetic corpus (13/100
 * identical against 90/100). Dev, held out: keyword 0.782 → 0.785, hybrid 0.829 = 0.829.
 */
export const RERANK_MIN = 400;
export const RERANK_FACTOR = 4;
/** Nearest sections whose sentences join the hybrid's vector candidates (tuned on claims_train: 20 → 40 +0.006). */
const SECTION_CANDIDATES = 40;

/** Σ over query terms of BM25's term weight, for rows of `alias` with `len` and tf/idf from termFrequencies. */
function bm25Sum(alias: string, avgLen = 'avg_len'): string {
  return `sum(w.idf * (w.tf * ${BM25_K1 + 1}) / (w.tf + ${BM25_K1} * (1 - ${BM25_B} + ${BM25_B} * ${alias}.len / ${avgLen})))`;
}

/**
 * The query terms found in `alias`.tsv with their IDF and term frequency (its positions). setweight marks the query's
 * lexemes and ts_filter keeps only them, both in C, so only those few are unnested: unnesting the whole tsvector
 * and joining it to the terms cost ~16 µs a sentence (much more for a section), this ~3 µs (PostgreSQL 15, 15k
 * sentences). Every stored lexeme has positions (to_tsvector and tsvector || tsvector keep them) and weight D, so
 * nothing but the query's lexemes survives the filter and none of them is lost.
 */
function termFrequencies(alias: string): string {
  return `(
        SELECT idfs[array_position(terms, u.lexeme)] AS idf, array_length(u.positions, 1)::float8 AS tf
        FROM unnest(ts_filter(setweight(${alias}.tsv, 'A', terms), '{a}')) u
      )`;
}

/**
 * ef_search by corpus size (SQL lookup_ef_search): 100 up to 100k sentences, 200 above (schema v12), and from 500k
 * growing with the corpus (n / 2,500: 400 at 1M, schema v10), at most pgvector's 1,000; a filtered match twice that
 * and at least 400 (schema v9: the first HNSW candidates a filter thins out must be good ones). Measured with
 * \`npm run bench -- scale\` (topic-structured vectors; tuned on one query set, reported on another; m 16 /
 * ef_construction 64):
 * - unfiltered recall@25: 200k ef 100 0.951 held-out; 1M ef 100 0.817, 250 0.907, 400 0.953, 600 0.972 (tuning),
 *   p50 4.9 / 8.7 / 13.6 / 19.0 ms (2026-11-23, load 3–6 on 2 cores; the target is 0.95 at p50 ≤ 15 ms);
 * - a year filter (1 paper in 5): 200k ef 400 0.979; 1M ef 400 0.899, ef 800 0.955 tuning, 0.939 held-out (p50 32 ms);
 * - 50 given papers: 1.000 at 400 (the planner reads those papers' rows).
 * The floor of 200 above 100k, from \`npm run bench -- limit\` (PGlite; clustered vectors, N/200 centres of 200
 * near-equidistant sentences, harder for HNSW than the topic-structured ones; 60 queries, 2026-11-25, strict
 * recall@25): 100k ef 100 0.973 (store bench); 200k ef 100 0.943, 150 0.960, 200 0.976 (p50 5.5 ms); 300k ef 120 (the
 * v10 rule) 0.901, 200 0.967 (p50 7.0 ms); 400k ef 200 0.946 (p50 11.4 ms) in one build, 0.885 in another. On real sentences
 * (\`npm run bench -- recall\`, Citation-Integrity, 15k) ef 100 already gives k-nn recall 0.99.
 */
const EF_SEARCH_MIN = 100;
/** Above this many sentences the unfiltered floor is EF_SEARCH_LARGE (schema v12). */
const EF_SEARCH_LARGE_FROM = 100_000;
const EF_SEARCH_LARGE = 200;
const EF_SEARCH_PER = 2500;
const FILTERED_EF_SEARCH = 400;

/**
 * PL/pgSQL (not inlinable SQL): the plan is cached per session instead of inlining and re-planning the body at
 * every call (measured: inlining cost more than the lookup itself in PGlite). Custom plans always, so the planner
 * knows LIMIT k and picks the HNSW scan. Iterative scans keep filtered lookups at k rows (pgvector ≥ 0.8);
 * ef_search starts at 100 (the floor measured up to 100k sentences; the vector lookups raise it by corpus size,
 * RAISE_EF_SEARCH). Set per function, so they hold for PostgREST/Supabase calls too, where a session SET does not
 * persist.
 */
const FN_SETTINGS = `SET plan_cache_mode = force_custom_plan
SET hnsw.iterative_scan = relaxed_order
SET hnsw.ef_search = ${EF_SEARCH_MIN}`;

/**
 * A connection's own hnsw.ef_search (the prepared lookups run outside the functions): this corpus's
 * lookup_ef_search, or 100 where the corpus has none (not created yet, or not readable), and never below what the
 * server's administrator set (ALTER DATABASE/ROLE … SET hnsw.ef_search).
 */
export const SESSION_EF_SEARCH = `DO $do$ DECLARE ef int := ${EF_SEARCH_MIN}; BEGIN
  BEGIN EXECUTE 'SELECT lookup_ef_search(false)' INTO ef; EXCEPTION WHEN OTHERS THEN NULL; END;
  PERFORM set_config('hnsw.ef_search', greatest(current_setting('hnsw.ef_search', true)::int, ef)::text, false);
END $do$`;

/** A lookup function's first statement: ef_search for this corpus and this call (ends with the call). */
const RAISE_EF_SEARCH = `PERFORM set_config('hnsw.ef_search', greatest(current_setting('hnsw.ef_search')::int,
    lookup_ef_search(year_min IS NOT NULL OR year_max IS NOT NULL OR paper_ids IS NOT NULL))::text, true);`;

/**
 * A paper filter whose papers hold at most this many sentences is answered by an exact scan of their rows (schema
 * v11), so its recall is 1.000 by construction instead of depending on the planner trading the HNSW scan for those
 * rows (README: on an m 12/40 index at 1M it switched only at ef_search 800). Measured (20k topic-structured 384-d
 * sentences, 50 a paper, top-25 ids, 2 cores at load 2, 2026-11-23): the exact scan costs 0.7–1.7 µs a row — 2,000
 * rows 2.3 ms in PGlite, 1.3 ms on PostgreSQL 15 — against 2–8 ms for the filtered HNSW lookup at ef_search 400 and
 * 1.5–3 ms for an unfiltered one at 100; 5,000 rows took 21 and 6 ms, past both. So up to 2,000 rows (~8 papers
 * of 250 sentences) the exact answer is also the faster one.
 */
export const EXACT_SCAN_ROWS = 2000;

/** PL/pgSQL declaration: whether this call's paper filter is small enough for the exact scan (counts ≤ limit + 1 rows). */
const EXACT_SCAN_DECLARE = `exact_scan boolean := paper_ids IS NOT NULL AND (SELECT count(*) FROM (
    SELECT 1 FROM sentences s WHERE s.paper_id = ANY (paper_ids) LIMIT ${EXACT_SCAN_ROWS + 1}) x) <= ${EXACT_SCAN_ROWS};`;

/**
 * CTE `name`: the `count` rows of `table` (alias s) nearest to `vector` that pass `filter`, as `columns` plus their
 * float32 `distance`, through the HNSW index. With `exact` (a boolean SQL expression) the rows come instead, when it
 * is true, from an exact scan: a materialised CTE of every row passing the filter, which no index can order, so the
 * answer is the exact top `count` whatever the planner estimates. The branch not taken is a one-time false filter.
 */
function nearest(
  v: VectorIndex,
  p: { name: string; table: string; columns: string; vector: string; count: string; filter: string; exact?: string },
): string {
  const rows = `SELECT ${p.columns}, s.embedding <=> ${p.vector} AS distance FROM ${p.table} s`;
  const byIndex = (filter: string) =>
    `${rows} WHERE ${filter} ORDER BY ${indexedDistance(v, 's.embedding', p.vector)} LIMIT ${p.count}`;
  if (!p.exact) return `${p.name} AS MATERIALIZED (${byIndex(p.filter)})`;
  return `${p.name}_all AS MATERIALIZED (${rows} WHERE ${p.exact} AND ${p.filter}),
  ${p.name} AS MATERIALIZED (
    (${byIndex(`NOT ${p.exact} AND ${p.filter}`)})
    UNION ALL
    (SELECT * FROM ${p.name}_all ORDER BY distance LIMIT ${p.count})
  )`;
}

/** The vector match with context: the body of match_sentences, and (unfiltered) the store's prepared statement. */
function vectorMatch(
  v: VectorIndex,
  p: { vector: string; count: string; threshold: string; offset: string; filter: string; exact?: string },
): string {
  return `WITH ${nearest(v, { name: 'top', table: 'sentences', columns: 's.id', ...p })}, hits AS (
    SELECT id, 1 - distance AS score, 1 - distance AS similarity FROM top
    WHERE ${p.threshold} IS NULL OR 1 - distance >= ${p.threshold}
  )
  ${contextTail(p.offset)}`;
}

/**
 * The unfiltered vector match as one plain statement — the same SQL as match_sentences — for a named prepared
 * statement: $1 the query vector, $2 the threshold (float8 or NULL), $3 the offset; k is part of the text so that
 * the cached generic plan knows its LIMIT and keeps the HNSW scan. It skips the PL/pgSQL call and its re-planning
 * (force_custom_plan) on every lookup: in PGlite at 20k × 384-d, 13.3 → 6.0 ms p50 with context (top-25 ids alone:
 * 2.8 ms), measured interleaved on a busy machine (2026-11-22). Filtered lookups keep the function's custom plans.
 * $1 is cast to vector so that its type is the column's whatever the index's precision.
 */
export function matchStatement(count: number, v: VectorIndex): string {
  const k = Math.max(0, Math.floor(count));
  return vectorMatch(v, { vector: '$1::vector', count: String(k), threshold: '$2::float8', offset: '$3::int', filter: 'true' });
}

/** The hybrid lookup's SQL expressions: the body of hybrid_sentences, and (unfiltered) the store's prepared statement. */
interface HybridParams {
  vector: string;
  text: string;
  count: string;
  offset: string;
  rrfK: string;
  candidates: string;
  sectionWeight: string;
  perSection: string;
  /** The filter on sentence and section rows `s` (FILTER, or 'true'). */
  filter: string;
  /** bm25_sentences' filter arguments (year_min, year_max, paper_ids). */
  keywordFilter: string;
  /** Whether the vector candidates come from an exact scan (see nearest). */
  exact?: string;
  /** The keyword ranking as given (a bigint[] of sentence ids, best first) instead of bm25_sentences' (text unused). */
  keywordIds?: string;
}

function hybridQuery(v: VectorIndex, p: HybridParams): string {
  const near = { table: 'sentences', vector: p.vector, exact: p.exact };
  return `WITH ${nearest(v, { ...near, name: 'v', columns: 's.id, s.paper_id, s.section_index', count: p.candidates, filter: p.filter })},
  -- HNSW (sections_embedding_hnsw): the exact scan of every section grew with the corpus (10k sections at 100k
  -- sentences).
  ${nearest(v, {
    ...near,
    name: 'sec',
    table: 'sections',
    columns: 's.paper_id, s.section_index',
    count: String(SECTION_CANDIDATES),
    filter: `${p.sectionWeight} > 0 AND ${p.filter}`,
  })}, cand AS (
    -- Each candidate's similarity comes from the row its scan read, not from a second lookup by id (500 of them in
    -- PGlite: ~1.5 ms). A sentence found both ways gives the same row twice, which UNION keeps once.
    SELECT id, paper_id, section_index, 1 - distance AS similarity FROM v
    UNION SELECT s.id, s.paper_id, s.section_index, 1 - (s.embedding <=> ${p.vector})
    FROM sec JOIN sentences s ON s.paper_id = sec.paper_id AND s.section_index = sec.section_index
  ), vr AS MATERIALIZED (
    SELECT x.id, row_number() OVER (ORDER BY x.score DESC, x.id) AS rank
    FROM (
      -- A section among the nearest has its similarity already; only the others are looked up (coalesce is lazy).
      SELECT c.id, c.similarity
               + ${p.sectionWeight} * coalesce(1 - sc.distance, (SELECT 1 - (x.embedding <=> ${p.vector}) FROM sections x
                   WHERE x.paper_id = c.paper_id AND x.section_index = c.section_index), 0) AS score
      FROM cand c
      LEFT JOIN sec sc ON sc.paper_id = c.paper_id AND sc.section_index = c.section_index
    ) x
    ORDER BY rank LIMIT ${p.candidates}
  ), k AS MATERIALIZED (
    ${
      p.keywordIds
        ? `SELECT b.id, b.rank FROM unnest(${p.keywordIds}) WITH ORDINALITY b(id, rank)`
        : `SELECT b.id, row_number() OVER (ORDER BY b.score DESC, b.id) AS rank
    FROM bm25_sentences(${p.text}, ${p.candidates}, ${p.keywordFilter}) b`
    }
  ), fused AS (
    SELECT id, sum(1.0 / (${p.rrfK} + rank))::float8 AS score
    FROM (SELECT id, rank FROM vr UNION ALL SELECT id, rank FROM k) u
    GROUP BY id
  ), capped AS MATERIALIZED (
    SELECT x.id, x.score, x.similarity FROM (
      SELECT f.id, f.score, (1 - (s.embedding <=> ${p.vector}))::float8 AS similarity,
             row_number() OVER (PARTITION BY s.paper_id, s.section_index ORDER BY f.score DESC, f.id) AS nth
      FROM fused f JOIN sentences s ON s.id = f.id
    ) x
    WHERE ${p.perSection} IS NULL OR ${p.perSection} <= 0 OR x.nth <= ${p.perSection}
    ORDER BY x.score DESC, x.id LIMIT ${p.count}
  ), hits AS (
    SELECT id, score, similarity FROM capped
  )
  ${contextTail(p.offset)}`;
}

/**
 * The unfiltered hybrid lookup as one plain statement — the same SQL as hybrid_sentences — for a named prepared
 * statement: $1 the query vector, $2 the query text, $3 the offset, $4 rrf_k, $5 the section weight, $6 the per-section
 * cap; k and the candidate count are part of the text, so that the cached generic plan knows its LIMITs and keeps
 * the HNSW (or IVFFlat) scans. It skips the PL/pgSQL call and the custom plan of its large statement on every lookup,
 * as matchStatement does for the vector match.
 */
export function hybridStatement(count: number, candidates: number, v: VectorIndex, keywords: 'sql' | 'given' = 'sql'): string {
  return hybridQuery(v, {
    vector: '$1::vector',
    // 'given': $2 is the keyword ranking itself, a bigint[] of sentence ids best first, ranked as bm25_sentences
    // ranks them (the embedded corpus's in-memory index, keyword-index.ts).
    ...(keywords === 'given' ? { text: 'NULL', keywordIds: '$2::bigint[]' } : { text: '$2::text' }),
    count: String(Math.max(0, Math.floor(count))),
    offset: '$3::int',
    rrfK: '$4::int',
    candidates: String(Math.max(0, Math.floor(candidates))),
    sectionWeight: '$5::float8',
    perSection: '$6::int',
    filter: 'true',
    keywordFilter: 'NULL, NULL, NULL',
  });
}

/**
 * A query text's distinct lexemes as bm25_sentences reads them, and whether it uses web-search syntax (which only
 * the SQL ranking handles): $1 the text.
 */
export const QUERY_LEXEMES_SQL = `SELECT ${WEBSEARCH.replace('query_text', '$1::text')} AS web,
  coalesce((SELECT array_agg(DISTINCT u.lexeme) FROM unnest(to_tsvector('english', $1::text)) u), '{}') AS lexemes`;

/** What the element functions return: one row per element, its paper, and (linked) the sentence that linked it. */
const ELEMENT_RETURNS = `RETURNS TABLE (similarity float8, score float8, element jsonb, paper jsonb, via_sentence bigint)`;
const ELEMENT_FILTER = `(element_type IS NULL OR e.type = element_type) AND (paper_ids IS NULL OR e.paper_id = ANY (paper_ids))`;
const ELEMENT_JSON = `jsonb_build_object('id', e.id, 'paperId', e.paper_id, 'elementIndex', e.element_index, 'type', e.type,
      'label', e.label, 'labelKey', e.label_key, 'caption', e.caption, 'content', e.content, 'description', e.description,
      'sectionTitle', e.section_title, 'sectionIndex', e.section_index, 'afterSentence', e.after_sentence, 'page', e.page,
      'bbox', to_jsonb(e.bbox))`;
const PAPER_JSON = `jsonb_build_object('id', pa.id, 'title', pa.title, 'authors', to_jsonb(pa.authors), 'year', pa.year,
      'venue', pa.venue, 'doi', pa.doi, 'citationKey', pa.citation_key)`;

const RETURNS = `RETURNS TABLE (similarity float8, score float8, sentence jsonb, previous jsonb, next jsonb, paper jsonb)`;

/**
 * The schema, indexes and functions for embeddings of `dimensions` floats, indexed at `precision` (see
 * {@link vectorIndex}: default float32 up to 2,000 dimensions, half above). Idempotent (IF NOT EXISTS / OR REPLACE).
 */
export function schemaSql(dimensions: number = DEFAULT_DIMENSIONS, precision?: IndexPrecision): string {
  const v = vectorIndex(dimensions, precision);
  const D = v.dimensions;
  return `-- Corpus Lens schema v${SCHEMA_VERSION}, embeddings of ${D} dimensions (pgvector), ${v.precision} HNSW indexes.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE IF NOT EXISTS corpus_meta (
  key text PRIMARY KEY,
  value text NOT NULL
);
-- The index precision is the corpus's for good (an index of the other kind would not serve these functions' lookups):
-- refuse to replace the functions of a corpus, or of a migration, with those of the other precision. Corpora from
-- before schema v11 have no key: float32.
DO $do$
DECLARE
  recorded text := (SELECT coalesce(max(value) FILTER (WHERE key = 'index_precision'),
                                    CASE WHEN bool_or(key = 'dimensions') THEN 'float32' END) FROM corpus_meta);
BEGIN
  IF recorded <> '${v.precision}' THEN
    RAISE EXCEPTION 'this corpus''s vector indexes are %, not ${v.precision}: print its schema with --precision %', recorded, recorded;
  END IF;
END
$do$;
INSERT INTO corpus_meta (key, value) VALUES ('index_precision', '${v.precision}') ON CONFLICT (key) DO NOTHING;

CREATE TABLE IF NOT EXISTS papers (
  id text PRIMARY KEY,
  title text,
  authors text[] NOT NULL DEFAULT '{}',
  year int,
  venue text,
  doi text,
  url text,
  abstract text,
  citation_key text,
  bibtex text,
  source_path text,
  content_hash text,
  abstract_embedding vector(${D})
);
-- Where a paper fetched from the web came from (the full text's URL, or 'metadata:<service>') and the licence the
-- source states (a URL or a short name such as cc-by); schema v2 corpora gain the columns on upgrade.
ALTER TABLE papers ADD COLUMN IF NOT EXISTS source text;
ALTER TABLE papers ADD COLUMN IF NOT EXISTS license text;

CREATE TABLE IF NOT EXISTS sentences (
  id bigserial PRIMARY KEY,
  paper_id text NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
  section_title text,
  section_number text,
  section_index int NOT NULL DEFAULT 0,
  sentence_index int NOT NULL,
  global_index int NOT NULL,
  page int,
  text text NOT NULL,
  embedding vector(${D}),
  -- Full-text lexemes, stored so that keyword ranking never re-parses the text.
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
);
-- Schema v1 corpora gain the column on upgrade.
ALTER TABLE sentences ADD COLUMN IF NOT EXISTS tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED;
-- Where a PDF sentence is printed (schema v8; null for other sources and for PDFs ingested before): it starts on
-- \`page\` at line_start and ends on page_end (another page when it runs over a page break) at line_end. Lines count
-- from 1 on each page in reading order over body text, headings, captions and footnotes (not running headers,
-- page numbers, display mathematics or the text inside figures and tables).
ALTER TABLE sentences ADD COLUMN IF NOT EXISTS line_start int;
ALTER TABLE sentences ADD COLUMN IF NOT EXISTS line_end int;
ALTER TABLE sentences ADD COLUMN IF NOT EXISTS page_end int;

-- Rows stay whole in the heap up to a page (8160 bytes) instead of 2 kB: a 384-d vector is 1.5 kB, so a sentence or
-- section row passed 2 kB and its vector (or lexemes) moved to the TOAST table, one extra index lookup for every
-- distance the hybrid computes from the heap (15k citation sentences: the exact section scan 16-22 → 5-6 ms on
-- PostgreSQL 15). Applies to rows written from now on; a schema upgrade rewrites the sections.
ALTER TABLE sentences SET (toast_tuple_target = 8160);

-- Context lookups (previous/next in the same paper and section); unique, so a join never duplicates a hit.
CREATE UNIQUE INDEX IF NOT EXISTS sentences_position ON sentences (paper_id, section_index, sentence_index);
-- Re-importing the same rows adds nothing.
CREATE UNIQUE INDEX IF NOT EXISTS sentences_global ON sentences (paper_id, global_index);
${hnswIndexSql(v, 'sentences_embedding_hnsw', 'sentences')};
DROP INDEX IF EXISTS sentences_text_fts;
CREATE INDEX IF NOT EXISTS sentences_tsv ON sentences USING gin (tsv);
CREATE INDEX IF NOT EXISTS papers_year ON papers (year);

-- BM25 statistics, kept exact by statement-level triggers on every insert, delete and text update (also for
-- rows written through PostgREST): the document frequency of each lexeme, and the sentence and lexeme totals.
CREATE TABLE IF NOT EXISTS term_stats (
  term text PRIMARY KEY,
  df int NOT NULL
);
CREATE TABLE IF NOT EXISTS fts_totals (
  id int PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  documents bigint NOT NULL DEFAULT 0,
  lexemes bigint NOT NULL DEFAULT 0,
  sections bigint NOT NULL DEFAULT 0,
  section_lexemes bigint NOT NULL DEFAULT 0
);

-- The HNSW search breadth (hnsw.ef_search) this corpus needs for recall@25 ≥ 0.95 (schema.ts EF_SEARCH_PER).
CREATE OR REPLACE FUNCTION lookup_ef_search(filtered boolean DEFAULT false) RETURNS int
LANGUAGE sql STABLE
AS $fn$
  SELECT least(1000, greatest(
    CASE WHEN filtered THEN ${FILTERED_EF_SEARCH} WHEN coalesce(max(documents), 0) > ${EF_SEARCH_LARGE_FROM} THEN ${EF_SEARCH_LARGE}
      ELSE ${EF_SEARCH_MIN} END,
    (CASE WHEN filtered THEN 2 ELSE 1 END) * ceil(coalesce(max(documents), 0) / ${EF_SEARCH_PER}.0)::int))
  FROM fts_totals
$fn$;

CREATE OR REPLACE FUNCTION term_stats_apply(sign int, rows_tsv tsvector[]) RETURNS void
LANGUAGE sql AS $fn$
  INSERT INTO term_stats AS t (term, df)
    SELECT u.lexeme, sign * count(*) FROM unnest(rows_tsv) r(v), unnest(r.v) u GROUP BY u.lexeme
  ON CONFLICT (term) DO UPDATE SET df = t.df + EXCLUDED.df;
  DELETE FROM term_stats WHERE df <= 0 AND sign < 0;
  UPDATE fts_totals SET documents = documents + sign * cardinality(rows_tsv),
    lexemes = lexemes + sign * (SELECT coalesce(sum(length(v)), 0) FROM unnest(rows_tsv) r(v));
$fn$;

-- Section vectors: the sum of a section's sentence vectors (its direction is the mean's; pgvector's sum took 13 ms
-- where avg took 75–82 ms over 3,000 vectors in PGlite), the section's topic. Hybrid search scores a sentence by its
-- own similarity plus its section's, which finds the sentences of a paper about the query even when their own
-- words differ (citation retrieval, offline embedder, a quarter of claims_train, before the section BM25 was
-- added: hybrid recall@10 0.70 at section weight 0, 0.84 at 3).
CREATE TABLE IF NOT EXISTS sections (
  paper_id text NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
  section_index int NOT NULL,
  sentence_count int NOT NULL,
  embedding vector(${D}),
  tsv tsvector,
  lexemes int NOT NULL DEFAULT 0,
  PRIMARY KEY (paper_id, section_index)
);
ALTER TABLE sections SET (toast_tuple_target = 8160);
-- The hybrid's nearest sections. A bulk load drops it and builds it after the sections are counted.
${hnswIndexSql(v, 'sections_embedding_hnsw', 'sections')};
-- Concatenates the sentences' lexemes (positions shifted, as tsvector || tsvector does) without re-parsing text.
CREATE OR REPLACE AGGREGATE tsvector_cat(tsvector) (SFUNC = tsvector_concat, STYPE = tsvector, INITCOND = '');

-- Recomputes the vectors of the given (paper, section) pairs from their sentences; empty sections go.
CREATE OR REPLACE FUNCTION sections_refresh(keys jsonb) RETURNS void
LANGUAGE sql AS $fn$
  WITH k AS (SELECT DISTINCT x.paper_id, x.section_index FROM jsonb_to_recordset(keys) x(paper_id text, section_index int)),
  agg AS (
    SELECT s.paper_id, s.section_index, count(*)::int AS n, sum(s.embedding) AS embedding,
           tsvector_cat(s.tsv ORDER BY s.sentence_index) AS tsv
    FROM k JOIN sentences s ON s.paper_id = k.paper_id AND s.section_index = k.section_index
    GROUP BY s.paper_id, s.section_index
  ), gone AS (
    DELETE FROM sections c USING k WHERE c.paper_id = k.paper_id AND c.section_index = k.section_index
      AND NOT EXISTS (SELECT 1 FROM agg a WHERE a.paper_id = k.paper_id AND a.section_index = k.section_index)
  )
  INSERT INTO sections (paper_id, section_index, sentence_count, embedding, tsv, lexemes)
    SELECT a.paper_id, a.section_index, a.n, a.embedding, a.tsv, length(a.tsv) FROM agg a
      WHERE EXISTS (SELECT 1 FROM papers p WHERE p.id = a.paper_id)
  ON CONFLICT (paper_id, section_index) DO UPDATE SET sentence_count = EXCLUDED.sentence_count,
    embedding = EXCLUDED.embedding, tsv = EXCLUDED.tsv, lexemes = EXCLUDED.lexemes;
  UPDATE fts_totals SET sections = (SELECT count(*) FROM sections),
    section_lexemes = (SELECT coalesce(sum(lexemes), 0) FROM sections);
$fn$;

-- A bulk load (SqlCorpusStore.dropSearchIndexes) sets corpus_lens.defer_stats in its session and recounts once at
-- the end with refresh_search_stats(): per-statement upserts cost ~150–220 µs a sentence in PGlite.
CREATE OR REPLACE FUNCTION sentences_after_write() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF current_setting('corpus_lens.defer_stats', true) = 'on' THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM term_stats_apply(-1, (SELECT coalesce(array_agg(tsv), '{}') FROM old_rows));
    PERFORM sections_refresh((SELECT jsonb_agg(DISTINCT jsonb_build_object('paper_id', paper_id, 'section_index', section_index)) FROM old_rows));
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM term_stats_apply(1, (SELECT coalesce(array_agg(tsv), '{}') FROM new_rows));
    PERFORM sections_refresh((SELECT jsonb_agg(DISTINCT jsonb_build_object('paper_id', paper_id, 'section_index', section_index)) FROM new_rows));
  END IF;
  RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS sentences_stats_insert ON sentences;
CREATE TRIGGER sentences_stats_insert AFTER INSERT ON sentences
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sentences_after_write();
DROP TRIGGER IF EXISTS sentences_stats_delete ON sentences;
CREATE TRIGGER sentences_stats_delete AFTER DELETE ON sentences
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sentences_after_write();
DROP TRIGGER IF EXISTS sentences_stats_update ON sentences;
CREATE TRIGGER sentences_stats_update AFTER UPDATE ON sentences
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sentences_after_write();

-- Recomputes the statistics and section vectors from scratch (schema upgrades; a repair after manual edits).
CREATE OR REPLACE FUNCTION refresh_search_stats() RETURNS void
LANGUAGE sql AS $fn$
  DELETE FROM term_stats;
  INSERT INTO term_stats (term, df) SELECT word, ndoc FROM ts_stat('SELECT tsv FROM sentences');
  INSERT INTO fts_totals (id) VALUES (1) ON CONFLICT (id) DO NOTHING;
  UPDATE fts_totals SET documents = (SELECT count(*) FROM sentences),
    lexemes = (SELECT coalesce(sum(length(tsv)), 0) FROM sentences);
  SELECT sections_refresh((SELECT jsonb_agg(jsonb_build_object('paper_id', paper_id, 'section_index', section_index))
    FROM (SELECT DISTINCT paper_id, section_index FROM sentences) k));
$fn$;
INSERT INTO fts_totals (id) VALUES (1) ON CONFLICT (id) DO NOTHING;

-- Okapi BM25 over sentences (k1 ${BM25_K1}, b ${BM25_B}; document length = distinct lexemes), best first. Candidates are the
-- sentences holding one of the query's selective terms (or matching its web-search syntax).
CREATE OR REPLACE FUNCTION bm25_sentences(
  query_text text,
  match_count int DEFAULT 25,
  ${FILTER_PARAMS}
) RETURNS TABLE (id bigint, score float8)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $fn$
#variable_conflict use_column
DECLARE
  n float8;
  avg_len float8;
  avg_section_len float8;
  terms text[];
  idfs float8[];
  dfs int[];
  selective int;
  selecting int;
  tsq tsquery;
BEGIN
  SELECT greatest(documents, 1), greatest(lexemes::float8 / greatest(documents, 1), 1),
         greatest(section_lexemes::float8 / greatest(sections, 1), 1)
    INTO n, avg_len, avg_section_len FROM fts_totals;
  SELECT array_agg(q.term ORDER BY t.df, q.term), array_agg(ln(1 + (n - t.df + 0.5) / (t.df + 0.5)) ORDER BY t.df, q.term),
         array_agg(t.df ORDER BY t.df, q.term), count(*) FILTER (WHERE t.df <= ${COMMON_TERM_SHARE} * n)
    INTO terms, idfs, dfs, selective
    FROM (SELECT DISTINCT u.lexeme AS term FROM unnest(to_tsvector('english', query_text)) u) q
    JOIN term_stats t ON t.term = q.term;
  IF terms IS NULL THEN
    RETURN;
  END IF;
  IF ${WEBSEARCH} THEN
    tsq := websearch_to_tsquery('english', query_text);
  ELSE
    -- OR of the selective terms (the rarest first; at least 3) within the candidate budget (the rarest always),
    -- quoted as tsvector output quotes lexemes.
    SELECT count(*) INTO selecting
      FROM (SELECT x.i, sum(x.df) OVER (ORDER BY x.i) AS total FROM unnest(dfs) WITH ORDINALITY x(df, i)) y
      WHERE y.i <= greatest(selective, 3) AND (y.i = 1 OR y.total <= ${CANDIDATE_BUDGET});
    tsq := replace(strip(array_to_tsvector(terms[1:selecting]))::text, ''' ''', ''' | ''')::tsquery;
  END IF;
  RETURN QUERY
    WITH c AS MATERIALIZED (
      SELECT s.id, s.paper_id, s.section_index, s.tsv, length(s.tsv) AS len
      FROM sentences s WHERE s.tsv @@ tsq AND ${FILTER}
    ), cs AS MATERIALIZED (
      SELECT c.id, c.paper_id, c.section_index, ${bm25Sum('c')} AS score
      FROM c CROSS JOIN LATERAL ${termFrequencies('c')} w
      GROUP BY c.id, c.paper_id, c.section_index
    ), top AS MATERIALIZED (
      -- Only these get their section's BM25, which reads the section's lexemes (see RERANK_MIN).
      SELECT r.id, r.paper_id, r.section_index, r.score FROM (
        SELECT cs.*, cs.score + sum(cs.score) OVER (PARTITION BY cs.paper_id, cs.section_index) AS rough FROM cs
      ) r
      ORDER BY r.rough DESC, r.id
      LIMIT greatest(${RERANK_MIN}, ${RERANK_FACTOR} * match_count)
    ), ss AS (
      SELECT x.paper_id, x.section_index, ${bm25Sum('x', 'avg_section_len')} AS score
      FROM (SELECT DISTINCT paper_id, section_index FROM top) k
      JOIN (SELECT paper_id, section_index, tsv, lexemes AS len FROM sections) x
        ON x.paper_id = k.paper_id AND x.section_index = k.section_index
      CROSS JOIN LATERAL ${termFrequencies('x')} w
      GROUP BY x.paper_id, x.section_index
    )
    SELECT cs.id, (cs.score + ${BM25_SECTION_WEIGHT} * coalesce(ss.score, 0))::float8 AS score
    FROM top cs LEFT JOIN ss ON ss.paper_id = cs.paper_id AND ss.section_index = cs.section_index
    ORDER BY score DESC, cs.id
    LIMIT match_count;
END
$fn$;

-- Vector match with context, one statement. The top match_count by cosine distance (HNSW; set
-- hnsw.iterative_scan = relaxed_order in the session so filters do not starve the result), then the threshold,
-- then the target shifted by match_offset inside the same section (hits shifted out of the section are dropped).
CREATE OR REPLACE FUNCTION match_sentences(
  query_embedding vector(${D}),
  match_threshold float8 DEFAULT NULL,
  match_count int DEFAULT 25,
  match_offset int DEFAULT 0,
  ${FILTER_PARAMS}
) ${RETURNS}
LANGUAGE plpgsql STABLE
${FN_SETTINGS}
AS $fn$
#variable_conflict use_column
DECLARE
  ${EXACT_SCAN_DECLARE}
BEGIN
  ${RAISE_EF_SEARCH}
  RETURN QUERY
  ${vectorMatch(v, {
    vector: 'query_embedding',
    count: 'match_count',
    threshold: 'match_threshold',
    offset: 'match_offset',
    filter: FILTER,
    exact: 'exact_scan',
  })};
END
$fn$;

-- Keyword match with context (BM25 over the stored lexemes), one statement.
CREATE OR REPLACE FUNCTION keyword_sentences(
  query_text text,
  match_count int DEFAULT 25,
  match_offset int DEFAULT 0,
  ${FILTER_PARAMS}
) ${RETURNS}
LANGUAGE plpgsql STABLE
${FN_SETTINGS}
AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH hits AS MATERIALIZED (
    SELECT b.id, b.score, b.score AS similarity
    FROM bm25_sentences(query_text, match_count, year_min, year_max, paper_ids) b
  )
  ${CONTEXT_TAIL};
END
$fn$;

-- Hybrid, one statement: reciprocal-rank fusion of (1) a vector ranking that adds to each sentence's similarity
-- section_weight × its section's similarity (candidates: the candidate_count nearest sentences and the sentences of
-- the ${SECTION_CANDIDATES} nearest sections) and (2) the BM25 ranking. score = Σ 1 / (rrf_k + rank); similarity = the
-- sentence's own cosine similarity to the query.
DROP FUNCTION IF EXISTS hybrid_sentences(vector, text, int, int, int, int, text[], int, int);
CREATE OR REPLACE FUNCTION hybrid_sentences(
  query_embedding vector(${D}),
  query_text text,
  match_count int DEFAULT 25,
  match_offset int DEFAULT 0,
  ${FILTER_PARAMS},
  rrf_k int DEFAULT ${HYBRID_DEFAULTS.rrfK},
  candidate_count int DEFAULT ${HYBRID_DEFAULTS.minCandidates},
  section_weight float8 DEFAULT ${HYBRID_DEFAULTS.sectionWeight},
  per_section int DEFAULT ${HYBRID_DEFAULTS.perSection}
) ${RETURNS}
LANGUAGE plpgsql STABLE
${FN_SETTINGS}
AS $fn$
#variable_conflict use_column
DECLARE
  ${EXACT_SCAN_DECLARE}
BEGIN
  ${RAISE_EF_SEARCH}
  RETURN QUERY
  ${hybridQuery(v, {
    vector: 'query_embedding',
    text: 'query_text',
    count: 'match_count',
    offset: 'match_offset',
    rrfK: 'rrf_k',
    candidates: 'candidate_count',
    sectionWeight: 'section_weight',
    perSection: 'per_section',
    filter: FILTER,
    keywordFilter: 'year_min, year_max, paper_ids',
    exact: 'exact_scan',
  })};
END
$fn$;

-- Paper ranking, one statement (the papers view of results, related work; never the typing loop). A paper scores its
-- whole-paper BM25 (its sections' lexemes as one document; IDF from sentences) divided by the best candidate's, plus
-- vector_weight × the cosine similarity of the query to the paper's summed sentence vectors. Candidates: the papers
-- holding one of the query's selective terms and the candidate_count nearest papers. Each paper comes back as its
-- sentence most similar to the query (similarity = that sentence's), with context; score = the paper's score.
CREATE OR REPLACE FUNCTION rank_papers(
  query_embedding vector(${D}),
  query_text text,
  match_count int DEFAULT 25,
  match_offset int DEFAULT 0,
  ${FILTER_PARAMS},
  vector_weight float8 DEFAULT ${PAPER_DEFAULTS.vectorWeight},
  candidate_count int DEFAULT ${PAPER_DEFAULTS.candidates}
) ${RETURNS}
LANGUAGE plpgsql STABLE
${FN_SETTINGS}
AS $fn$
#variable_conflict use_column
DECLARE
  n float8;
  avg_len float8;
  terms text[];
  idfs float8[];
  selective int;
  tsq tsquery;
BEGIN
  SELECT greatest(documents, 1), greatest(section_lexemes::float8 / greatest((SELECT count(*) FROM papers), 1), 1)
    INTO n, avg_len FROM fts_totals;
  SELECT array_agg(q.term ORDER BY t.df, q.term), array_agg(ln(1 + (n - t.df + 0.5) / (t.df + 0.5)) ORDER BY t.df, q.term),
         count(*) FILTER (WHERE t.df <= ${COMMON_TERM_SHARE} * n)
    INTO terms, idfs, selective
    FROM (SELECT DISTINCT u.lexeme AS term FROM unnest(to_tsvector('english', query_text)) u) q
    JOIN term_stats t ON t.term = q.term;
  IF terms IS NOT NULL THEN
    tsq := replace(strip(array_to_tsvector(terms[1:greatest(selective, 3)]))::text, ''' ''', ''' | ''')::tsquery;
  END IF;
  RETURN QUERY
  WITH sec AS MATERIALIZED (
    SELECT s.paper_id, s.section_index, s.embedding, s.tsv FROM sections s WHERE ${FILTER}
  ), cand AS (
    SELECT c.paper_id FROM sec c WHERE tsq IS NOT NULL AND c.tsv @@ tsq
    UNION
    (SELECT c.paper_id FROM sec c GROUP BY c.paper_id ORDER BY sum(c.embedding) <=> query_embedding LIMIT candidate_count)
  ), pap AS MATERIALIZED (
    SELECT c.paper_id, sum(c.embedding) AS embedding, tsvector_cat(c.tsv ORDER BY c.section_index) AS tsv
    FROM sec c WHERE c.paper_id IN (SELECT paper_id FROM cand) GROUP BY c.paper_id
  ), bm AS (
    SELECT x.paper_id, ${bm25Sum('x')} AS score
    FROM (SELECT paper_id, tsv, length(tsv) AS len FROM pap) x CROSS JOIN LATERAL ${termFrequencies('x')} w
    GROUP BY x.paper_id
  ), ranked AS MATERIALIZED (
    SELECT p.paper_id,
           (coalesce(b.score / nullif(max(b.score) OVER (), 0), 0)
            + vector_weight * coalesce(1 - (p.embedding <=> query_embedding), 0))::float8 AS score
    FROM pap p LEFT JOIN bm b ON b.paper_id = p.paper_id
    ORDER BY score DESC, p.paper_id LIMIT match_count
  ), hits AS (
    SELECT DISTINCT ON (r.paper_id) t.id, r.score, (1 - (t.embedding <=> query_embedding))::float8 AS similarity
    FROM ranked r JOIN sentences t ON t.paper_id = r.paper_id
    ORDER BY r.paper_id, t.embedding <=> query_embedding, t.id
  )
  ${CONTEXT_TAIL};
END
$fn$;

-- Context of given sentences (for callers that already hold sentence ids), one statement.
CREATE OR REPLACE FUNCTION sentence_context(sentence_ids bigint[], match_offset int DEFAULT 0) ${RETURNS}
LANGUAGE plpgsql STABLE
${FN_SETTINGS}
AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH hits AS (
    SELECT u.id, (-u.ord)::float8 AS score, NULL::float8 AS similarity
    FROM unnest(sentence_ids) WITH ORDINALITY AS u(id, ord)
  )
  ${CONTEXT_TAIL};
END
$fn$;

-- Every section of every paper once, with its title (the section-structure view), in pages of at most max_rows
-- ordered by (paper_id, section_index), so that PostgREST's row limit (Supabase: 1,000) never truncates the
-- list: pass the last row's paper_id and section_index to get the next page. Each page is an index range scan.
CREATE OR REPLACE FUNCTION section_titles(after_paper text DEFAULT NULL, after_section int DEFAULT NULL,
  max_rows int DEFAULT 1000)
RETURNS TABLE (paper_id text, section_index int, section_title text)
LANGUAGE sql STABLE AS $fn$
  SELECT s.paper_id, s.section_index, min(s.section_title)
  FROM sentences s
  WHERE after_paper IS NULL OR (s.paper_id, s.section_index) > (after_paper, coalesce(after_section, -2147483648))
  GROUP BY s.paper_id, s.section_index
  ORDER BY s.paper_id, s.section_index
  LIMIT max_rows;
$fn$;

-- Figures, tables and equations (schema v7; seed 003's elements): one row each, written in the same transaction as
-- its paper's sentences and deleted with the paper. Found by their caption + context vector (the sentences' model)
-- and by keyword over label, caption, content and description; after_sentence is the global index of the sentence
-- the element follows in the text (-1: before the first), bbox the PDF region [x0, y0, x1, y1] in points from the
-- page's top-left.
CREATE TABLE IF NOT EXISTS elements (
  id bigserial PRIMARY KEY,
  paper_id text NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
  element_index int NOT NULL,
  type text NOT NULL CHECK (type IN ('figure', 'table', 'equation')),
  label text,
  label_key text,
  caption text,
  content text,
  description text,
  section_title text,
  section_index int,
  after_sentence int NOT NULL DEFAULT -1,
  page int,
  bbox float8[],
  embedding vector(${D}),
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(label, '') || ' ' || coalesce(caption, '') || ' '
    || coalesce(content, '') || ' ' || coalesce(description, ''))) STORED
);
CREATE UNIQUE INDEX IF NOT EXISTS elements_position ON elements (paper_id, element_index);
${hnswIndexSql(v, 'elements_embedding_hnsw', 'elements')};
CREATE INDEX IF NOT EXISTS elements_tsv ON elements USING gin (tsv);

-- Elements best first for a query: reciprocal-rank fusion of the candidate_count nearest by vector and the
-- candidate_count best by keyword (ts_rank over the OR of the query's lexemes); similarity = cosine to the query.
CREATE OR REPLACE FUNCTION match_elements(
  query_embedding vector(${D}),
  query_text text,
  match_count int DEFAULT 5,
  element_type text DEFAULT NULL,
  paper_ids text[] DEFAULT NULL,
  rrf_k int DEFAULT ${HYBRID_DEFAULTS.rrfK},
  candidate_count int DEFAULT 50
) ${ELEMENT_RETURNS}
LANGUAGE plpgsql STABLE
${FN_SETTINGS}
AS $fn$
#variable_conflict use_column
DECLARE
  tsq tsquery;
BEGIN
  tsq := nullif(replace(strip(to_tsvector('english', coalesce(query_text, '')))::text, ''' ''', ''' | '''), '')::tsquery;
  RETURN QUERY
  WITH v AS MATERIALIZED (
    SELECT x.id, row_number() OVER (ORDER BY x.distance, x.id) AS rank FROM (
      SELECT e.id, e.embedding <=> query_embedding AS distance FROM elements e
      WHERE query_embedding IS NOT NULL AND ${ELEMENT_FILTER}
      ORDER BY ${indexedDistance(v, 'e.embedding', 'query_embedding')} LIMIT candidate_count
    ) x
  ), k AS MATERIALIZED (
    SELECT x.id, row_number() OVER (ORDER BY x.r DESC, x.id) AS rank FROM (
      SELECT e.id, ts_rank(e.tsv, tsq) AS r FROM elements e
      WHERE tsq IS NOT NULL AND e.tsv @@ tsq AND ${ELEMENT_FILTER}
      ORDER BY ts_rank(e.tsv, tsq) DESC, e.id LIMIT candidate_count
    ) x
  ), fused AS MATERIALIZED (
    SELECT u.id, sum(1.0 / (rrf_k + u.rank))::float8 AS score
    FROM (SELECT id, rank FROM v UNION ALL SELECT id, rank FROM k) u
    GROUP BY u.id ORDER BY score DESC, u.id LIMIT match_count
  )
  SELECT CASE WHEN query_embedding IS NULL THEN NULL ELSE (1 - (e.embedding <=> query_embedding))::float8 END, f.score,
    ${ELEMENT_JSON}, ${PAPER_JSON}, NULL::bigint
  FROM fused f JOIN elements e ON e.id = f.id JOIN papers pa ON pa.id = e.paper_id
  ORDER BY f.score DESC, e.id;
END
$fn$;

-- The elements "linked" to given sentences: in the same paper and on the same PDF page when both have one, else in
-- the same section; each element once, for the first sentence (in the given order) that links it.
CREATE OR REPLACE FUNCTION linked_elements(
  sentence_ids bigint[],
  match_count int DEFAULT 5,
  element_type text DEFAULT NULL,
  paper_ids text[] DEFAULT NULL
) ${ELEMENT_RETURNS}
LANGUAGE plpgsql STABLE
${FN_SETTINGS}
AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH s AS (
    SELECT u.id, u.ord, t.paper_id, t.page, t.section_index
    FROM unnest(sentence_ids) WITH ORDINALITY AS u(id, ord) JOIN sentences t ON t.id = u.id
  ), l AS MATERIALIZED (
    SELECT DISTINCT ON (e.id) e.id, s.ord, s.id AS via
    FROM s JOIN elements e ON e.paper_id = s.paper_id
      AND CASE WHEN s.page IS NOT NULL AND e.page IS NOT NULL THEN e.page = s.page ELSE e.section_index = s.section_index END
    WHERE ${ELEMENT_FILTER}
    ORDER BY e.id, s.ord
  )
  SELECT NULL::float8, (-l.ord)::float8, ${ELEMENT_JSON}, ${PAPER_JSON}, l.via
  FROM l JOIN elements e ON e.id = l.id JOIN papers pa ON pa.id = e.paper_id
  ORDER BY l.ord, e.element_index
  LIMIT match_count;
END
$fn$;

-- Every element in the order written (a paper's in reading order), in pages of max_rows after the id after_id, so
-- that PostgREST's row limit never truncates the list.
CREATE OR REPLACE FUNCTION list_elements(
  element_type text DEFAULT NULL,
  paper_ids text[] DEFAULT NULL,
  after_id bigint DEFAULT NULL,
  max_rows int DEFAULT 1000
) ${ELEMENT_RETURNS}
LANGUAGE sql STABLE AS $fn$
  SELECT NULL::float8, 0::float8, ${ELEMENT_JSON}, ${PAPER_JSON}, NULL::bigint
  FROM elements e JOIN papers pa ON pa.id = e.paper_id
  WHERE (after_id IS NULL OR e.id > after_id) AND ${ELEMENT_FILTER}
  ORDER BY e.id
  LIMIT max_rows;
$fn$;
${FIXED_SEARCH_PATH}`;
}

/** The corpus tables (every one a reader may SELECT; none other). */
export const CORPUS_TABLES = ['corpus_meta', 'papers', 'sentences', 'sections', 'term_stats', 'fts_totals', 'elements'] as const;
/**
 * The lookup functions a reader may call (keyword and hybrid call bm25_sentences as the caller). Every function the
 * schema creates is in this list or WRITE_FUNCTIONS: the grants, the fixed search_path and the Supabase policies
 * come from them (test/integration/store-roles.test.ts fails on a function in neither).
 */
export const READ_FUNCTIONS = [
  'lookup_ef_search',
  'match_sentences',
  'keyword_sentences',
  'hybrid_sentences',
  'rank_papers',
  'bm25_sentences',
  'sentence_context',
  'section_titles',
  'match_elements',
  'linked_elements',
  'list_elements',
] as const;
/** The functions a write runs (the statistics triggers call them as the writing role). */
export const WRITE_FUNCTIONS = ['term_stats_apply', 'sections_refresh', 'sentences_after_write', 'refresh_search_stats'] as const;

/**
 * Every Corpus Lens function runs as its caller (SECURITY INVOKER, stated: a reader's grants and row-level
 * security apply inside it) with a search_path fixed when the schema is run: the schema it is created in,
 * pgvector's schema (Supabase keeps extensions in \`extensions\`), then pg_temp, so that nothing a caller creates
 * earlier on their own path can stand in for a corpus table or operator. Re-applied on every run, as CREATE OR
 * REPLACE resets a function's settings.
 */
const FIXED_SEARCH_PATH = `
-- Functions run as their caller (SECURITY INVOKER) with a search_path fixed at migration time.
DO $do$
DECLARE
  vector_schema name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                         WHERE e.extname = 'vector');
  path text := quote_ident(current_schema())
    || CASE WHEN vector_schema IS NULL OR vector_schema = current_schema() THEN '' ELSE ', ' || quote_ident(vector_schema) END
    || ', pg_temp';
  f regprocedure;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
    WHERE p.pronamespace = current_schema()::regnamespace
      AND p.proname = ANY (ARRAY['${[...READ_FUNCTIONS, ...WRITE_FUNCTIONS].join("', '")}'])
  LOOP
    EXECUTE format('ALTER FUNCTION %s SECURITY INVOKER SET search_path = %s', f, path);
  END LOOP;
END
$do$;
`;

const list = (names: readonly string[]) => names.join(', ');

/**
 * Roles for a shared corpus (\`corpus-lens schema --print --roles\`), run after the schema by its owner:
 * corpus_lens_reader may SELECT the corpus tables and EXECUTE the lookup functions, nothing else;
 * corpus_lens_writer may also insert, update and delete rows (ingest, re-ingest). Both are group roles without
 * login: grant them to each person's login role. PUBLIC loses its default EXECUTE on the corpus functions.
 * Idempotent.
 */
export function rolesSql(): string {
  return `
-- Roles for a shared corpus: corpus_lens_reader (read and look up) and corpus_lens_writer (also ingest).
-- Group roles without login; give each person a login role in one of them, e.g.
--   CREATE ROLE alice LOGIN PASSWORD '…' IN ROLE corpus_lens_reader;
DO $do$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'corpus_lens_reader') THEN CREATE ROLE corpus_lens_reader NOLOGIN; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'corpus_lens_writer') THEN CREATE ROLE corpus_lens_writer NOLOGIN; END IF;
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO corpus_lens_reader, corpus_lens_writer', current_schema());
  -- pgvector's schema, where it is not this one (its types and operators).
  PERFORM 1 FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'vector' AND n.nspname <> current_schema();
  IF FOUND THEN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO corpus_lens_reader, corpus_lens_writer',
      (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'));
  END IF;
END
$do$;
REVOKE ALL ON TABLE ${list(CORPUS_TABLES)} FROM PUBLIC, corpus_lens_reader, corpus_lens_writer;
REVOKE ALL ON FUNCTION ${list([...READ_FUNCTIONS, ...WRITE_FUNCTIONS])} FROM PUBLIC;
GRANT SELECT ON TABLE ${list(CORPUS_TABLES)} TO corpus_lens_reader;
GRANT EXECUTE ON FUNCTION ${list(READ_FUNCTIONS)} TO corpus_lens_reader;
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE ${list(CORPUS_TABLES)} TO corpus_lens_writer;
GRANT USAGE ON SEQUENCE sentences_id_seq, elements_id_seq TO corpus_lens_writer;
GRANT EXECUTE ON FUNCTION ${list([...READ_FUNCTIONS, ...WRITE_FUNCTIONS])} TO corpus_lens_writer;
`;
}

/**
 * Supabase (\`corpus-lens schema --print --supabase\`): row-level security on every corpus table, read-only
 * policies for the anon and authenticated keys, and their table and function grants cut to SELECT and the lookup
 * functions (Supabase's default privileges grant them everything in \`public\`). Writers use the service_role key,
 * which bypasses row-level security. Idempotent.
 */
export function supabasePoliciesSql(): string {
  const policies = CORPUS_TABLES.map(
    (t) => `ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS corpus_lens_read ON ${t};
CREATE POLICY corpus_lens_read ON ${t} FOR SELECT TO anon, authenticated USING (true);`,
  ).join('\n');
  return `
-- Supabase: the anon and authenticated keys may only read the corpus and call its lookup functions; writers use
-- the service_role key (it bypasses row-level security).
${policies}
REVOKE ALL ON TABLE ${list(CORPUS_TABLES)} FROM anon, authenticated;
GRANT SELECT ON TABLE ${list(CORPUS_TABLES)} TO anon, authenticated;
REVOKE ALL ON SEQUENCE sentences_id_seq, elements_id_seq FROM anon, authenticated;
REVOKE ALL ON FUNCTION ${list(WRITE_FUNCTIONS)} FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION ${list(READ_FUNCTIONS)} TO anon, authenticated;
`;
}
