// What the corpus health report reads (src/core/health/): every paper with its metadata, origin and sentence count.
// The same SELECT is run inline by the SQL stores (a corpus created before paper_stats() existed needs no upgrade)
// and served as the function paper_stats() to Supabase, paged like section_titles() under PostgREST's row limit.

/** The papers after `after_paper` (all when null), in id order, at most `max_rows`; the sentence count from the (paper_id, global_index) index. */
const paperStatsSelect = (more = '') => `SELECT p.id, p.title, p.authors, p.year, p.doi, p.citation_key, p.source_path, p.source,${more}
    (SELECT count(*) FROM sentences s WHERE s.paper_id = p.id)::int AS sentences
  FROM papers p`;

/**
 * The inline query of the SQL stores: every paper at once, with the model that proposed its metadata. paper_stats()
 * keeps its columns (a changed RETURNS TABLE needs a DROP, and the migration of every Supabase project).
 */
export const PAPER_STATS_SQL = `${paperStatsSelect(' p.metadata_proposed_by,')} ORDER BY p.id`;

/** paper_stats(): the same rows for Supabase's RPC, a page at a time. */
export function healthSql(): string {
  return `-- Every paper with its metadata, origin and sentence count (the corpus health report), in pages of at most
-- max_rows in id order: pass the last row's id to get the next page.
CREATE OR REPLACE FUNCTION paper_stats(after_paper text DEFAULT NULL, max_rows int DEFAULT 1000)
RETURNS TABLE (id text, title text, authors text[], year int, doi text, citation_key text, source_path text, source text, sentences int)
LANGUAGE sql STABLE AS $fn$
  ${paperStatsSelect()}
  WHERE after_paper IS NULL OR p.id > after_paper
  ORDER BY p.id
  LIMIT max_rows;
$fn$;

`;
}
