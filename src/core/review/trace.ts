// Tracing and progress: each step runs inside `tracer.step(name, fn)`, which times it, reports start/done to
// onProgress, checks cancellation before and after, and gives the step a context for counts and tokens.
import { throwIfAborted } from '../abort.js';
import { StepContext, traceTotal, type StepTrace } from '../grounding/index.js';
import type { ProgressEvent, ReviewTrace, StepName } from './types.js';

const LABELS: Record<StepName, string> = {
  topic: 'Reading the topic',
  decompose: 'Decomposing the topic into search queries',
  retrieve: 'Retrieving candidate passages',
  rerank: 'Reranking and grouping by paper',
  quotes: 'Extracting and verifying quotes',
  plan: 'Planning the sections',
  write: 'Writing the sections',
  check: 'Checking citations and copied spans',
  emit: 'Formatting the output and BibTeX',
  cluster: 'Clustering the evidence',
};

export class Tracer {
  readonly steps: StepTrace<StepName>[] = [];
  private readonly started = performance.now();

  constructor(
    readonly mode: 'review' | 'outline',
    readonly model: string | null,
    private readonly order: readonly StepName[],
    private readonly signal?: AbortSignal,
    private readonly onProgress?: (e: ProgressEvent) => void,
  ) {}

  async step<T>(name: StepName, fn: (ctx: StepContext<StepName>) => Promise<T> | T): Promise<T> {
    throwIfAborted(this.signal);
    const index = this.order.indexOf(name) + 1;
    const total = this.order.length;
    const emit = (e: Omit<ProgressEvent, 'step' | 'index' | 'total'>) => {
      try {
        this.onProgress?.({ step: name, index, total, ...e });
      } catch {
        // a failing progress listener must not break the run
      }
    };
    // The step's own signal: the run's, and aborted when the step fails, so that parallel calls still in flight
    // (quotes, rerank batches) stop instead of spending tokens on a run that has already failed.
    const own = new AbortController();
    const signal = this.signal ? AbortSignal.any([this.signal, own.signal]) : own.signal;
    const ctx = new StepContext<StepName>(name, signal, emit);
    this.steps.push(ctx.trace);
    emit({ phase: 'start', message: LABELS[name] });
    const t0 = performance.now();
    try {
      return await fn(ctx);
    } catch (err) {
      own.abort(err);
      throw err;
    } finally {
      ctx.trace.durationMs = Math.round((performance.now() - t0) * 10) / 10;
      if (!this.signal?.aborted) emit({ phase: 'done', message: LABELS[name] });
    }
  }

  result(): ReviewTrace {
    return { mode: this.mode, model: this.model, steps: this.steps, total: traceTotal(this.steps, performance.now() - this.started) };
  }
}

/** Runs fn over items with at most `limit` in flight; stops starting new items once signal aborts. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      throwIfAborted(signal);
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** A pipeline failure that is not the LLM's (no candidates, no verified quotes, a rerank endpoint error): names the step. */
export class ReviewError extends Error {
  constructor(
    readonly step: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`step "${step}": ${detail}`, options);
    this.name = 'ReviewError';
  }
}
