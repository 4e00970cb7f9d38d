/**
 * Citation-retrieval evaluation on ../shared/eval/retrieval (Citation-Integrity; see its README):
 * every corpus sentence is a retrievable unit (one paper per doc), each claim (citation tokens removed) is a
 * query, a paper's rank is that of its best sentence, and we report recall@1/5/10/25 and MRR of the cited
 * paper. Scorers give one score per corpus sentence per query; exact (brute-force) cosine for embedders,
 * BM25 (k1 = 1.2, b = 0.75, stop words removed) over single sentences, and fusions of the two.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentTokens, rawTokens, stripCitationTokens } from '../../src/core/embed/tokenize.js';
import { isStopWord } from '../../src/core/text/stop-words.js';
import { evalPath } from './eval.js';

export interface Claim {
  id: number;
  query: string;
  cited: number[];
}

export interface RetrievalData {
  /** All corpus sentences, in doc order. */
  sentences: string[];
  /** Doc index (0..docCount-1) of each sentence. */
  sentenceDoc: Int32Array;
  docIds: number[];
  docIndex: Map<number, number>;
  train: Claim[];
  dev: Claim[];
}

export interface Metrics {
  n: number;
  r1: number;
  r5: number;
  r10: number;
  r25: number;
  mrr: number;
}

/** Loads the set, or undefined when ../shared/eval/retrieval is absent. */
export function loadRetrievalData(dir?: string): RetrievalData | undefined {
  const root = dir ?? (evalPath('retrieval', 'corpus.jsonl') ? evalPath('retrieval') : undefined);
  if (!root) return undefined;
  const lines = (f: string): unknown[] =>
    readFileSync(join(root, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as unknown);
  const sentences: string[] = [];
  const sentDoc: number[] = [];
  const docIds: number[] = [];
  const docIndex = new Map<number, number>();
  for (const d of lines('corpus.jsonl') as Array<{ doc_id: number; abstract: string[] }>) {
    docIndex.set(d.doc_id, docIds.length);
    for (const s of d.abstract) {
      sentences.push(s);
      sentDoc.push(docIds.length);
    }
    docIds.push(d.doc_id);
  }
  const claims = (f: string): Claim[] =>
    (lines(f) as Array<{ id: number; claim: string; cited_doc_ids: number[] }>).map((c) => ({
      id: c.id,
      query: stripCitationTokens(c.claim),
      cited: c.cited_doc_ids,
    }));
  return {
    sentences,
    sentenceDoc: Int32Array.from(sentDoc),
    docIds,
    docIndex,
    train: claims('claims_train.jsonl'),
    dev: claims('claims_dev.jsonl'),
  };
}

/** Scores every corpus sentence for each query (higher is better). */
export type Scorer = (queries: readonly string[]) => Promise<Float32Array[]> | Float32Array[];

/** Exact cosine (dot product of L2-normalised vectors) of query vectors against all sentence vectors. */
export async function embeddingScorer(
  embed: (texts: readonly string[]) => Promise<Float32Array[]> | Float32Array[],
  sentences: readonly string[],
): Promise<Scorer> {
  const vecs = await embed(sentences);
  const dim = vecs[0].length;
  const n = vecs.length;
  const flat = new Float32Array(n * dim);
  vecs.forEach((v, i) => flat.set(v, i * dim));
  return async (queries) => {
    const qv = await embed(queries);
    const out: Float32Array[] = [];
    for (let b = 0; b < qv.length; b += 16) out.push(...dotBlock(qv.slice(b, b + 16), flat, n, dim));
    return out;
  };
}

/** Dot products of each query with the `n` rows (length `dim`) of `flat`; one pass over the rows per block. */
function dotBlock(qs: Float32Array[], flat: Float32Array, n: number, dim: number): Float32Array[] {
  const outs = qs.map(() => new Float32Array(n));
  for (let i = 0; i < n; i++) {
    const o = i * dim;
    for (let k = 0; k < qs.length; k++) {
      const q = qs[k];
      let s = 0;
      for (let j = 0; j < dim; j++) s += q[j] * flat[o + j];
      outs[k][i] = s;
    }
  }
  return outs;
}

/** Memoises a scorer by query text (fusions and repeated evaluations then score each query once). */
export function memoScorer(scorer: Scorer): Scorer {
  const memo = new Map<string, Float32Array>();
  return async (queries) => {
    const todo = [...new Set(queries.filter((q) => !memo.has(q)))];
    if (todo.length) {
      const s = await scorer(todo);
      todo.forEach((q, i) => memo.set(q, s[i]));
    }
    return queries.map((q) => memo.get(q)!);
  };
}

/** Plain BM25 tokens: lowercase alphanumeric runs, stop words removed, no stemming (the README's baseline). */
export function bm25Tokens(text: string): string[] {
  return rawTokens(text).filter((t) => !isStopWord(t));
}

/** BM25 over single sentences. `tokenize` defaults to `bm25Tokens`; `contentTokens` adds stemming. */
export function bm25Scorer(
  sentences: readonly string[],
  opts: { k1?: number; b?: number; tokenize?: (t: string) => string[] } = {},
): Scorer {
  const k1 = opts.k1 ?? 1.2;
  const b = opts.b ?? 0.75;
  const tok = opts.tokenize ?? bm25Tokens;
  const postings = new Map<string, { ids: number[]; tfs: number[] }>();
  const len = new Float32Array(sentences.length);
  sentences.forEach((s, i) => {
    const ts = tok(s);
    len[i] = ts.length;
    const tf = new Map<string, number>();
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, c] of tf) {
      let p = postings.get(t);
      if (!p) postings.set(t, (p = { ids: [], tfs: [] }));
      p.ids.push(i);
      p.tfs.push(c);
    }
  });
  const N = sentences.length;
  const avg = len.reduce((a, x) => a + x, 0) / N;
  return (queries) =>
    queries.map((q) => {
      const out = new Float32Array(N);
      for (const t of new Set(tok(q))) {
        const p = postings.get(t);
        if (!p) continue;
        const idf = Math.log(1 + (N - p.ids.length + 0.5) / (p.ids.length + 0.5));
        for (let j = 0; j < p.ids.length; j++) {
          const i = p.ids[j];
          const tf = p.tfs[j];
          out[i] += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len[i]) / avg));
        }
      }
      return out;
    });
}

/**
 * BM25 over whole papers (each doc's sentences as one document), the simplest paper-level baseline: every sentence
 * gets its paper's score, so a paper's best sentence carries it in `evaluate`.
 */
export function paperBm25Scorer(data: RetrievalData, opts: { k1?: number; b?: number; tokenize?: (t: string) => string[] } = {}): Scorer {
  const docs: string[] = Array.from({ length: data.docIds.length }, () => '');
  data.sentences.forEach((s, i) => (docs[data.sentenceDoc[i]] += `${s}\n`));
  const byDoc = bm25Scorer(docs, opts);
  return async (queries) => (await byDoc(queries)).map((d) => Float32Array.from(data.sentenceDoc, (doc) => d[doc]));
}

/** Sentence ranks (0 = best) from scores; ties broken by index. */
function ranksOf(scores: Float32Array, limit: number): Map<number, number> {
  const idx = Array.from(scores.keys())
    .filter((i) => scores[i] > 0 || scores[i] < 0)
    .sort((a, b) => scores[b] - scores[a] || a - b);
  const m = new Map<number, number>();
  for (let r = 0; r < Math.min(limit, idx.length); r++) m.set(idx[r], r);
  return m;
}

/**
 * Reciprocal-rank fusion at sentence level (like a SQL hybrid: each list's top `depth` sentences,
 * score Σ w / (k + rank)), a proxy for the store's Postgres full-text + vector hybrid.
 */
export function rrfScorer(a: Scorer, b: Scorer, opts: { k?: number; depth?: number; weightA?: number; weightB?: number } = {}): Scorer {
  const k = opts.k ?? 60;
  const depth = opts.depth ?? 200;
  const wa = opts.weightA ?? 1;
  const wb = opts.weightB ?? 1;
  return async (queries) => {
    const [sa, sb] = await Promise.all([a(queries), b(queries)]);
    return sa.map((x, qi) => {
      const out = new Float32Array(x.length);
      for (const [i, r] of ranksOf(x, depth)) out[i] += wa / (k + r + 1);
      for (const [i, r] of ranksOf(sb[qi], depth)) out[i] += wb / (k + r + 1);
      return out;
    });
  };
}

/** Weighted fusion of max-normalised scores: alpha·a/max(a) + (1−alpha)·b/max(b). */
export function weightedScorer(a: Scorer, b: Scorer, alpha: number): Scorer {
  return async (queries) => {
    const [sa, sb] = await Promise.all([a(queries), b(queries)]);
    return sa.map((x, qi) => {
      const y = sb[qi];
      let mx = 1e-9;
      let my = 1e-9;
      for (let i = 0; i < x.length; i++) {
        if (x[i] > mx) mx = x[i];
        if (y[i] > my) my = y[i];
      }
      const out = new Float32Array(x.length);
      for (let i = 0; i < x.length; i++) out[i] = (alpha * x[i]) / mx + ((1 - alpha) * y[i]) / my;
      return out;
    });
  };
}

/** Recall@k and MRR at paper level for the claims, scoring in chunks to bound memory. */
export async function evaluate(data: RetrievalData, claims: readonly Claim[], scorer: Scorer, chunk = 128): Promise<Metrics> {
  const docCount = data.docIds.length;
  let r1 = 0;
  let r5 = 0;
  let r10 = 0;
  let r25 = 0;
  let mrr = 0;
  for (let c0 = 0; c0 < claims.length; c0 += chunk) {
    const part = claims.slice(c0, c0 + chunk);
    const scores = await scorer(part.map((c) => c.query));
    part.forEach((c, qi) => {
      const s = scores[qi];
      const best = new Float32Array(docCount).fill(-Infinity);
      for (let i = 0; i < s.length; i++) {
        const d = data.sentenceDoc[i];
        if (s[i] > best[d]) best[d] = s[i];
      }
      // Rank of the best-ranked cited paper; ties count half (neither optimistic nor pessimistic).
      let rank = Infinity;
      for (const id of c.cited) {
        const di = data.docIndex.get(id);
        if (di === undefined) continue;
        const target = best[di];
        let above = 0;
        let ties = 0;
        for (let d = 0; d < docCount; d++) {
          if (d === di) continue;
          if (best[d] > target) above++;
          else if (best[d] === target) ties++;
        }
        rank = Math.min(rank, 1 + above + Math.floor(ties / 2));
      }
      if (rank <= 1) r1++;
      if (rank <= 5) r5++;
      if (rank <= 10) r10++;
      if (rank <= 25) r25++;
      if (Number.isFinite(rank)) mrr += 1 / rank;
    });
  }
  const n = claims.length;
  return { n, r1: r1 / n, r5: r5 / n, r10: r10 / n, r25: r25 / n, mrr: mrr / n };
}

export function formatMetrics(name: string, m: Metrics): string {
  const f = (x: number): string => x.toFixed(3);
  return `| ${name} | ${f(m.r1)} | ${f(m.r5)} | ${f(m.r10)} | ${f(m.r25)} | ${f(m.mrr)} |`;
}

export { contentTokens };
