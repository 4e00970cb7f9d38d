// The corpus tables: its metadata (and the guard on its index precision), papers (and the files that are copies of
// them) and sentences with their indexes.
import { hnswIndexSql, type VectorIndex } from './vector.js';

/** corpus_meta, papers, sentences and their indexes (upgrades of older corpora included). */
export function tablesSql(v: VectorIndex): string {
  const D = v.dimensions;
  return `CREATE EXTENSION IF NOT EXISTS vector;

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
-- Schema v14: the works the paper's sentences cite, from its reference list or .bib (CitedWork in store/types.ts, a
-- JSON array; null for papers ingested before), and, for a paper whose file had no usable title, the model that
-- proposed its metadata, or where a made-up title came from ('its first heading', 'its file name': a LaTeX source
-- without \\title) (null when the metadata is the file's, a .bib's or Zotero's).
ALTER TABLE papers ADD COLUMN IF NOT EXISTS cited_works jsonb;
ALTER TABLE papers ADD COLUMN IF NOT EXISTS metadata_proposed_by text;

-- Schema v17: files whose content (at content_hash) is a worse copy of a stored paper's work, none of it stored (the PDF
-- compiled from a LaTeX source whose paper holds the better text). Ingest skips them unread, as it does a paper's own
-- unchanged source, while paper_id is stored: no foreign key, so that a paper written again (a re-index, an edited
-- source) keeps its copies, and a row whose paper is gone is ignored and replaced when the file is next read.
CREATE TABLE IF NOT EXISTS source_copies (
  source_path text PRIMARY KEY,
  content_hash text NOT NULL,
  paper_id text NOT NULL
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

`;
}
