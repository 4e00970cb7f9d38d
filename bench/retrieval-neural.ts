// The neural section of `npm run bench -- retrieval` (RETRIEVAL_BENCH_NEURAL=1): offline hashed vs neural (USE-lite)
// vs a neural re-rank of the hybrid's top sentences, in memory (exact cosine, RRF with stemmed BM25 as the hybrid),
// paper-level recall/MRR on a train subset (where the re-rank's depth and form are chosen) and on dev (reported,
// never tuned on); build rate (sentences/s) and cold/warm query-embedding latency. The corpus's neural vectors
// are kept in the temp folder so that a second run measures the retrieval without re-embedding (the rate printed
// is then the first run's).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder } from '../src/core/embed/index.js';
import { NeuralEmbedder, NEURAL_DIMENSIONS } from '../src/core/embed/neural.js';
import {
  bm25Scorer,
  contentTokens,
  embeddingScorer,
  evaluate,
  formatMetrics,
  memoScorer,
  rrfScorer,
  type RetrievalData,
  type Scorer,
} from '../test/support/retrieval-eval.js';
import { TABLE_HEAD, every } from './retrieval.bench.js';

/** Top `depth` sentences by `first`, re-ordered by `second` (alone, or RRF-fused with `first`'s order); others −∞. */
function rerankScorer(first: Scorer, second: Scorer, depth: number, fuse: boolean): Scorer {
  return async (queries) => {
    const [a, b] = await Promise.all([first(queries), second(queries)]);
    return a.map((x, qi) => {
      const top = [...x.keys()].sort((i, j) => x[j] - x[i]).slice(0, depth);
      const byB = [...top].sort((i, j) => b[qi][j] - b[qi][i]);
      const out = new Float32Array(x.length).fill(-Infinity);
      if (!fuse) for (const i of top) out[i] = b[qi][i];
      else {
        top.forEach((i, r) => (out[i] = 1 / (60 + r + 1)));
        byB.forEach((i, r) => (out[i] += 1 / (60 + r + 1)));
      }
      return out;
    });
  };
}

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await f();
  return [v, performance.now() - t0];
}

export async function neuralSection(data: RetrievalData): Promise<void> {
  const neural = new NeuralEmbedder();
  const offline = createEmbedder({ provider: 'offline' });
  try {
    const [, neuralCold] = await timed(() => neural.embed(['a first query starts the worker and loads the model']));
    const probes = data.dev.slice(0, 20).map((c) => c.query);
    let neuralWarm = 0;
    for (const q of probes) neuralWarm += (await timed(() => neural.embed([q])))[1] / probes.length;
    const [, offlineCold] = await timed(() => offline.embed(['a first query']));
    let offlineWarm = 0;
    for (const q of probes) offlineWarm += (await timed(() => offline.inner.embed([q])))[1] / probes.length;

    const [offVecs, offMs] = await timed(() => offline.inner.embed(data.sentences));
    const cache = join(tmpdir(), `corpus-lens-bench-neural-${data.sentences.length}.f32`);
    let neuVecs: Float32Array[];
    let neuRate: string;
    if (existsSync(cache)) {
      const flat = new Float32Array(readFileSync(cache).buffer.slice(0));
      neuVecs = data.sentences.map((_, i) => flat.slice(i * NEURAL_DIMENSIONS, (i + 1) * NEURAL_DIMENSIONS));
      neuRate = `${readFileSync(`${cache}.rate`, 'utf8')} (first run)`;
    } else {
      const [v, ms] = await timed(() => neural.embed(data.sentences));
      neuVecs = v;
      const flat = new Float32Array(v.length * NEURAL_DIMENSIONS);
      v.forEach((x, i) => flat.set(x, i * NEURAL_DIMENSIONS));
      writeFileSync(cache, Buffer.from(flat.buffer));
      neuRate = `${(data.sentences.length / (ms / 1000)).toFixed(1)} sentences/s`;
      writeFileSync(`${cache}.rate`, neuRate);
    }
    const offRate = `${(data.sentences.length / (offMs / 1000)).toFixed(0)} sentences/s`;
    console.log(
      `\nneural: ${data.sentences.length} sentences; build rate (embedding only): offline ${offRate}, neural ${neuRate}\n` +
        `query embedding: offline cold ${offlineCold.toFixed(1)} ms / warm ${offlineWarm.toFixed(2)} ms; ` +
        `neural cold ${neuralCold.toFixed(0)} ms (worker start + model load) / warm ${neuralWarm.toFixed(1)} ms`,
    );

    const known = (vecs: Float32Array[], e: (t: readonly string[]) => Promise<Float32Array[]>) => (t: readonly string[]) =>
      t === data.sentences ? Promise.resolve(vecs) : e(t);
    const offVec = memoScorer(
      await embeddingScorer(
        known(offVecs, (t) => offline.inner.embed(t)),
        data.sentences,
      ),
    );
    const neuVec = memoScorer(
      await embeddingScorer(
        known(neuVecs, (t) => neural.embed(t)),
        data.sentences,
      ),
    );
    const bm25 = memoScorer(bm25Scorer(data.sentences, { tokenize: contentTokens }));
    const hybridOff = memoScorer(rrfScorer(offVec, bm25));
    const hybridNeu = memoScorer(rrfScorer(neuVec, bm25));

    // The re-rank's depth and form are chosen on train only.
    const train = every(data.train, 8);
    let best = { depth: 25, fuse: false, r10: -1 };
    const tuning: string[] = [];
    for (const depth of [25, 50, 100]) {
      for (const fuse of [false, true]) {
        const m = await evaluate(data, train, rerankScorer(hybridOff, neuVec, depth, fuse));
        tuning.push(formatMetrics(`re-rank top ${depth} ${fuse ? 'RRF(hybrid, neural)' : 'by neural'}`, m));
        if (m.r10 > best.r10) best = { depth, fuse, r10: m.r10 };
      }
    }
    const rerank = rerankScorer(hybridOff, neuVec, best.depth, best.fuse);
    const rows: [string, Scorer][] = [
      ['offline hashed, vector', offVec],
      ['neural (USE-lite), vector', neuVec],
      ['hybrid: RRF(offline, stemmed BM25)', hybridOff],
      ['hybrid: RRF(neural, stemmed BM25)', hybridNeu],
      [`neural re-rank of the offline hybrid's top ${best.depth}${best.fuse ? ', RRF-fused' : ''}`, rerank],
    ];
    for (const [label, claims] of [
      [`train, every 8th claim (n = ${train.length})`, train],
      [`dev (n = ${data.dev.length})`, data.dev],
    ] as const) {
      const lines = [TABLE_HEAD];
      for (const [name, s] of rows) lines.push(formatMetrics(name, await evaluate(data, claims, s)));
      console.log(`\nneural, ${label}, paper level, in memory:\n${lines.join('\n')}`);
    }
    console.log(`\nre-rank tuning on train:\n${TABLE_HEAD}\n${tuning.join('\n')}`);
  } finally {
    await neural.close();
  }
}
