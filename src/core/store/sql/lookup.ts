// What every lookup function shares: the context tail (target, previous/next sentence, paper), the filters, the
// function settings and the HNSW search breadth by corpus size, the exact scan of a small paper filter; and the
// lookup functions that rank nothing (lookup_ef_search, sentence_context, section_titles, paper_rows, list_papers,
// find_papers, list_venues).
import { normaliseTitle } from '../../paper/ids.js';
import { indexedDistance, type VectorIndex } from './vector.js';

/** The rows the context tails read: each hit's target (shifted by `offset`, an SQL expression), its neighbours, its paper. */
function contextFrom(offset: string): string {
  return `FROM hits h
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

/**
 * The shared tail of every lookup function: `hits(id, score, similarity)` → target (shifted by `offset`, an SQL
 * expression), context, paper, as the functions' RETURNS (four jsonb objects a hit; PostgREST hands them on as they
 * are).
 */
export function contextTail(offset: string): string {
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
  ${contextFrom(offset)}`;
}

/**
 * The context tail of the prepared lookup statements (PGlite and PostgreSQL; never through PostgREST): the same hits,
 * context and order as contextTail, each hit one column `hit`, the text of a JSON array in COMPACT_HIT's order
 * (rows.ts toHit reads it). Why: the cost of a lookup's context is not its joins but its output, per field: in
 * PGlite at 20k sentences (native index, top 25, in-process, interleaved) the hits with every join but only ids cost
 * as much as the hits alone, while the same rows as 24 flat columns cost about as much as the four jsonb objects;
 * one array a hit took the statement from ~1.8 to ~0.95 ms (p50) and a lookup's CPU from 2.7 to 1.8 ms. The
 * neighbours' paper and position are the target's (the joins say so) and are not repeated.
 */
export function compactTail(offset: string): string {
  return `
  SELECT json_build_array(h.similarity, h.score,
    t.id, t.paper_id, t.text, t.section_title, t.section_number, t.sentence_index, t.global_index,
    p.id, p.text, p.section_title, p.section_number, p.global_index,
    n.id, n.text, n.section_title, n.section_number, n.global_index,
    pa.title, pa.authors, pa.year, pa.venue, pa.doi, pa.citation_key)::text AS hit
  ${contextFrom(offset)}`;
}

export const CONTEXT_TAIL = contextTail('match_offset');

/**
 * The filter on a sentence or section row `s` (year range and venue through its paper, paper ids, section title).
 * Venue and section are case-insensitive substrings ("acl" matches "Proceedings of ACL 2020", "related" matches
 * "Related Work"): what a person types in the panel's filter box, with no wildcard syntax to escape. The section
 * title is read from the section's sentences, so the same text filters the sections table (which has no title).
 */
export const FILTER = `(paper_ids IS NULL OR s.paper_id = ANY (paper_ids))
      AND ((year_min IS NULL AND year_max IS NULL AND venue_filter IS NULL) OR EXISTS (
        SELECT 1 FROM papers fp WHERE fp.id = s.paper_id
          AND (year_min IS NULL OR fp.year >= year_min) AND (year_max IS NULL OR fp.year <= year_max)
          AND (venue_filter IS NULL OR strpos(lower(fp.venue), lower(venue_filter)) > 0)))
      AND (section_filter IS NULL OR EXISTS (
        SELECT 1 FROM sentences fs WHERE fs.paper_id = s.paper_id AND fs.section_index = s.section_index
          AND strpos(lower(fs.section_title), lower(section_filter)) > 0))`;

/** The filter parameters of every lookup function (see FILTER); venue and section last, added in schema v13. */
export const FILTER_PARAMS = `year_min int DEFAULT NULL,
  year_max int DEFAULT NULL,
  paper_ids text[] DEFAULT NULL,
  venue_filter text DEFAULT NULL,
  section_filter text DEFAULT NULL`;

/** Whether a call has any filter (FILTER_PARAMS): a filtered lookup searches wider (lookup_ef_search). */
const FILTERED =
  'year_min IS NOT NULL OR year_max IS NOT NULL OR paper_ids IS NOT NULL OR venue_filter IS NOT NULL OR section_filter IS NOT NULL';

export const RETURNS = `RETURNS TABLE (similarity float8, score float8, sentence jsonb, previous jsonb, next jsonb, paper jsonb)`;

/**
 * ef_search by corpus size (SQL lookup_ef_search): 100 up to 100k sentences, 200 above (schema v12), and from 500k
 * growing with the corpus (n / 2,500: 400 at 1M, schema v10), at most pgvector's 1,000; a filtered match twice that
 * and at least 400 (schema v9: the first HNSW candidates a filter thins out must be good ones). Measured with
 * \`npm run bench -- scale\` (topic-structured vectors; tuned on one query set, reported on another; m 16 /
 * ef_construction 64):
 * - unfiltered recall@25: 200k ef 100 0.951 held-out; 1M ef 100 0.817, 250 0.907, 400 0.953, 600 0.972 (tuning),
 *   p50 4.9 / 8.7 / 13.6 / 19.0 ms on 2 cores (the target is 0.95 at p50 ≤ 15 ms);
 * - a year filter (1 paper in 5): 200k ef 400 0.979; 1M ef 400 0.899, ef 800 0.955 tuning, 0.939 held-out (p50 32 ms);
 * - 50 given papers: 1.000 at 400 (the planner reads those papers' rows).
 * The floor of 200 above 100k, from \`npm run bench -- limit\` (PGlite; clustered vectors, N/200 centres of 200
 * near-equidistant sentences, harder for HNSW than the topic-structured ones; 60 queries, strict
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
export const FN_SETTINGS = `SET plan_cache_mode = force_custom_plan
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
export const RAISE_EF_SEARCH = `PERFORM set_config('hnsw.ef_search', greatest(current_setting('hnsw.ef_search')::int,
    lookup_ef_search(${FILTERED}))::text, true);`;

/**
 * A paper filter whose papers hold at most this many sentences is answered by an exact scan of their rows (schema
 * v11), so its recall is 1.000 by construction instead of depending on the planner trading the HNSW scan for those
 * rows (on an m 12/40 index at 1M it switched only at ef_search 800). Measured (20k topic-structured 384-d
 * sentences, 50 a paper, top-25 ids, 2 cores): the exact scan costs 0.7–1.7 µs a row — 2,000
 * rows 2.3 ms in PGlite, 1.3 ms on PostgreSQL 15 — against 2–8 ms for the filtered HNSW lookup at ef_search 400 and
 * 1.5–3 ms for an unfiltered one at 100; 5,000 rows took 21 and 6 ms, past both. So up to 2,000 rows (~8 papers
 * of 250 sentences) the exact answer is also the faster one.
 */
export const EXACT_SCAN_ROWS = 2000;

/** PL/pgSQL declaration: whether this call's paper filter is small enough for the exact scan (counts ≤ limit + 1 rows). */
export const EXACT_SCAN_DECLARE = `exact_scan boolean := paper_ids IS NOT NULL AND (SELECT count(*) FROM (
    SELECT 1 FROM sentences s WHERE s.paper_id = ANY (paper_ids) LIMIT ${EXACT_SCAN_ROWS + 1}) x) <= ${EXACT_SCAN_ROWS};`;

/**
 * CTE `name`: the `count` rows of `table` (alias s) nearest to `vector` that pass `filter`, as `columns` plus their
 * float32 `distance`, through the HNSW index. With `exact` (a boolean SQL expression) the rows come instead, when it
 * is true, from an exact scan: a materialised CTE of every row passing the filter, which no index can order, so the
 * answer is the exact top `count` whatever the planner estimates. The branch not taken is a one-time false filter.
 */
export function nearest(
  v: VectorIndex,
  p: { name: string; table: string; columns: string; vector: string; count: string; filter: string; exact?: string },
): string {
  const rows = `SELECT ${p.columns}, s.embedding <=> ${p.vector} AS distance FROM ${p.table} s`;
  const byIndex = (filter: string) => `${rows} WHERE ${filter} ORDER BY ${indexedDistance(v, 's.embedding', p.vector)} LIMIT ${p.count}`;
  if (!p.exact) return `${p.name} AS MATERIALIZED (${byIndex(p.filter)})`;
  return `${p.name}_all AS MATERIALIZED (${rows} WHERE ${p.exact} AND ${p.filter}),
  ${p.name} AS MATERIALIZED (
    (${byIndex(`NOT ${p.exact} AND ${p.filter}`)})
    UNION ALL
    (SELECT * FROM ${p.name}_all ORDER BY distance LIMIT ${p.count})
  )`;
}

/** lookup_ef_search: the HNSW search breadth this corpus needs (see EF_SEARCH_MIN). */
export function efSearchSql(): string {
  return `-- The HNSW search breadth (hnsw.ef_search) this corpus needs for recall@25 ≥ 0.95 (schema.ts EF_SEARCH_PER).
CREATE OR REPLACE FUNCTION lookup_ef_search(filtered boolean DEFAULT false) RETURNS int
LANGUAGE sql STABLE
AS $fn$
  SELECT least(1000, greatest(
    CASE WHEN filtered THEN ${FILTERED_EF_SEARCH} WHEN coalesce(max(documents), 0) > ${EF_SEARCH_LARGE_FROM} THEN ${EF_SEARCH_LARGE}
      ELSE ${EF_SEARCH_MIN} END,
    (CASE WHEN filtered THEN 2 ELSE 1 END) * ceil(coalesce(max(documents), 0) / ${EF_SEARCH_PER}.0)::int))
  FROM fts_totals
$fn$;

`;
}

/**
 * sentence_context, section_titles, paper_rows and list_papers: context of given sentences, the section-structure
 * view, one paper's sentences and the papers' metadata (the citation checker's reads on Supabase).
 */
export function contextSql(): string {
  return `-- Context of given sentences (for callers that already hold sentence ids), one statement.
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

-- One paper's sentences in reading order with page and lines (and, asked for, the vector as text): the citation
-- checker scores a cited paper whole. Keyset pages of at most max_rows after global_index after_index.
CREATE OR REPLACE FUNCTION paper_rows(paper text, after_index int DEFAULT -1, max_rows int DEFAULT 1000,
  with_embeddings boolean DEFAULT false)
RETURNS TABLE (id bigint, global_index int, text text, section_title text, page int, line_start int, line_end int,
  embedding text)
LANGUAGE sql STABLE AS $fn$
  SELECT s.id, s.global_index, s.text, s.section_title, s.page, s.line_start, s.line_end,
    CASE WHEN with_embeddings THEN s.embedding::text END
  FROM sentences s
  WHERE s.paper_id = paper AND s.global_index > after_index
  ORDER BY s.global_index
  LIMIT max_rows;
$fn$;

-- Every paper's metadata (the citation checker resolves keys, DOIs and titles with it), in keyset pages by id.
CREATE OR REPLACE FUNCTION list_papers(after_id text DEFAULT NULL, max_rows int DEFAULT 1000)
RETURNS TABLE (id text, title text, authors text[], year int, venue text, doi text, citation_key text)
LANGUAGE sql STABLE AS $fn$
  SELECT p.id, p.title, p.authors, p.year, p.venue, p.doi, p.citation_key
  FROM papers p
  WHERE after_id IS NULL OR p.id > after_id
  ORDER BY p.id
  LIMIT max_rows;
$fn$;

${findPapersSql()}`;
}

/** The Latin ranges whose letters normaliseTitle folds to ASCII; what remains of them after the fold leaves the key. */
const LATIN: Array<[number, number]> = [
  [0xc0, 0x24f],
  [0x1e00, 0x1eff],
  [0xfb00, 0xfb06],
];
/**
 * Greek, Cyrillic and Armenian: their capitals and accented letters (Ё, Й, Ά) are folded to the letter normaliseTitle
 * makes of them by translate as well as by lower(), since lower() folds only ASCII in a database whose LC_CTYPE is C
 * (measured on PostgreSQL 15: lower('ГЛУБОКОЕ') stays upper case there; PGlite's and the test cluster's C.UTF-8 fold).
 */
const CASED: Array<[number, number]> = [
  [0x370, 0x3ff],
  [0x400, 0x52f],
  [0x530, 0x58f],
];

/**
 * The letters normaliseTitle (paper/ids.ts) folds to one or more others, as SQL: `translate` maps the one-letter folds,
 * `replace` the longer ones (ﬁ → fi). Generated from normaliseTitle itself, so the SQL key folds what the JS match
 * folds: accented Latin to ASCII, and Greek, Cyrillic and Armenian capitals and accents (CASED).
 */
function titleFolds(
  ranges: Array<[number, number]>,
  fits: (folded: string) => boolean,
): { from: string; to: string; longer: Array<[string, string]> } {
  let from = '';
  let to = '';
  const longer: Array<[string, string]> = [];
  for (const [lo, hi] of ranges) {
    for (let c = lo; c <= hi; c++) {
      const ch = String.fromCodePoint(c);
      const folded = normaliseTitle(ch);
      if (!fits(folded) || folded === ch) continue;
      if (folded.length === 1) {
        from += ch;
        to += folded;
      } else longer.push([ch, folded]);
    }
  }
  return { from, to, longer };
}

/** `e` (an SQL text expression) with the folds applied: the longer ones by replace, the others by one translate. */
function folded(e: string, f: ReturnType<typeof titleFolds>): string {
  return `translate(${f.longer.reduce((x, [a, b]) => `replace(${x}, '${a}', '${b}')`, e)}, '${f.from}', '${f.to}')`;
}

/** A regex bracket expression of these ranges, \uXXXX escapes (for an E'' literal). */
function bracket(ranges: Array<[number, number]>): string {
  return `[${ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`;
}

const hex = (c: number) => `\\\\u${c.toString(16).padStart(4, '0')}`;

/**
 * The characters title_key drops, as the body of a regex bracket expression (\uXXXX escapes in an E'' literal, so the
 * SQL file stays ASCII there and no character class depends on the database's locale: `[[:alnum:]]` and `\w` take only
 * ASCII as letters where LC_CTYPE is C, measured on PostgreSQL 15). Up to U+024F, in the LATIN ranges and the combining
 * accents, everything but [a-z0-9] (the keys of Latin titles are those of schema v16–17); elsewhere in the BMP what
 * normaliseTitle makes no letter or digit of (punctuation, symbols, spaces, marks: 。「」、・ … – “ ”). Letters and
 * digits of every other script, and every character beyond the BMP, stay.
 */
function titleDrops(): string {
  const ranges: Array<[number, number]> = [[0x01, 0x2f], [0x3a, 0x60], [0x7b, 0x24f], [0x300, 0x36f], ...LATIN.slice(1)];
  const fixed = (c: number) => ranges.some(([lo, hi]) => c >= lo && c <= hi);
  for (let c = 0x250; c <= 0xffff; c++) {
    if ((c >= 0xd800 && c <= 0xdfff) || fixed(c) || normaliseTitle(String.fromCharCode(c)) !== '') continue;
    const last = ranges[ranges.length - 1];
    if (last[1] === c - 1) last[1] = c;
    else ranges.push([c, c]);
  }
  return bracket(ranges.sort((a, b) => a[0] - b[0]));
}

/**
 * title_key and find_papers: the corpus papers a quote's cited works may be (retrieve/inner-citations.ts), found
 * without listing every paper. title_key is a title lower-cased, accents folded (titleFolds), punctuation, symbols
 * and spaces dropped (titleDrops): the letters and digits of every script stay, as normaliseTitle keeps them (schema
 * v18; before, everything but [a-z0-9] was dropped and a Chinese or Russian title had an empty or partial key). A
 * title normaliseTitle makes equal to another has the same key where both are spelt alike (normaliseTitle also
 * decomposes Hangul and full-width forms, which the key keeps as written), so find_papers returns every paper the JS
 * match would take (same DOI, same title, a title printed in a reference entry, a key) and a few more, which the
 * caller checks.
 *
 * The length a title needs to be looked for inside an entry is the JS rule's (inner-citations.ts MIN_TITLE_CHARS,
 * where a Han or kana character counts twice) loosened: a key character outside [a-z0-9] counts three, at least
 * what normaliseTitle makes of it (a Hangul syllable is up to three letters), so no title the JS rule takes is missed.
 */
function findPapersSql(): string {
  const latin = titleFolds(LATIN, (f) => /^[a-z0-9]+$/.test(f));
  const cased = titleFolds(CASED, (f) => /^\p{L}$/u.test(f));
  // Each fold only where the title has a letter of its ranges (lower() keeps letters in their block): translate scans
  // its whole list for every character of the title, ~0.35 ms a title for 700 letters in PGlite.
  const lowered = `CASE WHEN t ~ E'${bracket(LATIN)}' THEN ${folded('lower(t)', latin)} ELSE lower(t) END`;
  const folds = `CASE WHEN t ~ E'${bracket(CASED)}' THEN ${folded(`(${lowered})`, cased)} ELSE ${lowered} END`;
  return `-- A title's match key (see title_key in store/sql/lookup.ts). A printable ASCII title (most) takes the short way:
-- the same key without the folds.
CREATE OR REPLACE FUNCTION title_key(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT CASE WHEN t ~ '^[ -~]*$' THEN regexp_replace(lower(t), '[^a-z0-9]+', '', 'g')
    ELSE regexp_replace(${folds}, E'${titleDrops()}+', '', 'g') END;
$fn$;

-- The papers that may be the given cited works: a DOI (normalised, lower case) in the paper's DOI or id, a title
-- with the same key or spelling, a title long enough (10 key characters, one outside [a-z0-9] counting three) inside
-- a reference entry's text, a citation key (lower case). One scan of the papers table, in id order; the caller
-- applies the exact rules. Each key is computed once: the texts' in a materialised CTE (inlined, they were keyed
-- again for every paper), each paper's in an OFFSET 0 subquery the planner does not pull up.
CREATE OR REPLACE FUNCTION find_papers(dois text[], titles text[], keys text[], texts text[])
RETURNS TABLE (id text, title text, authors text[], year int, venue text, doi text, citation_key text)
LANGUAGE sql STABLE AS $fn$
  WITH tk AS (SELECT DISTINCT title_key(x) AS k FROM unnest(titles) x WHERE title_key(x) <> ''),
  xk AS MATERIALIZED (SELECT title_key(x) AS k FROM unnest(texts) x)
  SELECT p.id, p.title, p.authors, p.year, p.venue, p.doi, p.citation_key
  FROM papers p, LATERAL (SELECT title_key(p.title) AS k OFFSET 0) pk
  WHERE EXISTS (SELECT 1 FROM unnest(dois) d WHERE strpos(lower(p.doi), d) > 0 OR p.id = 'doi:' || d)
    OR lower(p.citation_key) = ANY (keys)
    OR p.title = ANY (titles)
    OR pk.k IN (SELECT k FROM tk)
    OR (length(pk.k) + 2 * length(regexp_replace(pk.k, '[0-9a-z]+', '', 'g')) >= 10
      AND EXISTS (SELECT 1 FROM xk WHERE strpos(xk.k, pk.k) > 0))
  ORDER BY p.id;
$fn$;

-- The venues the papers name, once each (Ask and related work read a question's venue filter against them).
CREATE OR REPLACE FUNCTION list_venues()
RETURNS TABLE (venue text)
LANGUAGE sql STABLE AS $fn$
  SELECT DISTINCT btrim(p.venue) FROM papers p WHERE btrim(p.venue) <> '' ORDER BY 1;
$fn$;

`;
}
