/** Median, percentiles and formatting shared by the benchmarks. */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { toHit } from '../src/core/store/rows.js';
import { matchStatement } from '../src/core/store/sql/ranking.js';
import { vectorIndex } from '../src/core/store/sql/vector.js';
import type { SqlCorpusStore } from '../src/core/store/sql/store.js';
import type { Hit } from '../src/core/store/types.js';

/**
 * ROC AUC of positive against negative scores (Mann-Whitney: ties count half). A NaN score is a scorer's bug, not a
 * score: it is refused with the count, rather than sorted arbitrarily (or, as it once was, never leaving the tie loop).
 */
export function auc(pos: readonly number[], neg: readonly number[]): number {
  const nan = pos.filter(Number.isNaN).length + neg.filter(Number.isNaN).length;
  if (nan) throw new Error(`auc: ${nan} of ${pos.length + neg.length} scores are NaN (a scorer divided by zero or read a missing value)`);
  const all = [...pos.map((s) => ({ s, p: 1 })), ...neg.map((s) => ({ s, p: 0 }))].sort((a, b) => a.s - b.s);
  let rankSum = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j < all.length && all[j].s === all[i].s) j++;
    const avg = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (all[k].p) rankSum += avg;
    i = j;
  }
  return (rankSum - (pos.length * (pos.length + 1)) / 2) / (pos.length * neg.length);
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const median = (values: number[]) => percentile(values, 50);

/** Milliseconds taken by fn, measured with the high-resolution clock. */
export function timeMs(fn: () => unknown): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export function fmt(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`;
}

/** The machine's load, printed beside wall-clock figures (the bench machine is shared). */
export const load = () =>
  `load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} on 2 cores`;

/** Peak resident set of this process (Linux VmHWM), in MB; NaN elsewhere. */
export function peakRssMb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** One lookup's answer, best first: its hits' ids and their cosine similarities to the query. */
export interface Ranked {
  ids: number[];
  sims: number[];
}

/** A lookup's hits as an answer to score. */
export function rankedOf(hits: readonly Hit[]): Ranked {
  return { ids: hits.map((h) => h.sentence.id), sims: hits.map((h) => h.similarity) };
}

/**
 * The exact top k of a query by the float32 column, through the store's own match statement. The caller's session
 * must have enable_indexscan off, so that no HNSW scan answers it.
 */
export async function exactLookup(store: SqlCorpusStore, q: Float32Array, k: number): Promise<Ranked> {
  return rankedOf((await store.driver.lookup(matchStatement(k, vectorIndex(q.length, 'float32')), q, [null, 0])).map(toHit));
}

/** ann-benchmarks' distance tolerance for its k-nn recall (plotting/metrics.py, knn_threshold). */
export const KNN_EPSILON = 1e-3;

/**
 * recall@k of approximate answers against exact ones, measured two ways. strict: the share of the exact top-k ids
 * returned. knn: ann-benchmarks' k-nn recall, the share of the k returned hits whose distance to the query is at
 * most the exact k-th's plus 1e-3: a hit tied with the k-th (a duplicate sentence, or one of many near-equidistant
 * neighbours) is as good an answer as the one it displaced, which strict counts as a miss. Over queries: the mean
 * of the per-query shares, each out of the exact answer's length (a filter may leave fewer than k).
 */
export function recallAtK(got: readonly Ranked[], want: readonly Ranked[], k: number): { strict: number; knn: number } {
  let strict = 0;
  let knn = 0;
  let n = 0;
  for (const [i, w] of want.entries()) {
    const size = Math.min(k, w.ids.length);
    if (!size) continue;
    const exact = new Set(w.ids.slice(0, size));
    const g = got[i] ?? { ids: [], sims: [] };
    const kth = w.sims[size - 1];
    strict += g.ids.slice(0, k).filter((id) => exact.has(id)).length / size;
    knn += Math.min(size, g.sims.slice(0, k).filter((s) => s >= kth - KNN_EPSILON).length) / size;
    n++;
  }
  return n ? { strict: strict / n, knn: knn / n } : { strict: NaN, knn: NaN };
}

/** One query's strict recall@k where it missed: its place in the set, its share, and its exact nearest similarity. */
export interface QueryMiss {
  index: number;
  share: number;
  nearest: number;
}

/**
 * Where strict recall@k's misses lie: the exact top-k ids not returned, out of how many, and the queries that missed,
 * worst first. A mean rounded to three places hides both the count (0.9996, one id of 2,500, prints 1.000) and
 * whether the misses are spread over the queries or held by a few (in the clustered synthetic corpus, a query drawn
 * at a topic no sentence has: its exact neighbours are scattered at cosine ~0.2, and it alone misses ten or twenty).
 */
export function missesAtK(
  got: readonly Ranked[],
  want: readonly Ranked[],
  k: number,
): { missed: number; of: number; queries: QueryMiss[] } {
  let missed = 0;
  let of = 0;
  const queries: QueryMiss[] = [];
  for (const [i, w] of want.entries()) {
    const size = Math.min(k, w.ids.length);
    if (!size) continue;
    const returned = new Set((got[i]?.ids ?? []).slice(0, k));
    const lost = w.ids.slice(0, size).filter((id) => !returned.has(id)).length;
    missed += lost;
    of += size;
    if (lost) queries.push({ index: i, share: (size - lost) / size, nearest: w.sims[0] });
  }
  return { missed, of, queries: queries.sort((a, b) => a.share - b.share || a.index - b.index) };
}
