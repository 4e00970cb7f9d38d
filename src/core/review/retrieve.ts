// Step 3: semantic and keyword candidates from the store (default 256 each) and the paper ranking's best sentence of
// each of the top papers, fused by reciprocal rank, deduplicated (same sentence, same text), within the
// decomposition's years and venue (store filters); several venues restrict the fused candidates instead (the store
// filters on one venue text at a time).
import type { Embedder } from '../embed/types.js';
import { dedupeHits, keywordSearch, match, reciprocalRankFusion, stripCitationDebris } from '../retrieve/index.js';
import type { CorpusStore, Hit } from '../store/types.js';
import { ReviewError } from './trace.js';
import { describeFilters, hasQuestionFilters } from '../retrieve/question-filters.js';
import type { StepContext } from '../grounding/index.js';
import type { Decomposition } from './types.js';

export interface Retrieved {
  hits: Hit[];
  /** The rewritten query's embedding (reused by MMR), or null without an embedder. */
  queryVector: Float32Array | null;
}

export async function retrieveCandidates(
  store: CorpusStore,
  embedder: Embedder | null,
  d: Decomposition,
  n: number,
  ctx: StepContext,
): Promise<Retrieved> {
  const years = d.yearMin !== null || d.yearMax !== null ? { min: d.yearMin ?? undefined, max: d.yearMax ?? undefined } : undefined;
  const venue = d.venues.length === 1 ? d.venues[0] : undefined;
  let semantic: Hit[] = [];
  let queryVector: Float32Array | null = null;
  if (embedder) {
    [queryVector] = await embedder.embed([d.rewrittenQuery], { signal: ctx.signal, role: 'query' });
    ctx.checkAborted();
    semantic = await match(store, { model: embedder.model, vector: queryVector }, { k: n, years, venue });
  }
  ctx.checkAborted();
  let keyword: Hit[] = [];
  try {
    keyword = await keywordSearch(store, d.keywordQuery || d.rewrittenQuery, { k: n, years, venue });
  } catch (err) {
    if (!embedder) throw new ReviewError('retrieve', `keyword search failed: ${(err as Error).message}`, { cause: err });
    ctx.note(`keyword search unavailable (${(err as Error).message.split('\n')[0]}); semantic candidates only`);
  }
  ctx.checkAborted();
  const papers = queryVector ? await topPapers(store, queryVector, d.rewrittenQuery, years, venue, ctx) : [];
  ctx.checkAborted();
  ctx.set('semantic', semantic.length);
  ctx.set('keyword', keyword.length);
  const semanticIds = new Set(semantic.map((h) => h.sentence.id));
  ctx.set('overlap', keyword.filter((h) => semanticIds.has(h.sentence.id)).length);
  ctx.set('paperRanking', papers.length);
  let hits = dedupeHits(reciprocalRankFusion([semantic, keyword, papers].filter((r) => r.length)));
  if (d.venues.length > 1) {
    const wanted = d.venues.map((v) => v.toLowerCase());
    const kept = hits.filter((h) => wanted.some((v) => (h.paper.venue ?? '').toLowerCase().includes(v)));
    if (kept.length) hits = kept;
    else ctx.note(`no candidate from the venues ${d.venues.join(', ')}; venue filter ignored`);
  }
  hits = hits.slice(0, n);
  ctx.set('candidates', hits.length);
  ctx.set('papers', new Set(hits.map((h) => h.paper.id)).size);
  if (!hits.length)
    throw new ReviewError(
      'retrieve',
      hasQuestionFilters(d)
        ? `the corpus has no passage related to the topic within its filters (${describeFilters(d)})`
        : 'the corpus has no passage related to the topic',
    );
  return { hits, queryVector };
}

/** Papers the whole-paper ranking puts first (about as many as a review cites); none where the store has no ranking. */
const PAPER_CANDIDATES = 50;

async function topPapers(
  store: CorpusStore,
  vector: Float32Array,
  query: string,
  years: { min?: number; max?: number } | undefined,
  venue: string | undefined,
  ctx: StepContext,
): Promise<Hit[]> {
  try {
    return await store.matchPapers(vector, stripCitationDebris(query), {
      count: PAPER_CANDIDATES,
      yearMin: years?.min,
      yearMax: years?.max,
      venue,
    });
  } catch (err) {
    ctx.note(`paper ranking unavailable (${(err as Error).message.split('\n')[0]}); sentence candidates only`);
    return [];
  }
}
