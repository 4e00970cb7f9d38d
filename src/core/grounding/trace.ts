// One step's context: what a grounding step (verification, a review step, Ask's check) records about itself
// (LLM calls, tokens, counts, notes), its progress messages, and its cancellation. The related-work pipeline's
// Tracer (review/trace.ts) makes one per step; Ask makes one for its check.
import { throwIfAborted } from '../abort.js';
import type { TokenUsage } from '../llm/chat.js';
import type { StepProgress, StepTrace, TraceTotal } from './types.js';

export class StepContext<S extends string = string> {
  readonly trace: StepTrace<S>;
  constructor(
    step: S,
    readonly signal: AbortSignal | undefined,
    private readonly emit: (e: StepProgress) => void,
  ) {
    this.trace = {
      step,
      durationMs: 0,
      llmCalls: 0,
      cachedCalls: 0,
      tokens: { prompt: 0, completion: 0, total: 0, estimated: false },
      counts: {},
      notes: [],
    };
  }

  /** Records one LLM call's usage: an answer from the response cache is no call and no tokens; a fallback's is named. */
  usage(u: TokenUsage): void {
    if (u.model) {
      this.trace.fallback ??= { model: u.model, calls: 0 };
      this.trace.fallback.calls++;
    }
    if (u.cached) {
      this.trace.cachedCalls++;
      return;
    }
    this.trace.llmCalls++;
    this.trace.tokens.prompt += u.promptTokens;
    this.trace.tokens.completion += u.completionTokens;
    this.trace.tokens.total += u.totalTokens;
    if (u.estimated) this.trace.tokens.estimated = true;
  }

  count(name: string, n = 1): void {
    this.trace.counts[name] = (this.trace.counts[name] ?? 0) + n;
  }

  set(name: string, n: number): void {
    this.trace.counts[name] = n;
  }

  note(text: string): void {
    this.trace.notes.push(text);
  }

  progress(message: string, done?: number, of?: number): void {
    this.emit({ phase: 'progress', message, done, of });
  }

  checkAborted(): void {
    throwIfAborted(this.signal);
  }
}

/** The steps summed, with the run's wall time (`ms`: steps may overlap or leave gaps). */
export function traceTotal(steps: readonly StepTrace[], ms: number): TraceTotal {
  const tokens = { prompt: 0, completion: 0, total: 0, estimated: false };
  let llmCalls = 0;
  let cachedCalls = 0;
  let fallback: TraceTotal['fallback'];
  for (const s of steps) {
    llmCalls += s.llmCalls;
    cachedCalls += s.cachedCalls;
    tokens.prompt += s.tokens.prompt;
    tokens.completion += s.tokens.completion;
    tokens.total += s.tokens.total;
    tokens.estimated ||= s.tokens.estimated;
    if (s.fallback) {
      fallback ??= { model: s.fallback.model, calls: 0 };
      fallback.calls += s.fallback.calls;
    }
  }
  return { durationMs: Math.round(ms * 10) / 10, llmCalls, cachedCalls, tokens, ...(fallback ? { fallback } : {}) };
}
