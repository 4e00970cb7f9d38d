// The ONE SQL source of the Corpus Lens schema: tables, indexes and the lookup functions. The same text is run
// by the embedded PGlite store, by the `pg` store on a first `init`, and by Supabase users as a migration
// (`corpus-lens schema --print`). Every lookup is one statement: the functions below select the hits, apply the
// threshold and filters, and join the previous/next sentence of the same paper AND section and the paper's
// metadata. Rows come back as (similarity float8, score float8, sentence jsonb, previous jsonb, next jsonb,
// paper jsonb) with camelCase keys, so every backend maps them the same way.

export const SCHEMA_VERSION = '1';
export const DEFAULT_DIMENSIONS = 384;

function checkDimensions(d: number): number {
  if (!Number.isInteger(d) || d < 1 || d > 16000) throw new Error(`invalid embedding dimension ${d} (1..16000)`);
  return d;
}

/** The shared tail of every lookup: `hits(id, score, similarity)` → target (shifted by match_offset), context, paper. */
const CONTEXT_TAIL = `
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
      'venue', pa.venue, 'doi', pa.doi) AS paper
  FROM hits h
  JOIN sentences m ON m.id = h.id
  JOIN sentences t ON t.paper_id = m.paper_id AND t.section_index = m.section_index
                  AND t.sentence_index = m.sentence_index + coalesce(match_offset, 0)
  LEFT JOIN sentences p ON p.paper_id = t.paper_id AND p.section_index = t.section_index
                       AND p.sentence_index = t.sentence_index - 1
  LEFT JOIN sentences n ON n.paper_id = t.paper_id AND n.section_index = t.section_index
                       AND n.sentence_index = t.sentence_index + 1
  JOIN papers pa ON pa.id = t.paper_id
  ORDER BY h.score DESC, t.id`;

/** The filter on a sentence row `s` (year range through its paper, paper ids). */
const FILTER = `(paper_ids IS NULL OR s.paper_id = ANY (paper_ids))
      AND ((year_min IS NULL AND year_max IS NULL) OR EXISTS (
        SELECT 1 FROM papers fp WHERE fp.id = s.paper_id
          AND (year_min IS NULL OR fp.year >= year_min) AND (year_max IS NULL OR fp.year <= year_max)))`;

/** The keyword query: OR of the words (a sentence is a bag of words), or web-search syntax when quotes/OR/-x are used. */
const TSQUERY = `(CASE WHEN query_text ~ '("|\\mOR\\M|(^|\\s)-\\w)' THEN websearch_to_tsquery('english', query_text)
      ELSE nullif(replace(plainto_tsquery('english', query_text)::text, ' & ', ' | '), '')::tsquery END)`;

/**
 * PL/pgSQL (not inlinable SQL): the plan is cached per session instead of inlining and re-planning the body at
 * every call (measured: inlining cost more than the lookup itself in PGlite). Custom plans always, so the planner
 * knows LIMIT k and picks the HNSW scan. Iterative scans keep filtered lookups at k rows (pgvector ≥ 0.8);
 * ef_search 100 is the measured recall/latency choice (bench/store.bench.ts). Set per function, so they hold for
 * PostgREST/Supabase calls too, where a session SET does not persist.
 */
const FN_SETTINGS = `SET plan_cache_mode = force_custom_plan
SET hnsw.iterative_scan = relaxed_order
SET hnsw.ef_search = 100`;

const RETURNS = `RETURNS TABLE (similarity float8, score float8, sentence jsonb, previous jsonb, next jsonb, paper jsonb)`;

/** The schema, indexes and functions for embeddings of `dimensions` floats. Idempotent (IF NOT EXISTS / OR REPLACE). */
export function schemaSql(dimensions: number = DEFAULT_DIMENSIONS): string {
  const D = checkDimensions(dimensions);
  return `-- Corpus Lens schema v${SCHEMA_VERSION}, embeddings of ${D} dimensions (pgvector).
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE IF NOT EXISTS corpus_meta (
  key text PRIMARY KEY,
  value text NOT NULL
);

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
  embedding vector(${D})
);

-- Context lookups (previous/next in the same paper and section); unique, so a join never duplicates a hit.
CREATE UNIQUE INDEX IF NOT EXISTS sentences_position ON sentences (paper_id, section_index, sentence_index);
-- Re-importing the same rows adds nothing.
CREATE UNIQUE INDEX IF NOT EXISTS sentences_global ON sentences (paper_id, global_index);
CREATE INDEX IF NOT EXISTS sentences_embedding_hnsw ON sentences USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS sentences_text_fts ON sentences USING gin (to_tsvector('english', text));
CREATE INDEX IF NOT EXISTS papers_year ON papers (year);

-- Vector match with context, one statement. The top match_count by cosine distance (HNSW; set
-- hnsw.iterative_scan = relaxed_order in the session so filters do not starve the result), then the threshold,
-- then the target shifted by match_offset inside the same section (hits shifted out of the section are dropped).
CREATE OR REPLACE FUNCTION match_sentences(
  query_embedding vector(${D}),
  match_threshold float8 DEFAULT NULL,
  match_count int DEFAULT 25,
  match_offset int DEFAULT 0,
  year_min int DEFAULT NULL,
  year_max int DEFAULT NULL,
  paper_ids text[] DEFAULT NULL
) ${RETURNS}
LANGUAGE plpgsql STABLE
${FN_SETTINGS}
AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH top AS MATERIALIZED (
    SELECT s.id, s.embedding <=> query_embedding AS distance
    FROM sentences s
    WHERE ${FILTER}
    ORDER BY s.embedding <=> query_embedding
    LIMIT match_count
  ), hits AS (
    SELECT id, 1 - distance AS score, 1 - distance AS similarity FROM top
    WHERE match_threshold IS NULL OR 1 - distance >= match_threshold
  )
  ${CONTEXT_TAIL};
END
$fn$;

-- Keyword match with context (Postgres full-text search, ranked by ts_rank_cd), one statement.
CREATE OR REPLACE FUNCTION keyword_sentences(
  query_text text,
  match_count int DEFAULT 25,
  match_offset int DEFAULT 0,
  year_min int DEFAULT NULL,
  year_max int DEFAULT NULL,
  paper_ids text[] DEFAULT NULL
) ${RETURNS}
LANGUAGE plpgsql STABLE
${FN_SETTINGS}
AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH q AS (SELECT ${TSQUERY} AS tsq),
  hits AS MATERIALIZED (
    SELECT s.id, ts_rank_cd(to_tsvector('english', s.text), q.tsq)::float8 AS score,
           ts_rank_cd(to_tsvector('english', s.text), q.tsq)::float8 AS similarity
    FROM sentences s, q
    WHERE to_tsvector('english', s.text) @@ q.tsq AND ${FILTER}
    ORDER BY score DESC, s.id
    LIMIT match_count
  )
  ${CONTEXT_TAIL};
END
$fn$;

-- Hybrid: reciprocal-rank fusion of the vector and keyword rankings (top candidate_count of each), one statement.
-- score = sum of 1 / (rrf_k + rank); similarity = cosine similarity of the matched sentence to the query.
CREATE OR REPLACE FUNCTION hybrid_sentences(
  query_embedding vector(${D}),
  query_text text,
  match_count int DEFAULT 25,
  match_offset int DEFAULT 0,
  year_min int DEFAULT NULL,
  year_max int DEFAULT NULL,
  paper_ids text[] DEFAULT NULL,
  rrf_k int DEFAULT 60,
  candidate_count int DEFAULT 100
) ${RETURNS}
LANGUAGE plpgsql STABLE
${FN_SETTINGS}
AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH q AS (SELECT ${TSQUERY} AS tsq),
  v AS MATERIALIZED (
    SELECT s.id FROM sentences s WHERE ${FILTER}
    ORDER BY s.embedding <=> query_embedding LIMIT candidate_count
  ), vr AS (
    SELECT id, row_number() OVER () AS rank FROM v
  ), k AS MATERIALIZED (
    SELECT s.id, row_number() OVER (ORDER BY ts_rank_cd(to_tsvector('english', s.text), q.tsq) DESC, s.id) AS rank
    FROM sentences s, q
    WHERE to_tsvector('english', s.text) @@ q.tsq AND ${FILTER}
    ORDER BY rank LIMIT candidate_count
  ), fused AS MATERIALIZED (
    SELECT id, sum(1.0 / (rrf_k + rank))::float8 AS score
    FROM (SELECT id, rank FROM vr UNION ALL SELECT id, rank FROM k) u
    GROUP BY id ORDER BY score DESC, id LIMIT match_count
  ), hits AS (
    SELECT f.id, f.score, (1 - (s.embedding <=> query_embedding))::float8 AS similarity
    FROM fused f JOIN sentences s ON s.id = f.id
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
`;
}
