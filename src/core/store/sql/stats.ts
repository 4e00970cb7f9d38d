// What the keyword and hybrid rankings read besides the sentences, kept exact by statement-level triggers on every
// write: BM25 statistics (document frequency of each lexeme, totals) and section vectors and lexemes.
import { hnswIndexSql, type VectorIndex } from './vector.js';

/** term_stats and fts_totals. */
export function statsTablesSql(): string {
  return `-- BM25 statistics, kept exact by statement-level triggers on every insert, delete and text update (also for
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

`;
}

/** The sections table and the functions and triggers that keep the statistics and sections up to date. */
export function statsSql(v: VectorIndex): string {
  const D = v.dimensions;
  return `CREATE OR REPLACE FUNCTION term_stats_apply(sign int, rows_tsv tsvector[]) RETURNS void
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

`;
}
