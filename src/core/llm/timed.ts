// Time spent waiting for the model, so a run can report its own time apart from the model's (the ask turn's
// counts, the review bench's "excluding LLM latency").
import type { ChatModel, ChatRequest, ChatResult } from './chat.js';

/** A chat model that records the interval of every call it forwards. */
export class TimedChat implements ChatModel {
  readonly intervals: [number, number][] = [];
  constructor(private readonly inner: ChatModel) {}
  get model(): string {
    return this.inner.model;
  }
  async complete(req: ChatRequest): Promise<ChatResult> {
    const t0 = performance.now();
    try {
      return await this.inner.complete(req);
    } finally {
      this.intervals.push([t0, performance.now()]);
    }
  }
  /** Milliseconds during which at least one call was in flight: parallel calls are not counted twice. */
  busy(): number {
    const s = [...this.intervals].sort((a, b) => a[0] - b[0]);
    let total = 0;
    let start = -Infinity;
    let end = -Infinity;
    for (const [a, b] of s) {
      if (a > end) {
        if (end > start) total += end - start;
        start = a;
        end = b;
      } else end = Math.max(end, b);
    }
    if (end > start) total += end - start;
    return total;
  }
}
