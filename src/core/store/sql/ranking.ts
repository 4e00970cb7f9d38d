// The rankings, in SQL: Okapi BM25 over sentences and their sections, the vector match, the hybrid (reciprocal-rank
// fusion of both) and the paper ranking, as lookup functions and as the prepared statements of the unfiltered
// lookups. The embedded corpus's in-memory keyword index (keyword-index.ts) ranks as bm25_sentences does, with the
// constants below.
import { HYBRID_DEFAULTS, PAPER_DEFAULTS } from '../types.js';
import {
  compactTail,
  CONTEXT_TAIL,
  contextTail,
  EXACT_SCAN_DECLARE,
  FILTER,
  FILTER_PARAMS,
  FN_SETTINGS,
  nearest,
  RAISE_EF_SEARCH,
  RETURNS,
} from './lookup.js';
import type { VectorIndex } from './vector.js';

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
export const SECTION_CANDIDATES = 40;

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

/** The vector match with context: the body of match_sentences, and (unfiltered) the store's prepared statement. */
function vectorMatch(
  v: VectorIndex,
  p: { vector: string; count: string; threshold: string; offset: string; filter: string; exact?: string; compact?: boolean },
): string {
  return `WITH ${nearest(v, { name: 'top', table: 'sentences', columns: 's.id', ...p })}, hits AS (
    SELECT id, 1 - distance AS score, 1 - distance AS similarity FROM top
    WHERE ${p.threshold} IS NULL OR 1 - distance >= ${p.threshold}
  )
  ${p.compact ? compactTail(p.offset) : contextTail(p.offset)}`;
}

/**
 * The unfiltered vector match as one plain statement — the same SQL as match_sentences — for a named prepared
 * statement: $1 the query vector, $2 the threshold (float8 or NULL), $3 the offset; k is part of the text so that
 * the cached generic plan knows its LIMIT and keeps the HNSW scan. It skips the PL/pgSQL call and its re-planning
 * (force_custom_plan) on every lookup: in PGlite at 20k × 384-d, 13.3 → 6.0 ms p50 with context (top-25 ids alone:
 * 2.8 ms), measured interleaved on a busy machine. Filtered lookups keep the function's custom plans.
 * $1 is cast to vector so that its type is the column's whatever the index's precision.
 */
export function matchStatement(count: number, v: VectorIndex): string {
  const k = Math.max(0, Math.floor(count));
  return vectorMatch(v, {
    vector: '$1::vector',
    count: String(k),
    threshold: '$2::float8',
    offset: '$3::int',
    filter: 'true',
    compact: true,
  });
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
  /** bm25_sentences' filter arguments (year_min, year_max, paper_ids, venue_filter, section_filter). */
  keywordFilter: string;
  /** Whether the vector candidates come from an exact scan (see nearest). */
  exact?: string;
  /** The keyword ranking as given (a bigint[] of sentence ids, best first) instead of bm25_sentences' (text unused). */
  keywordIds?: string;
  /**
   * With keywordIds: where each of them sits (a text[] of paper ids and an int[] of section indexes, in the same
   * order), so that the per-section cap reads no candidate's row (placedTail).
   */
  keywordPlaces?: { papers: string; sections: string };
  /** The vector candidates as given (a bigint[] of sentence ids: the native index's) instead of an HNSW scan. */
  vectorIds?: string;
  /** Each hit as one JSON array (compactTail: the prepared statements) instead of the functions' jsonb columns. */
  compact?: boolean;
}

function hybridQuery(v: VectorIndex, p: HybridParams): string {
  const near = { table: 'sentences', vector: p.vector, exact: p.exact };
  const vectorCandidates = p.vectorIds
    ? `v AS MATERIALIZED (SELECT s.id, s.paper_id, s.section_index, s.embedding <=> ${p.vector} AS distance
    FROM unnest(${p.vectorIds}) u(id) JOIN sentences s ON s.id = u.id)`
    : nearest(v, { ...near, name: 'v', columns: 's.id, s.paper_id, s.section_index', count: p.candidates, filter: p.filter });
  return `WITH ${vectorCandidates},
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
    SELECT x.id, x.paper_id, x.section_index, row_number() OVER (ORDER BY x.score DESC, x.id) AS rank
    FROM (
      -- A section among the nearest has its similarity already; only the others are looked up (coalesce is lazy).
      SELECT c.id, c.paper_id, c.section_index, c.similarity
               + ${p.sectionWeight} * coalesce(1 - sc.distance, (SELECT 1 - (x.embedding <=> ${p.vector}) FROM sections x
                   WHERE x.paper_id = c.paper_id AND x.section_index = c.section_index), 0) AS score
      FROM cand c
      LEFT JOIN sec sc ON sc.paper_id = c.paper_id AND sc.section_index = c.section_index
    ) x
    ORDER BY rank LIMIT ${p.candidates}
  ), ${p.keywordIds && p.keywordPlaces ? placedTail(p, p.keywordIds, p.keywordPlaces) : readTail(p)}
  ${p.compact ? compactTail(p.offset) : contextTail(p.offset)}`;
}

/**
 * The keyword ranking fused with the vector ranking (RRF) and capped per section, the candidates' sections read from
 * their sentence rows (~180 at k 25), and the hits' similarities with them.
 */
function readTail(p: HybridParams): string {
  return `k AS MATERIALIZED (
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
  )`;
}

/**
 * readTail's ranking with the keyword candidates' sections given (the in-memory keyword index knows them) and the
 * vector candidates' carried from the rows vr read: only the hits' rows are read, for their similarities (the same
 * expression, so the same doubles). Not reading the ~180 candidates' rows took 9–15 % off the statement's CPU (PGlite,
 * 100k sentences, in-process A/Bs).
 */
function placedTail(p: HybridParams, ids: string, places: NonNullable<HybridParams['keywordPlaces']>): string {
  return `k AS MATERIALIZED (
    SELECT b.id, b.paper_id, b.section_index, b.rank
    FROM unnest(${ids}, ${places.papers}, ${places.sections}) WITH ORDINALITY b(id, paper_id, section_index, rank)
  ), fused AS (
    SELECT id, paper_id, section_index, sum(1.0 / (${p.rrfK} + rank))::float8 AS score
    FROM (SELECT id, paper_id, section_index, rank FROM vr UNION ALL SELECT id, paper_id, section_index, rank FROM k) u
    GROUP BY id, paper_id, section_index
  ), capped AS MATERIALIZED (
    SELECT x.id, x.score FROM (
      SELECT f.id, f.score, row_number() OVER (PARTITION BY f.paper_id, f.section_index ORDER BY f.score DESC, f.id) AS nth
      FROM fused f
    ) x
    WHERE ${p.perSection} IS NULL OR ${p.perSection} <= 0 OR x.nth <= ${p.perSection}
    ORDER BY x.score DESC, x.id LIMIT ${p.count}
  ), hits AS (
    SELECT c.id, c.score, (1 - (s.embedding <=> ${p.vector}))::float8 AS similarity FROM capped c JOIN sentences s ON s.id = c.id
  )`;
}

/**
 * The unfiltered hybrid lookup as one plain statement — the same SQL as hybrid_sentences — for a named prepared
 * statement: $1 the query vector, $2 the query text, $3 the offset, $4 rrf_k, $5 the section weight, $6 the per-section
 * cap; k and the candidate count are part of the text, so that the cached generic plan knows its LIMITs and keeps
 * the HNSW (or IVFFlat) scans. Given vectors add $7; a given keyword ranking replaces the text and adds its places
 * after them ($7 and $8, or $8 and $9). It skips the PL/pgSQL call and the custom plan of its large statement on every lookup,
 * as matchStatement does for the vector match.
 */
export function hybridStatement(
  count: number,
  candidates: number,
  v: VectorIndex,
  keywords: 'sql' | 'given' = 'sql',
  vectors: 'hnsw' | 'given' = 'hnsw',
): string {
  const places = vectors === 'given' ? 8 : 7;
  return hybridQuery(v, {
    // 'given': $7 is the vector candidates, a bigint[] of sentence ids (the native index's, native-index.ts).
    ...(vectors === 'given' ? { vectorIds: '$7::bigint[]' } : {}),
    vector: '$1::vector',
    // 'given': $2 is the keyword ranking itself, a bigint[] of sentence ids best first, ranked as bm25_sentences
    // ranks them (the embedded corpus's in-memory index, keyword-index.ts), and the next two are their papers and
    // section indexes.
    ...(keywords === 'given'
      ? {
          text: 'NULL',
          keywordIds: '$2::bigint[]',
          keywordPlaces: { papers: `$${places}::text[]`, sections: `$${places + 1}::int[]` },
        }
      : { text: '$2::text' }),
    count: String(Math.max(0, Math.floor(count))),
    offset: '$3::int',
    rrfK: '$4::int',
    candidates: String(Math.max(0, Math.floor(candidates))),
    sectionWeight: '$5::float8',
    perSection: '$6::int',
    filter: 'true',
    keywordFilter: 'NULL, NULL, NULL, NULL, NULL',
    compact: true,
  });
}

/**
 * The vector match over the native index's candidates (native-index.ts), as one statement: $1 the query vector, $2 the
 * candidates (bigint[] of sentence ids), $3 the offset, $4 k, $5–$9 the filters (year_min, year_max, paper_ids, venue,
 * section), $10 the threshold (null: none). The candidates are re-scored from the stored float32 vectors (the index
 * holds them in half precision), so similarities, their order and the threshold are pgvector's path's; the statement
 * filters them and gives the best k their context.
 */
export const NATIVE_MATCH_SQL = `WITH hits AS MATERIALIZED (
    SELECT id, similarity AS score, similarity FROM (
      SELECT s.id, 1 - (s.embedding <=> $1::vector) AS similarity
      FROM unnest($2::bigint[]) u(id) JOIN sentences s ON s.id = u.id
      WHERE ${FILTER.replace(/paper_ids/g, '$7::text[]')
        .replace(/year_min/g, '$5::int')
        .replace(/year_max/g, '$6::int')
        .replace(/venue_filter/g, '$8::text')
        .replace(/section_filter/g, '$9::text')}
    ) r
    WHERE $10::float8 IS NULL OR similarity >= $10::float8
    ORDER BY similarity DESC, id LIMIT $4::int
  )
  ${compactTail('$3::int')}`;

/**
 * The hybrid's hits as the in-memory ranking chose them (hybrid-fusion.ts), as one statement: $1 the query vector, $2
 * their sentence ids, $3 and $4 their ranks in the vector and keyword rankings (NULL: not in it), $5 rrf_k, $6 the
 * offset. Each hit's fused score is hybridQuery's own expression over the same ranks (numeric, summed, then float8),
 * and its similarity is computed from the stored vector, so both are the doubles the full statement gives.
 */
export const FUSED_HITS_SQL = `WITH hits AS MATERIALIZED (
    SELECT s.id, (coalesce(1.0 / ($5::int + u.vr), 0) + coalesce(1.0 / ($5::int + u.kr), 0))::float8 AS score,
           (1 - (s.embedding <=> $1::vector))::float8 AS similarity
    FROM unnest($2::bigint[], $3::bigint[], $4::bigint[]) u(id, vr, kr) JOIN sentences s ON s.id = u.id
  )
  ${compactTail('$6::int')}`;

/**
 * A query text's distinct lexemes as bm25_sentences reads them, and whether it uses web-search syntax (which only
 * the SQL ranking handles): $1 the text.
 */
export const QUERY_LEXEMES_SQL = `SELECT ${WEBSEARCH.replace('query_text', '$1::text')} AS web,
  coalesce((SELECT array_agg(DISTINCT u.lexeme) FROM unnest(to_tsvector('english', $1::text)) u), '{}') AS lexemes`;

/** The filter arguments a lookup function passes on to bm25_sentences (FILTER_PARAMS by name). */
const KEYWORD_FILTER = 'year_min, year_max, paper_ids, venue_filter, section_filter';

/**
 * The lookup functions' signatures before schema v13 added the venue and section filters: dropped, so that a call by
 * name or with fewer arguments never finds two candidates (CREATE OR REPLACE with other arguments adds an overload).
 */
const BEFORE_V13 = `DROP FUNCTION IF EXISTS bm25_sentences(text, int, int, int, text[]);
DROP FUNCTION IF EXISTS match_sentences(vector, float8, int, int, int, int, text[]);
DROP FUNCTION IF EXISTS keyword_sentences(text, int, int, int, int, text[]);
DROP FUNCTION IF EXISTS hybrid_sentences(vector, text, int, int, int, int, text[], int, int, float8, int);
DROP FUNCTION IF EXISTS rank_papers(vector, text, int, int, int, int, text[], float8, int);
`;

/** bm25_sentences, match_sentences, keyword_sentences, hybrid_sentences and rank_papers. */
export function rankingSql(v: VectorIndex): string {
  const D = v.dimensions;
  return `${BEFORE_V13}
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
    FROM bm25_sentences(query_text, match_count, ${KEYWORD_FILTER}) b
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
    keywordFilter: KEYWORD_FILTER,
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

`;
}
