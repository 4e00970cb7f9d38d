// What model calls cost, before and after: the one estimator related work (review/estimate.ts) and Ask
// (ask/estimate.ts) build their estimates on, and the lines that tell a run's estimate and its measured cost. An
// estimate is a list of steps, each a number of calls with the typical tokens of one call; time is a per-call
// overhead plus the completion at a generation rate, parallel calls counted by waves. The constants are typical of
// hosted models (documented in docs/guide.md), assumed, not measured; a local model on a laptop is slower.
import type { StepTrace, TraceTotal } from './types.js';

/** Tokens of a step's fixed instructions (the system prompt and the data rule). */
export const INSTRUCTIONS = 300;
/** A verified quote or evidence sentence with its paper id, as the prompts show it. */
export const QUOTE = 40;
/** Seconds per call before its first token, and tokens generated per second. */
const CALL_OVERHEAD_S = 1;
const TOKENS_PER_S = 50;

/** One step of a run as estimated: `n` calls of `prompt` + `completion` tokens each, `parallel` at a time. */
export interface StepCalls {
  n: number;
  prompt: number;
  completion: number;
  parallel: number;
}

export interface CallEstimate {
  llmCalls: number;
  tokens: { prompt: number; completion: number; total: number };
  /** Wall time of the model calls, parallel steps counted by waves. */
  seconds: number;
}

export function estimateCalls(steps: readonly StepCalls[]): CallEstimate {
  let prompt = 0;
  let completion = 0;
  let seconds = 0;
  let llmCalls = 0;
  for (const s of steps) {
    if (!s.n) continue;
    llmCalls += s.n;
    prompt += s.n * s.prompt;
    completion += s.n * s.completion;
    seconds += Math.ceil(s.n / Math.max(1, s.parallel)) * (CALL_OVERHEAD_S + s.completion / TOKENS_PER_S);
  }
  prompt = Math.round(prompt);
  completion = Math.round(completion);
  return { llmCalls, tokens: { prompt, completion, total: prompt + completion }, seconds: Math.round(seconds) };
}

/** "~27 model calls, ~48k tokens, ~1 min" */
export function estimateLine(e: CallEstimate): string {
  return `~${e.llmCalls} model call${e.llmCalls === 1 ? '' : 's'}, ~${tokensText(e.tokens.total)} tokens, ~${durationText(e.seconds)}`;
}

function tokensText(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function durationText(seconds: number): string {
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

/** Each step's cost: "answer: 1.2k tokens, 2.4 s" (a step without a model call: its time alone; "cached" when the cache answered). */
export function stepCostLines(steps: readonly StepTrace[]): string[] {
  return steps.map((s) => {
    const seconds = s.durationMs / 1000;
    const time = seconds < 10 ? `${seconds.toFixed(1)} s` : durationText(seconds);
    const tokens = s.llmCalls ? `${tokensText(s.tokens.total)}${s.tokens.estimated ? ' estimated' : ''} tokens, ` : '';
    const cached = s.cachedCalls ? `${s.cachedCalls} from the cache, ` : '';
    return `${s.step}: ${tokens}${cached}${time}`;
  });
}
