// What a related-work run will cost before it runs: model calls, tokens and time, from the number of passages,
// papers and sections (Ai2 ScholarQA tells its users "30 + 15 × sections" seconds once its plan is made). Three
// moments know more each: the start (the settings: at most 2 × candidates passages, sections assumed), after
// retrieval (the passages found), after the plan (its sections and quotes). Counted per step as the pipeline calls
// the model; tokens from typical sizes of what each prompt holds; time from a per-call overhead and a generation
// rate. The constants are typical of hosted models (documented in docs/cli.md); a local model on a laptop is slower.
import type { TraceTotal } from '../grounding/index.js';
import type { RerankConfig } from './types.js';

/** Tokens of a step's fixed instructions (the system prompt and the data rule). */
const INSTRUCTIONS = 300;
/** A passage as the rerank and quote prompts show it: the sentence with the one before and after. */
const PASSAGE = 90;
/** A verified quote with its paper id, in the plan, write and verify prompts. */
const QUOTE = 40;
/** Verified quotes a paper typically gives. */
const QUOTES_PER_PAPER = 2.5;
/** A written section: its completion, and the sentences the verification call reads back. */
const SECTION_WRITTEN = 250;
/** Sections a plan typically has, before it is made. */
const ASSUMED_SECTIONS = 4;
/** Seconds per call before its first token, and tokens generated per second. */
const CALL_OVERHEAD_S = 1;
const TOKENS_PER_S = 50;

export interface RunEstimate {
  llmCalls: number;
  tokens: { prompt: number; completion: number; total: number };
  /** Wall time of the model calls, parallel steps counted by waves of `concurrency`. */
  seconds: number;
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

interface Calls {
  n: number;
  prompt: number;
  completion: number;
  /** Calls made at once (quotes and rerank batches run in parallel). */
  parallel: number;
}

export function estimateReview(e: EstimateInput): RunEstimate {
  const sections = Math.max(1, e.sections ?? ASSUMED_SECTIONS);
  const quotes = e.quotes ?? Math.round(e.papers * QUOTES_PER_PAPER);
  const perSection = quotes / sections;
  const batch = Math.max(1, e.batchSize ?? 32);
  const batches = e.rerank === 'llm' ? Math.ceil(e.passages / batch) : 0;
  const steps: Calls[] = [
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
  let prompt = 0;
  let completion = 0;
  let seconds = 0;
  let llmCalls = 0;
  for (const s of steps) {
    if (!s.n) continue;
    llmCalls += s.n;
    prompt += s.n * s.prompt;
    completion += s.n * s.completion;
    seconds += Math.ceil(s.n / s.parallel) * (CALL_OVERHEAD_S + s.completion / TOKENS_PER_S);
  }
  prompt = Math.round(prompt);
  completion = Math.round(completion);
  const basis = [
    e.at === 'start' ? `at most ${e.passages} passages` : `${e.passages} passages`,
    `${e.papers} papers`,
    e.sections === undefined ? `${sections} sections assumed` : `${sections} sections`,
  ].join(', ');
  return { llmCalls, tokens: { prompt, completion, total: prompt + completion }, seconds: Math.round(seconds), at: e.at, basis };
}

/** "~27 model calls, ~48k tokens, ~1 min" */
export function estimateLine(e: Pick<RunEstimate, 'llmCalls' | 'tokens' | 'seconds'>): string {
  return `~${e.llmCalls} model call${e.llmCalls === 1 ? '' : 's'}, ~${tokensText(e.tokens.total)} tokens, ~${durationText(e.seconds)}`;
}

export function tokensText(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

export function durationText(seconds: number): string {
  return seconds < 90 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.round(seconds / 60)} min`;
}

/** What a run cost: "14 model calls (3 more answered from the cache), 21k tokens, 48 s", naming a fallback that answered. */
export function costLine(t: TraceTotal): string {
  return [
    `${t.llmCalls} model call${t.llmCalls === 1 ? '' : 's'}${t.cachedCalls ? ` (${t.cachedCalls} more answered from the cache)` : ''}`,
    `${tokensText(t.tokens.total)}${t.tokens.estimated ? ' estimated' : ''} tokens`,
    durationText(t.durationMs / 1000),
    ...(t.fallback ? [`${t.fallback.calls} answered by the fallback model ${t.fallback.model}`] : []),
  ].join(', ');
}
