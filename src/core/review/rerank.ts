// Step 4: rerank the candidates — by the chat model (batched 0–10 relevance scores), an HTTP rerank endpoint
// (Cohere / Jina / Voyage `/rerank` format), or MMR over embeddings when no model is available — then group by
// paper: the top papers (default 50), each with its best passages in reading order and a short id P1, P2, ….
import { z } from 'zod';
import type { Embedder } from '../embed/types.js';
import { sleep, type ChatModel } from '../llm/chat.js';
import { isRetryableStatus, retryWaitMs } from '../net/retry.js';
import { completeJson } from '../llm/json.js';
import type { Hit } from '../store/types.js';
import { rerankPrompt } from './prompts.js';
import { mapLimit, ReviewError } from './trace.js';
import type { StepContext } from '../grounding/index.js';
import type { PaperCandidate, Passage, RerankConfig } from './types.js';

export const RerankSchema = z.object({
  scores: z.array(
    z.object({
      id: z.union([z.string(), z.number()]).transform((v) =>
        String(v)
          .replace(/[[\]\s]/g, '')
          .toUpperCase(),
      ),
      score: z.coerce.number().refine((n) => Number.isFinite(n), 'score must be a number'),
    }),
  ),
});

/** Ties and unscored passages keep the retrieval order. */
function retrievalPrior(i: number, n: number): number {
  return (1 - i / Math.max(1, n)) * 1e-3;
}

export async function rerankWithLlm(
  topic: string,
  hits: readonly Hit[],
  chat: ChatModel,
  ctx: StepContext,
  options: { batchSize?: number; concurrency?: number } = {},
): Promise<Passage[]> {
  const size = Math.max(1, options.batchSize ?? 32);
  const batches: Hit[][] = [];
  for (let i = 0; i < hits.length; i += size) batches.push(hits.slice(i, i + size));
  const scores = new Map<number, number>();
  let done = 0;
  await mapLimit(
    batches,
    options.concurrency ?? 4,
    async (batch) => {
      const ids = batch.map((hit, i) => ({ id: `S${i + 1}`, hit }));
      const { value, repaired } = await completeJson(chat, {
        step: 'rerank',
        messages: rerankPrompt(topic, ids),
        schema: RerankSchema,
        signal: ctx.signal,
        onUsage: (u) => ctx.usage(u),
      });
      if (repaired) ctx.count('repairs');
      const byId = new Map(ids.map((x) => [x.id, x.hit]));
      for (const s of value.scores) {
        const hit = byId.get(s.id);
        if (hit) scores.set(hit.sentence.id, Math.max(0, Math.min(10, s.score)) / 10);
      }
      ctx.progress(`scored ${++done}/${batches.length} batches`, done, batches.length);
    },
    ctx.signal,
  );
  ctx.set('unscored', hits.filter((h) => !scores.has(h.sentence.id)).length);
  return hits
    .map((hit, i) => ({ hit, score: (scores.get(hit.sentence.id) ?? 0) + retrievalPrior(i, hits.length) }))
    .sort((a, b) => b.score - a.score);
}

/** POST {query, documents, model} to a Cohere/Jina/Voyage-style rerank endpoint; reads results|data[{index, relevance_score}]. */
export async function rerankWithHttp(
  topic: string,
  hits: readonly Hit[],
  config: Extract<RerankConfig, { kind: 'http' }>,
  ctx: StepContext,
  fetchImpl: typeof fetch = fetch,
): Promise<Passage[]> {
  const body = JSON.stringify({ model: config.model, query: topic, documents: hits.map((h) => h.sentence.text) });
  let response: Response | undefined;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const signals = [AbortSignal.timeout(config.timeoutMs ?? 60_000), ...(ctx.signal ? [ctx.signal] : [])];
    try {
      response = await fetchImpl(config.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
        },
        body,
        signal: AbortSignal.any(signals),
      });
    } catch (err) {
      ctx.checkAborted();
      throw new ReviewError('rerank', `the rerank endpoint ${config.url} did not answer (${(err as Error).message})`, { cause: err });
    }
    if (isRetryableStatus(response.status) && attempt < 3) {
      await response.body?.cancel().catch(() => undefined);
      await sleep(retryWaitMs(attempt - 1, { baseMs: 500, maxMs: 60_000 }, response.headers), ctx.signal);
      continue;
    }
    break;
  }
  if (!response!.ok) {
    const text = (await response!.text().catch(() => '')).slice(0, 200).replace(/\s+/g, ' ');
    throw new ReviewError('rerank', `the rerank endpoint answered HTTP ${response!.status}: ${text}`);
  }
  let json: unknown;
  try {
    json = await response!.json();
  } catch {
    throw new ReviewError('rerank', 'the rerank endpoint did not answer JSON');
  }
  const rows = ((json as { results?: unknown; data?: unknown }).results ?? (json as { data?: unknown }).data) as
    { index?: unknown; relevance_score?: unknown; score?: unknown }[] | undefined;
  if (!Array.isArray(rows)) throw new ReviewError('rerank', 'the rerank endpoint answered without results[] or data[]');
  const scores = new Map<number, number>();
  for (const r of rows) {
    const score = Number(r.relevance_score ?? r.score);
    if (Number.isInteger(r.index) && (r.index as number) >= 0 && (r.index as number) < hits.length && Number.isFinite(score)) {
      scores.set(r.index as number, score);
    }
  }
  return hits.map((hit, i) => ({ hit, score: (scores.get(i) ?? -1e9) + retrievalPrior(i, hits.length) })).sort((a, b) => b.score - a.score);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

/**
 * Maximal marginal relevance: greedily picks the passage maximising λ·sim(query) − (1−λ)·max sim(picked).
 * Scores are 1 − rank/n (the MMR order); without vectors, the retrieval order.
 */
export function mmrOrder(query: Float32Array, vectors: readonly Float32Array[], lambda = 0.7): number[] {
  const q = normalize(query);
  const v = vectors.map(normalize);
  const rel = v.map((x) => dot(q, x));
  const maxSim = new Float64Array(v.length).fill(-Infinity);
  const picked = new Uint8Array(v.length);
  const order: number[] = [];
  for (let r = 0; r < v.length; r++) {
    let best = -1;
    let bestScore = -Infinity;
    for (let i = 0; i < v.length; i++) {
      if (picked[i]) continue;
      const s = lambda * rel[i] - (1 - lambda) * (order.length ? maxSim[i] : 0);
      if (s > bestScore) {
        bestScore = s;
        best = i;
      }
    }
    picked[best] = 1;
    order.push(best);
    for (let i = 0; i < v.length; i++) if (!picked[i]) maxSim[i] = Math.max(maxSim[i], dot(v[i], v[best]));
  }
  return order;
}

export async function rerankWithMmr(
  hits: readonly Hit[],
  embedder: Embedder | null,
  queryVector: Float32Array | null,
  ctx: StepContext,
  lambda = 0.7,
): Promise<Passage[]> {
  if (!embedder || !queryVector) {
    ctx.note('no embedder: retrieval order kept');
    return hits.map((hit, i) => ({ hit, score: 1 - i / hits.length }));
  }
  const vectors = await embedder.embed(
    hits.map((h) => h.sentence.text),
    { signal: ctx.signal },
  );
  ctx.checkAborted();
  const order = mmrOrder(queryVector, vectors, lambda);
  return order.map((i, rank) => ({ hit: hits[i], score: 1 - rank / hits.length }));
}

/** Groups passages by paper: the top `papers` papers by best passage, each with its best `perPaper` passages. */
export function groupByPaper(passages: readonly Passage[], papers = 50, perPaper = 4): PaperCandidate[] {
  const groups = new Map<string, { best: number; passages: Passage[] }>();
  for (const p of passages) {
    const g = groups.get(p.hit.paper.id);
    if (g) {
      g.passages.push(p);
      g.best = Math.max(g.best, p.score);
    } else groups.set(p.hit.paper.id, { best: p.score, passages: [p] });
  }
  return [...groups.values()]
    .sort((a, b) => b.best - a.best)
    .slice(0, papers)
    .map((g, i) => ({
      shortId: `P${i + 1}`,
      paper: g.passages[0].hit.paper,
      score: g.best,
      passages: [...g.passages]
        .sort((a, b) => b.score - a.score)
        .slice(0, perPaper)
        .map((p) => p.hit)
        .sort((a, b) => a.sentence.globalIndex - b.sentence.globalIndex),
    }));
}
