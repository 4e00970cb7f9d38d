// Degrade, don't die: when a step's model output is still unusable after its one repair, the steps that have a
// stand-in fall back to it — decompose → the topic itself, rerank → MMR / retrieval order, plan → one section
// per evidence cluster — and say so in the progress and the trace. The quotes and write steps have none.
import { LlmError } from '../llm/chat.js';
import type { Embedder } from '../embed/types.js';
import { clusterLabel, kMeans, wordVectors } from './outline.js';
import { ReviewError } from './trace.js';
import type { StepContext } from '../grounding/index.js';
import type { PlannedSection, VerifiedQuote } from './types.js';

/** Unusable model output (not a timeout, HTTP error or cancellation: those end the run as before). */
export function isUnusableOutput(err: unknown, step: string): boolean {
  return (err instanceof LlmError && err.kind === 'invalid-output') || (err instanceof ReviewError && err.step === step);
}

/** Runs `primary`; on unusable output, reports the fallback and runs it instead. */
export async function withFallback<T>(
  ctx: StepContext,
  step: string,
  what: string,
  primary: () => Promise<T>,
  fallback: () => Promise<T> | T,
): Promise<T> {
  try {
    return await primary();
  } catch (err) {
    if (!isUnusableOutput(err, step)) throw err;
    const why = (err as Error).message.replace(/^step "[^"]+": /, '').split('\n')[0];
    ctx.count('fallback');
    ctx.note(`fallback: ${what} (the model's output was unusable: ${why})`);
    ctx.progress(`the model's ${step} output was unusable; ${what}`);
    return fallback();
  }
}

/** The plan's stand-in: the verified quotes clustered (k-means over embeddings or word vectors), one section each. */
export async function clusterPlan(
  quotes: readonly VerifiedQuote[],
  embedder: Embedder | null,
  signal?: AbortSignal,
): Promise<PlannedSection[]> {
  const texts = quotes.map((q) => q.text);
  const vectors = embedder ? await embedder.embed(texts, { signal }) : wordVectors(texts);
  const k = Math.max(1, Math.min(4, Math.round(Math.sqrt(quotes.length / 2))));
  const assign = kMeans(vectors, k);
  const groups = new Map<number, VerifiedQuote[]>();
  assign.forEach((c, i) => groups.set(c, [...(groups.get(c) ?? []), quotes[i]]));
  return [...groups.values()].map((members) => {
    const label = clusterLabel(
      members.map((q) => q.text),
      quotes.filter((q) => !members.includes(q)).map((q) => q.text),
    );
    const name = label.length ? label.join(', ').replace(/^./, (c) => c.toUpperCase()) : 'Related work';
    return { name, format: 'paragraph' as const, quoteIds: members.map((q) => q.id) };
  });
}
