/**
 * Citation retrieval with the default offline embedder on ../shared/eval/retrieval (dev split; see
 * test/support/retrieval-eval.ts). Vector-only paper recall@10 must stay above floors set a little under the
 * measured values, for plain sentence vectors and for section-contextualised ones (src/core/embed/context.ts).
 * BM25 over single sentences and two fusions are measured in the same run and printed (diagnostics).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOfflineEmbedder, contextualize } from '../../../../src/core/embed/index.js';
import { contentTokens } from '../../../../src/core/embed/tokenize.js';
import { evalPath } from '../../../support/eval.js';
import {
  bm25Scorer,
  embeddingScorer,
  evaluate,
  formatMetrics,
  loadRetrievalData,
  memoScorer,
  rrfScorer,
  weightedScorer,
} from '../../../support/retrieval-eval.js';

/** Measured dev recall@10, vector only (plain 0.541, contextualised weight 2: 0.741), minus a margin. */
const DEV_RECALL10_FLOOR_PLAIN = 0.51;
const DEV_RECALL10_FLOOR_CONTEXT = 0.71;
const CONTEXT_WEIGHT = 2;

const missing = evalPath('retrieval', 'corpus.jsonl') === undefined;

test(
  'offline embedder: citation retrieval on the dev split stays above its floors',
  { skip: missing ? 'needs ../shared/eval/retrieval (Citation-Integrity), absent here' : false, timeout: 180_000 },
  async (t) => {
    const data = loadRetrievalData()!;
    const e = createOfflineEmbedder();
    const plainVecs = e.embedSync(data.sentences);
    // Contextualise per paper (the set has one section per paper).
    const groups = new Map<number, number[]>();
    data.sentenceDoc.forEach((d, i) => {
      const g = groups.get(d);
      if (g) g.push(i);
      else groups.set(d, [i]);
    });
    const ctxVecs = new Array<Float32Array>(plainVecs.length);
    for (const g of groups.values()) {
      contextualize(
        g.map((i) => plainVecs[i]),
        { weight: CONTEXT_WEIGHT },
      ).forEach((v, k) => (ctxVecs[g[k]] = v));
    }
    const scorerFor = async (corpusVecs: Float32Array[]) => {
      let first = true;
      return memoScorer(
        await embeddingScorer((x) => {
          if (first) {
            first = false;
            return corpusVecs;
          }
          return e.embedSync(x);
        }, data.sentences),
      );
    };
    const plain = await scorerFor(plainVecs);
    const ctx = await scorerFor(ctxVecs);
    const bm25 = memoScorer(bm25Scorer(data.sentences));
    // Stemmed BM25: closer to the store's Postgres `english` full-text search (Snowball stems, stop words).
    const bm25s = memoScorer(bm25Scorer(data.sentences, { tokenize: contentTokens }));

    const rows: Array<[string, Awaited<ReturnType<typeof evaluate>>]> = [];
    const run = async (name: string, s: Parameters<typeof evaluate>[2]) => {
      const m = await evaluate(data, data.dev, s);
      rows.push([name, m]);
      return m;
    };
    const b = await run('BM25, sentences (k1 1.2, b 0.75)', bm25);
    const p = await run(`vector ${e.model}`, plain);
    await run('hybrid RRF(vector, BM25)', rrfScorer(plain, bm25));
    const c = await run(`vector + section context (weight ${CONTEXT_WEIGHT})`, ctx);
    await run('hybrid RRF(context vector, BM25)', rrfScorer(ctx, bm25));
    await run('BM25 stemmed', bm25s);
    await run('hybrid RRF(context vector, BM25 stemmed)', rrfScorer(ctx, bm25s));
    await run('hybrid 0.5·context vector + 0.5·BM25 stemmed', weightedScorer(ctx, bm25s, 0.5));
    t.diagnostic(`| dev, n=${p.n} | R@1 | R@5 | R@10 | R@25 | MRR |`);
    for (const [name, m] of rows) t.diagnostic(formatMetrics(name, m));

    assert.ok(b.r10 > 0.6, `BM25 sanity: recall@10 ${b.r10.toFixed(3)} (README: 0.67)`);
    assert.ok(p.r10 >= DEV_RECALL10_FLOOR_PLAIN, `plain vector recall@10 ${p.r10.toFixed(3)} < ${DEV_RECALL10_FLOOR_PLAIN}`);
    assert.ok(c.r10 >= DEV_RECALL10_FLOOR_CONTEXT, `context vector recall@10 ${c.r10.toFixed(3)} < ${DEV_RECALL10_FLOOR_CONTEXT}`);
  },
);
