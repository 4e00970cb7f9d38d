// Who may do what on a corpus: the tables and functions by role, every function's fixed search_path, the roles of a
// shared PostgreSQL corpus and Supabase's row-level security.

/** The corpus tables (every one a reader may SELECT; none other). */
export const CORPUS_TABLES = [
  'corpus_meta',
  'papers',
  'source_copies',
  'sentences',
  'sections',
  'term_stats',
  'fts_totals',
  'elements',
] as const;
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
  'paper_stats',
  'paper_rows',
  'list_papers',
  'title_key',
  'find_papers',
  'list_venues',
  'match_elements',
  'linked_elements',
  'list_elements',
] as const;
/** The functions a write runs (the statistics triggers call them as the writing role). */
export const WRITE_FUNCTIONS = [
  'term_stats_apply',
  'sections_refresh',
  'sentences_after_write',
  'refresh_search_stats',
  'describe_elements',
] as const;

/**
 * Every Corpus Lens function runs as its caller (SECURITY INVOKER, stated: a reader's grants and row-level
 * security apply inside it) with a search_path fixed when the schema is run: the schema it is created in,
 * pgvector's schema (Supabase keeps extensions in \`extensions\`), then pg_temp, so that nothing a caller creates
 * earlier on their own path can stand in for a corpus table or operator. Re-applied on every run, as CREATE OR
 * REPLACE resets a function's settings.
 */
export const FIXED_SEARCH_PATH = `
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
 * corpus_lens_writer may also insert, update and delete rows (ingest, re-ingest) and make temporary tables (its
 * bulk load stages rows in one). Both are group roles without login: grant them to each person's login role. PUBLIC
 * loses its default EXECUTE on the corpus functions and its default TEMPORARY on the database.
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
  -- Temporary tables: PostgreSQL lets every role (PUBLIC) make them; the writer's bulk load needs them, a reader not.
  BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
    EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO corpus_lens_writer', current_database());
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE WARNING 'only the database''s owner can revoke temporary tables from PUBLIC: readers can still create them';
  END;
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
