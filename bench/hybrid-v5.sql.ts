// The hybrid lookup as schema v5 shipped it (bm25_sentences + hybrid_sentences, verbatim, renamed *_v5): the
// baseline bench/hybrid.bench.ts times in the same run against the current functions, on the same tables.
// Kept as text on purpose: it must not follow later changes to schema.ts.

/** The v5 functions for embeddings of `D` dimensions (run after the current schema). */
export function hybridV5Sql(D: number): string {
  return String.raw`CREATE OR REPLACE FUNCTION bm25_sentences_v5(
  query_text text,
  match_count int DEFAULT 25,
  year_min int DEFAULT NULL,
  year_max int DEFAULT NULL,
  paper_ids text[] DEFAULT NULL
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
  selective int;
  tsq tsquery;
BEGIN
  SELECT greatest(documents, 1), greatest(lexemes::float8 / greatest(documents, 1), 1),
         greatest(section_lexemes::float8 / greatest(sections, 1), 1)
    INTO n, avg_len, avg_section_len FROM fts_totals;
  SELECT array_agg(q.term ORDER BY t.df, q.term), array_agg(ln(1 + (n - t.df + 0.5) / (t.df + 0.5)) ORDER BY t.df, q.term),
         count(*) FILTER (WHERE t.df <= 0.02 * n)
    INTO terms, idfs, selective
    FROM (SELECT DISTINCT u.lexeme AS term FROM unnest(to_tsvector('english', query_text)) u) q
    JOIN term_stats t ON t.term = q.term;
  IF terms IS NULL THEN
    RETURN;
  END IF;
  IF query_text ~ '("|\mOR\M|(^|\s)-\w)' THEN
    tsq := websearch_to_tsquery('english', query_text);
  ELSE
    -- OR of the selective terms (the rarest first; at least 3), quoted as tsvector output quotes lexemes.
    tsq := replace(strip(array_to_tsvector(terms[1:greatest(selective, 3)]))::text, ''' ''', ''' | ''')::tsquery;
  END IF;
  RETURN QUERY
    WITH c AS MATERIALIZED (
      SELECT s.id, s.paper_id, s.section_index, s.tsv, length(s.tsv) AS len
      FROM sentences s WHERE s.tsv @@ tsq AND (paper_ids IS NULL OR s.paper_id = ANY (paper_ids))
      AND ((year_min IS NULL AND year_max IS NULL) OR EXISTS (
        SELECT 1 FROM papers fp WHERE fp.id = s.paper_id
          AND (year_min IS NULL OR fp.year >= year_min) AND (year_max IS NULL OR fp.year <= year_max)))
    ), cs AS (
      SELECT c.id, c.paper_id, c.section_index, sum(w.idf * (w.tf * 2.2) / (w.tf + 1.2 * (1 - 0.75 + 0.75 * c.len / avg_len))) AS score
      FROM c CROSS JOIN LATERAL (
        SELECT q.idf, coalesce(array_length(u.positions, 1), 1)::float8 AS tf
        FROM unnest(c.tsv) u JOIN unnest(terms, idfs) q(term, idf) ON q.term = u.lexeme
      ) w
      GROUP BY c.id, c.paper_id, c.section_index
    ), ss AS (
      SELECT x.paper_id, x.section_index, sum(w.idf * (w.tf * 2.2) / (w.tf + 1.2 * (1 - 0.75 + 0.75 * x.len / avg_section_len))) AS score
      FROM (SELECT DISTINCT paper_id, section_index FROM c) k
      JOIN (SELECT paper_id, section_index, tsv, lexemes AS len FROM sections) x
        ON x.paper_id = k.paper_id AND x.section_index = k.section_index
      CROSS JOIN LATERAL (
        SELECT q.idf, coalesce(array_length(u.positions, 1), 1)::float8 AS tf
        FROM unnest(x.tsv) u JOIN unnest(terms, idfs) q(term, idf) ON q.term = u.lexeme
      ) w
      GROUP BY x.paper_id, x.section_index
    )
    SELECT cs.id, (cs.score + 2 * coalesce(ss.score, 0))::float8 AS score
    FROM cs LEFT JOIN ss ON ss.paper_id = cs.paper_id AND ss.section_index = cs.section_index
    ORDER BY score DESC, cs.id
    LIMIT match_count;
END
$fn$;
CREATE OR REPLACE FUNCTION hybrid_sentences_v5(
  query_embedding vector(${D}),
  query_text text,
  match_count int DEFAULT 25,
  match_offset int DEFAULT 0,
  year_min int DEFAULT NULL,
  year_max int DEFAULT NULL,
  paper_ids text[] DEFAULT NULL,
  rrf_k int DEFAULT 60,
  candidate_count int DEFAULT 100,
  section_weight float8 DEFAULT 3,
  per_section int DEFAULT 3
) RETURNS TABLE (similarity float8, score float8, sentence jsonb, previous jsonb, next jsonb, paper jsonb)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
SET hnsw.iterative_scan = relaxed_order
SET hnsw.ef_search = 100
AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH v AS MATERIALIZED (
    SELECT s.id FROM sentences s WHERE (paper_ids IS NULL OR s.paper_id = ANY (paper_ids))
      AND ((year_min IS NULL AND year_max IS NULL) OR EXISTS (
        SELECT 1 FROM papers fp WHERE fp.id = s.paper_id
          AND (year_min IS NULL OR fp.year >= year_min) AND (year_max IS NULL OR fp.year <= year_max)))
    ORDER BY s.embedding <=> query_embedding LIMIT candidate_count
  ), sec AS MATERIALIZED (
    -- An exact scan: sections are ~10× fewer than sentences, and an HNSW index on them would slow every load.
    SELECT s.paper_id, s.section_index FROM sections s WHERE section_weight > 0 AND (paper_ids IS NULL OR s.paper_id = ANY (paper_ids))
      AND ((year_min IS NULL AND year_max IS NULL) OR EXISTS (
        SELECT 1 FROM papers fp WHERE fp.id = s.paper_id
          AND (year_min IS NULL OR fp.year >= year_min) AND (year_max IS NULL OR fp.year <= year_max)))
    ORDER BY s.embedding <=> query_embedding LIMIT 40
  ), cand AS (
    SELECT id FROM v
    UNION SELECT s.id FROM sec JOIN sentences s ON s.paper_id = sec.paper_id AND s.section_index = sec.section_index
  ), vr AS MATERIALIZED (
    SELECT x.id, row_number() OVER (ORDER BY x.score DESC, x.id) AS rank
    FROM (
      SELECT s.id, (1 - (s.embedding <=> query_embedding))
               + section_weight * coalesce(1 - (c.embedding <=> query_embedding), 0) AS score
      FROM cand JOIN sentences s ON s.id = cand.id
      LEFT JOIN sections c ON c.paper_id = s.paper_id AND c.section_index = s.section_index
    ) x
    ORDER BY rank LIMIT candidate_count
  ), k AS MATERIALIZED (
    SELECT b.id, row_number() OVER (ORDER BY b.score DESC, b.id) AS rank
    FROM bm25_sentences_v5(query_text, candidate_count, year_min, year_max, paper_ids) b
  ), fused AS (
    SELECT id, sum(1.0 / (rrf_k + rank))::float8 AS score
    FROM (SELECT id, rank FROM vr UNION ALL SELECT id, rank FROM k) u
    GROUP BY id
  ), capped AS MATERIALIZED (
    SELECT x.id, x.score, x.similarity FROM (
      SELECT f.id, f.score, (1 - (s.embedding <=> query_embedding))::float8 AS similarity,
             row_number() OVER (PARTITION BY s.paper_id, s.section_index ORDER BY f.score DESC, f.id) AS nth
      FROM fused f JOIN sentences s ON s.id = f.id
    ) x
    WHERE per_section IS NULL OR per_section <= 0 OR x.nth <= per_section
    ORDER BY x.score DESC, x.id LIMIT match_count
  ), hits AS (
    SELECT id, score, similarity FROM capped
  )
  
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
                  AND t.sentence_index = m.sentence_index + coalesce(match_offset, 0)
  LEFT JOIN sentences p ON p.paper_id = t.paper_id AND p.section_index = t.section_index
                       AND p.sentence_index = t.sentence_index - 1
  LEFT JOIN sentences n ON n.paper_id = t.paper_id AND n.section_index = t.section_index
                       AND n.sentence_index = t.sentence_index + 1
  JOIN papers pa ON pa.id = t.paper_id
  ORDER BY h.score DESC, t.id;
END
$fn$;`;
}
