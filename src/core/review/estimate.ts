// What a related-work run will cost before it runs: model calls, tokens and time, from the number of passages,
// papers and sections (Ai2 ScholarQA tells its users "30 + 15 × sections" seconds once its plan is made). Three
// moments know more each: the start (the settings: at most 2 × candidates passages, sections assumed), after
// retrieval (the passages found), after the plan (its sections and quotes). Counted per step as the pipeline calls
// the model, with typical sizes of what each prompt holds; the calls are costed by grounding/cost.ts, which Ask's
// estimate shares.
import { estimateCalls, INSTRUCTIONS, QUOTE, type CallEstimate, type StepCalls } from '../grounding/index.js';
import type { RerankConfig } from './types.js';

/** A passage as the rerank and quote prompts show it: the sentence with the one before and after. */
const PASSAGE = 90;
/** Verified quotes a paper typically gives. */
const QUOTES_PER_PAPER = 2.5;
/** A written section: its completion, and the sentences the verification call reads back. */
const SECTION_WRITTEN = 250;
/** Sections a plan typically has, before it is made. */
const ASSUMED_SECTIONS = 4;

export interface RunEstimate extends CallEstimate {
  /** When it was made: before the run, after retrieval, after the plan. */
  at: 'start' | 'retrieve' | 'plan';
  /** What it assumed, in words (shown with it). */
  basis: string;
}

export interface EstimateInput {
  /** Passages to rerank: retrieval's hits, or before it 2 × candidates (semantic and keyword lists). */
  passages: number;
  /** Papers kept after the rerank (≤ the setting), and passages per paper. */
  papers: number;
  passagesPerPaper: number;
  /** Planned sections and verified quotes, once known. */
  sections?: number;
  quotes?: number;
  rerank: RerankConfig['kind'];
  batchSize?: number;
  concurrency: number;
  verify: boolean;
  topicWords: number;
  at: RunEstimate['at'];
}

export function estimateReview(e: EstimateInput): RunEstimate {
  const sections = Math.max(1, e.sections ?? ASSUMED_SECTIONS);
  const quotes = e.quotes ?? Math.round(e.papers * QUOTES_PER_PAPER);
  const perSection = quotes / sections;
  const batch = Math.max(1, e.batchSize ?? 32);
  const batches = e.rerank === 'llm' ? Math.ceil(e.passages / batch) : 0;
  const steps: StepCalls[] = [
    { n: 1, prompt: INSTRUCTIONS + e.topicWords * 2, completion: 80, parallel: 1 }, // decompose
    // rerank: the last batch may be short; every passage costs its tokens once.
    { n: batches, prompt: batches ? INSTRUCTIONS + (e.passages / batches) * PASSAGE : 0, completion: batch * 8, parallel: e.concurrency },
    {
      n: e.papers,
      prompt: INSTRUCTIONS + e.passagesPerPaper * PASSAGE,
      completion: QUOTES_PER_PAPER * QUOTE * 1.5,
      parallel: e.concurrency,
    }, // quotes
    { n: 1, prompt: INSTRUCTIONS + quotes * QUOTE, completion: sections * 30 + quotes * 4, parallel: 1 }, // plan
    { n: sections, prompt: INSTRUCTIONS + perSection * QUOTE + 100, completion: SECTION_WRITTEN, parallel: 1 }, // write
    ...(e.verify ? [{ n: sections, prompt: INSTRUCTIONS + perSection * QUOTE + SECTION_WRITTEN, completion: 150, parallel: 1 }] : []),
  ];
  const basis = [
    e.at === 'start' ? `at most ${e.passages} passages` : `${e.passages} passages`,
    `${e.papers} papers`,
    e.sections === undefined ? `${sections} sections assumed` : `${sections} sections`,
  ].join(', ');
  return { ...estimateCalls(steps), at: e.at, basis };
}
