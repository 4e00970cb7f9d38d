// Figures, tables and equations: their table and the functions that find them (by query, linked to sentences, all).
import { HYBRID_DEFAULTS } from '../types.js';
import { FN_SETTINGS } from './lookup.js';
import { hnswIndexSql, indexedDistance, type VectorIndex } from './vector.js';

/** What the element functions return: one row per element, its paper, and (linked) the sentence that linked it. */
const ELEMENT_RETURNS = `RETURNS TABLE (similarity float8, score float8, element jsonb, paper jsonb, via_sentence bigint)`;
// A diagram is a figure: asking for figures finds both.
const ELEMENT_FILTER = `(element_type IS NULL OR e.type = element_type OR (element_type = 'figure' AND e.type = 'diagram')) AND (paper_ids IS NULL OR e.paper_id = ANY (paper_ids))`;
const ELEMENT_JSON = `jsonb_build_object('id', e.id, 'paperId', e.paper_id, 'elementIndex', e.element_index, 'type', e.type,
      'label', e.label, 'labelKey', e.label_key, 'caption', e.caption, 'content', e.content, 'description', e.description,
      'sectionTitle', e.section_title, 'sectionIndex', e.section_index, 'afterSentence', e.after_sentence, 'page', e.page,
      'bbox', to_jsonb(e.bbox))`;
const PAPER_JSON = `jsonb_build_object('id', pa.id, 'title', pa.title, 'authors', to_jsonb(pa.authors), 'year', pa.year,
      'venue', pa.venue, 'doi', pa.doi, 'citationKey', pa.citation_key)`;

/** The elements table, its indexes, match_elements, linked_elements, describe_elements and list_elements. */
export function elementsSql(v: VectorIndex): string {
  const D = v.dimensions;
  return `-- Figures, tables and equations (schema v7): one row each, written in the same transaction as
-- its paper's sentences and deleted with the paper. Found by their caption + context vector (the sentences' model)
-- and by keyword over label, caption, content and description; after_sentence is the global index of the sentence
-- the element follows in the text (-1: before the first), bbox the PDF region [x0, y0, x1, y1] in points from the
-- page's top-left.
CREATE TABLE IF NOT EXISTS elements (
  id bigserial PRIMARY KEY,
  paper_id text NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
  element_index int NOT NULL,
  type text NOT NULL CONSTRAINT elements_type_check CHECK (type IN ('figure', 'diagram', 'table', 'equation')),
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
-- v15: diagrams (figures that draw a structure) join the types of a table made before them.
DO $do$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_constraint WHERE conrelid = 'elements'::regclass AND conname = 'elements_type_check'
                 AND pg_get_constraintdef(oid) LIKE '%diagram%') THEN
    ALTER TABLE elements DROP CONSTRAINT IF EXISTS elements_type_check;
    ALTER TABLE elements ADD CONSTRAINT elements_type_check CHECK (type IN ('figure', 'diagram', 'table', 'equation'));
  END IF;
END
$do$;
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

-- Stores elements' LLM descriptions with their recomputed vectors (text '[…]', one per id): the SQL stores and a
-- Supabase writer (service_role) call the same function; the keyword lexemes follow (a generated column).
CREATE OR REPLACE FUNCTION describe_elements(element_ids bigint[], descriptions text[], embeddings text[])
RETURNS TABLE (updated int)
LANGUAGE sql VOLATILE AS $fn$
  WITH u AS (
    UPDATE elements e SET description = d.description, embedding = d.embedding::vector(${D})
    FROM unnest(element_ids, descriptions, embeddings) AS d(id, description, embedding) WHERE e.id = d.id
    RETURNING 1
  )
  SELECT count(*)::int FROM u;
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
`;
}
