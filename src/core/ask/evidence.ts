// The evidence of one question: hybrid retrieval of sentences with their context (papers ranked first on a large
// corpus: PaperQA's "documents, then chunks"), each sentence checked against its paper's stored text, the PDF page
// where the store keeps one, and the answerability score that decides "I don't know".
import type { Embedder } from '../embed/types.js';
import { checkQueryText, paperSearch, search } from '../retrieve/index.js';
import { paperTextSource } from '../review/paper-text.js';
import { assessSupport } from '../review/support.js';
import { normalizeText } from '../text/match.js';
import type { CorpusStore, Hit, SentenceLocation } from '../store/types.js';

/**
 * The "I don't know" threshold on answerability (the share of the question's content terms that the best evidence
 * sentences and their context contain). Chosen on the train split of test/fixtures/ask-questions.json (offline
 * embedder, sample corpus; `npm run bench -- ask`, 2026-11-23): answerable questions scored 0.81–1, unanswerable
 * ones 0.33–0.66, and the midpoint of that gap decides all 14 train and all 14 held-out questions right. Unanswerable
 * questions that share most of their words with the corpus (0.65–0.66) sit closest: the gate reads terms, not meaning.
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
  signal?: AbortSignal;
}

export async function gatherEvidence(store: CorpusStore, embedder: Embedder, question: string, o: EvidenceOptions): Promise<Evidence> {
  checkQueryText(question);
  let paperIds: string[] | undefined;
  const papersFirst = (await store.counts()).papers > o.papersFirstAbove;
  if (papersFirst) {
    const top = await paperSearch(store, embedder, question, { k: PAPERS_FIRST_COUNT, excludePaperIds: o.excludePaperIds, signal: o.signal });
    paperIds = top.map((h) => h.paper.id);
  }
  const found = paperIds?.length === 0 ? [] : await search(store, embedder, question, 'hybrid', { k: o.k, paperIds, excludePaperIds: o.excludePaperIds, signal: o.signal });
  const { hits, unverified } = await verifyAgainstStore(store, found, o.signal);
  return { hits, pages: await sentencePages(store, hits.map((h) => h.sentence.id)), papersFirst, unverified, answerability: answerability(question, hits) };
}

/** Share of the question's content terms (support.ts's terms: stems, names, acronyms) found in the best evidence. */
export function answerability(question: string, hits: readonly Hit[]): number {
  if (!hits.length) return 0;
  const texts = hits.slice(0, ANSWERABILITY_HITS).flatMap((h) => [h.previous?.text, h.sentence.text, h.next?.text]).filter((t): t is string => !!t);
  return assessSupport(question, texts, { threshold: 0 }).score;
}

/**
 * Keeps the hits whose sentence is, word for word, a sentence of its paper's stored text (the paper-text adapter the
 * related-work quotes are verified with); a store whose hits and rows disagree (a stale CorpusStudio copy) loses them.
 */
async function verifyAgainstStore(store: CorpusStore, hits: readonly Hit[], signal?: AbortSignal): Promise<{ hits: Hit[]; unverified: number }> {
  const source = paperTextSource(store, (id) => hits.filter((h) => h.paper.id === id).map((h) => h.sentence.text).join(' '));
  const stored = new Map<string, Set<string>>();
  for (const id of new Set(hits.map((h) => h.paper.id))) stored.set(id, new Set((await source.paperSentences(id, signal)).map(normalizeText)));
  const kept = hits.filter((h) => stored.get(h.paper.id)!.has(normalizeText(h.sentence.text)));
  return { hits: kept, unverified: hits.length - kept.length };
}

/** Sentence id → the PDF page and lines ingest stored, from stores that keep them. */
export async function sentencePages(store: CorpusStore, ids: readonly number[]): Promise<Map<number, SentenceLocation>> {
  if (!ids.length || !store.sentencePages) return new Map();
  return new Map((await store.sentencePages(ids)).map((r) => [r.id, r]));
}
