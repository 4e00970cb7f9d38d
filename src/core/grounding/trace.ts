// One step's context: what a grounding step (verification, a review step, Ask's check) records about itself
// (LLM calls, tokens, counts, notes), its progress messages, and its cancellation. The related-work pipeline's
// Tracer (review/trace.ts) makes one per step; Ask makes one for its check.
import { throwIfAborted } from '../abort.js';
import type { TokenUsage } from '../llm/chat.js';
import type { StepProgress, StepTrace } from './types.js';

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
      tokens: { prompt: 0, completion: 0, total: 0, estimated: false },
      counts: {},
      notes: [],
    };
  }

  /** Records one LLM call's usage. */
  usage(u: TokenUsage): void {
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
