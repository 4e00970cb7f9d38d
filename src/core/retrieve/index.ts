// Retrieval over a CorpusStore: vector match, keyword search and their hybrid (reciprocal-rank fusion), each ONE
// statement / ONE RPC on every backend, with the previous/next sentence of the same section and the paper.
// Identical sentence texts (the same boilerplate in several papers) are collapsed, keeping the best hit.
//
// This module chooses and shapes the lookups (query checks, filters, excluded papers, dedupe); the rankings
// themselves run where the rows are, so that a lookup is one round trip:
// - Vector, keyword (BM25 over sentences plus their section), hybrid (RRF of the two) and paper ranking are SQL
//   functions of the schema, in src/core/store/sql/ranking.ts (match_sentences, bm25_sentences, keyword_sentences,
//   hybrid_sentences, rank_papers), with the lookup frame they share (context, filters, ef_search) in
//   sql/lookup.ts, and the elements' fusion (match_elements) in sql/elements.ts (used by ./elements.ts).
// - The embedded corpus's process also ranks keywords in memory (store/sql/keyword-index.ts): the same BM25 as
//   bm25_sentences, with the same constants, held in typed arrays; an unfiltered hybrid lookup takes its ranking in
//   place of bm25_sentences' (filters and web-search syntax still rank in SQL).
//   It exists because PGlite's WASM executor spends microseconds on every row it moves, and the keyword half of a
//   hybrid lookup moves thousands, most of the lookup's time; in memory it takes a fraction of that. The SQL stays the
//   reference (the twin is used only while the corpus is unchanged since it was read, and a test checks that both
//   rank alike); PostgreSQL and Supabase rank in SQL only.
// - reciprocalRankFusion below fuses rankings a caller already holds; Ask's evidence (ask/evidence.ts) fuses its
//   papers' sentence and title ranks the same way.
import type { Embedder } from '../embed/types.js';
import { checkCompatible, requireMeta, StoreError, type CorpusStore, type Hit, type LookupOptions } from '../store/types.js';
import { stripCitationDebris } from './citation-debris.js';

export { stripCitationDebris };

export type { Hit } from '../store/types.js';

/** A query vector with the model that produced it (checked against the corpus's model and dimension). */
export interface QueryEmbedding {
  model: string;
  vector: Float32Array;
}

export interface MatchOptions {
  /** Hits wanted (default 25). */
  k?: number;
  /** Minimum cosine similarity of a match (vector mode). */
  threshold?: number;
  /** 1 = return the sentence after each match (context: its neighbours); hits shifted out of the section drop. */
  offset?: number;
  /** Inclusive publication-year range. */
  years?: { min?: number; max?: number };
  paperIds?: readonly string[];
  /** Only papers whose venue contains this text (case-insensitive). */
  venue?: string;
  /** Only sentences whose section title contains this text (case-insensitive). */
  section?: string;
  /**
   * Papers left out of the hits: the author's own draft as indexed (src/core/retrieve/self.ts), which would otherwise
   * match every sentence of itself at 1.00. Filtered after the store's lookup, which is asked for more rows until k
   * remain (see withoutPapers).
   */
  excludePaperIds?: readonly string[];
  /** Collapse identical sentence texts across papers, keeping the best (default true). */
  dedupe?: boolean;
}

export interface HybridMatchOptions extends MatchOptions {
  /** The RRF constant: score = Σ 1 / (rrfK + rank) (default 60). */
  rrfK?: number;
  /** Candidates from each ranking before fusion (default max(100, 4k)). */
  candidates?: number;
  /** Weight of each sentence's section similarity in the vector ranking (default 3; 0 = the sentence alone). */
  sectionWeight?: number;
  /** At most this many hits from one section (default 3; 0 = no cap). */
  perSection?: number;
}

export type SearchMode = 'vector' | 'keyword' | 'hybrid';

/**
 * Extra rows fetched (in the same statement) so that deduplication mostly still leaves k hits: a fifth more. Each row
 * costs its context joins (at 100k sentences, k 50 vs 25: +2.8 ms a lookup), and identical sentences in several
 * papers are few.
 */
function fetchCount(k: number, dedupe: boolean): number {
  return dedupe ? k + Math.ceil(k / 5) : k;
}

function lookupOptions(o: MatchOptions): LookupOptions {
  const k = o.k ?? 25;
  if (!Number.isInteger(k) || k < 0) throw new StoreError(`k must be a non-negative integer (got ${k})`);
  return {
    count: fetchCount(k, o.dedupe ?? true),
    threshold: o.threshold,
    offset: o.offset ?? 0,
    yearMin: o.years?.min,
    yearMax: o.years?.max,
    paperIds: o.paperIds,
    venue: o.venue,
    section: o.section,
  };
}

function finish(hits: Hit[], o: MatchOptions): Hit[] {
  const k = o.k ?? 25;
  return ((o.dedupe ?? true) ? dedupeHits(hits) : hits).slice(0, k);
}

/** Normalised text used to detect the same sentence in several papers. */
function textKey(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Keeps the first (best) hit of each distinct target text, preserving order. */
export function dedupeHits(hits: readonly Hit[]): Hit[] {
  const seen = new Set<string>();
  const out: Hit[] = [];
  for (const h of hits) {
    const key = textKey(h.sentence.text);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(h);
  }
  return out;
}

/** Refuses a query from another model/dimension than the corpus's, naming both. */
export async function checkQuery(store: CorpusStore, query: QueryEmbedding): Promise<void> {
  checkCompatible(await requireMeta(store), { model: query.model, dimensions: query.vector.length });
}

/** Up to k hits, best first, each with its previous/next sentence in the same section and its paper. */
export async function match(store: CorpusStore, query: QueryEmbedding, options: MatchOptions = {}): Promise<Hit[]> {
  await checkQuery(store, query);
  const hits = await withoutPapers(lookupOptions(options), options.excludePaperIds, (lo) => store.matchVector(query.vector, lo));
  return finish(hits, options);
}

/** The most rows one lookup is asked for while it makes up for excluded papers' hits. */
const MAX_EXCLUDING_COUNT = 2_000;

/**
 * A lookup without the hits of `exclude`'s papers. The stores filter by inclusion only, so an excluded paper is
 * taken out here: within a paperIds restriction by narrowing it; otherwise the lookup is asked for its count plus
 * the count again, and asked again for four times as many while the excluded papers took so many of the rows that
 * fewer than the count remain (a draft's own paper can hold every one of the nearest sentences to its sentence).
 */
export async function withoutPapers(
  lo: LookupOptions,
  exclude: readonly string[] | undefined,
  lookup: (lo: LookupOptions) => Promise<Hit[]>,
): Promise<Hit[]> {
  if (!exclude?.length) return lookup(lo);
  const out = new Set(exclude);
  if (lo.paperIds) {
    const paperIds = lo.paperIds.filter((id) => !out.has(id));
    return paperIds.length ? lookup({ ...lo, paperIds }) : [];
  }
  let count = Math.min(MAX_EXCLUDING_COUNT, lo.count * 2);
  for (;;) {
    const hits = await lookup({ ...lo, count });
    const kept = hits.filter((h) => !out.has(h.paper.id));
    if (kept.length >= lo.count || hits.length < count || count >= MAX_EXCLUDING_COUNT) return kept.slice(0, lo.count);
    count = Math.min(MAX_EXCLUDING_COUNT, count * 4);
  }
}

/**
 * Keyword search: BM25 over Postgres `english` lexemes, a sentence's score plus twice its section's. Candidates are the
 * sentences holding one of the query's selective words; quotes/OR/-word select with web-search syntax.
 */
export async function keywordSearch(store: CorpusStore, text: string, options: MatchOptions = {}): Promise<Hit[]> {
  const hits = await withoutPapers({ ...lookupOptions(options), threshold: undefined }, options.excludePaperIds, (lo) =>
    store.matchKeyword(text, lo),
  );
  return finish(hits, options);
}

/** Reciprocal-rank fusion of the vector and keyword rankings (one statement). */
export async function hybridSearch(
  store: CorpusStore,
  query: QueryEmbedding,
  text: string,
  options: HybridMatchOptions = {},
): Promise<Hit[]> {
  await checkQuery(store, query);
  const lo = lookupOptions(options);
  const hits = await withoutPapers({ ...lo, threshold: undefined }, options.excludePaperIds, (l) =>
    store.matchHybrid(query.vector, text, {
      ...l,
      rrfK: options.rrfK,
      candidates: options.candidates,
      sectionWeight: options.sectionWeight,
      perSection: options.perSection,
    }),
  );
  // A hit without a similarity (null) does not meet a threshold.
  const kept = options.threshold == null ? hits : hits.filter((h) => h.similarity != null && h.similarity >= options.threshold!);
  return finish(kept, options);
}

/**
 * The query as CorpusStudio composes it with the title of the paper being written ("{title}. {sentence}"): the title
 * places a short sentence in its field. Optional (`corpusLens.embedding.prefixTitle`, `query --with-title`).
 */
export function withTitle(title: string | null | undefined, sentence: string): string {
  const t = title?.trim();
  return t ? `${t}. ${sentence}` : sentence;
}

/** The longest query text: a sentence or a paragraph is the unit (Postgres's tsvector stops at 1 MB). */
export const MAX_QUERY_CHARS = 20_000;

/** A query text that cannot be searched: no words, or far too long. */
export class QueryTextError extends StoreError {
  constructor(message: string) {
    super(message);
    this.name = 'QueryTextError';
  }
}

/**
 * Refuses a query with no letter or digit (an empty or symbol-only text embeds to a meaningless vector and matches
 * 25 arbitrary sentences) and one over MAX_QUERY_CHARS, each with the reason.
 */
export function checkQueryText(text: string): void {
  if (!/[\p{L}\p{N}]/u.test(text)) {
    throw new QueryTextError(
      `the query text has no words (${text.trim() ? `only ${JSON.stringify(text.trim().slice(0, 20))}` : 'it is empty'}): give a sentence to search for`,
    );
  }
  if (text.length > MAX_QUERY_CHARS) {
    throw new QueryTextError(
      `the query text is ${text.length.toLocaleString('en')} characters: give one sentence or paragraph (at most ${MAX_QUERY_CHARS.toLocaleString('en')})`,
    );
  }
}

export interface PaperMatchOptions extends MatchOptions {
  /** Weight of the paper vector's similarity next to the whole-paper BM25 (default 2; see PAPER_DEFAULTS). */
  vectorWeight?: number;
  /** Nearest papers by vector added to the keyword candidates (default 200). */
  candidates?: number;
}

/**
 * Papers best first (k papers): whole-paper BM25 plus the similarity of the query to the paper's sentences taken
 * together, each paper shown as its sentence most similar to the query, with context. For the paper-level uses
 * (the papers view, related work), not the typing loop: it scans every paper's vector. The query loses its citation
 * debris first (author names before `et al.`, `[12]`, `(Fig. 2)`), which would match other papers' words.
 */
export async function paperSearch(
  store: CorpusStore,
  embedder: Embedder,
  text: string,
  options: PaperMatchOptions & { signal?: AbortSignal } = {},
): Promise<Hit[]> {
  checkQueryText(text);
  const query = stripCitationDebris(text);
  const [vector] = await embedder.embed([query], { signal: options.signal, role: 'query' });
  await checkQuery(store, { model: embedder.model, vector });
  const lo = lookupOptions({ ...options, dedupe: false });
  const hits = await withoutPapers({ ...lo, threshold: undefined }, options.excludePaperIds, (l) =>
    store.matchPapers(vector, query, { ...l, vectorWeight: options.vectorWeight, candidates: options.candidates }),
  );
  const kept = options.threshold == null ? hits : hits.filter((h) => !(h.similarity < options.threshold!));
  return kept.slice(0, options.k ?? 25);
}

/** Embeds `text` with `embedder` and searches in the given mode (after checkQueryText). */
export async function search(
  store: CorpusStore,
  embedder: Embedder | null,
  text: string,
  mode: SearchMode,
  options: HybridMatchOptions & { signal?: AbortSignal } = {},
): Promise<Hit[]> {
  checkQueryText(text);
  if (mode === 'keyword') return keywordSearch(store, text, options);
  if (!embedder) throw new StoreError(`${mode} search needs an embedder`);
  const [vector] = await embedder.embed([text], { signal: options.signal, role: 'query' });
  const query = { model: embedder.model, vector };
  return mode === 'vector' ? match(store, query, options) : hybridSearch(store, query, text, options);
}

/**
 * Reciprocal-rank fusion of several rankings in memory (for callers that hold separate rankings, e.g. a
 * reranker); the store's hybrid lookup does the same in SQL.
 */
export function reciprocalRankFusion(rankings: readonly (readonly Hit[])[], rrfK = 60): Hit[] {
  const scores = new Map<number, { hit: Hit; score: number }>();
  for (const ranking of rankings) {
    ranking.forEach((hit, i) => {
      const e = scores.get(hit.sentence.id) ?? { hit, score: 0 };
      e.score += 1 / (rrfK + i + 1);
      scores.set(hit.sentence.id, e);
    });
  }
  return [...scores.values()]
    .sort((a, b) => b.score - a.score || a.hit.sentence.id - b.hit.sentence.id)
    .map(({ hit, score }) => ({ ...hit, score }));
}
