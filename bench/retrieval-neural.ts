// The neural section of `npm run bench -- retrieval` (RETRIEVAL_BENCH_NEURAL=1): offline hashed vs neural (USE-lite)
// vs a neural re-rank of the hybrid's top sentences, in memory (exact cosine, RRF with stemmed BM25 as the hybrid),
// paper-level recall/MRR on a train subset (where the re-rank's depth and form are chosen) and on dev (reported,
// never tuned on); build rate (sentences/s) and cold/warm query-embedding latency. The neural vectors are kept in
// the embedding cache on disk (CORPUS_LENS_CACHE_DIR, default a folder in the temp dir), so a run resumes or
// re-measures without re-embedding; the build rate printed is over the texts actually embedded, in every run.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder } from '../src/core/embed/index.js';
import { NeuralEmbedder } from '../src/core/embed/neural.js';
import { CachedEmbedder } from '../src/core/embed/cache.js';
import {
  bm25Scorer,
  contentTokens,
  embeddingScorer,
  evaluate,
  formatMetrics,
  memoScorer,
  rrfScorer,
  type Claim,
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

/**
 * A smaller candidate pool: the first `papers` papers of the corpus and every paper a dev claim cites (the dev papers
 * come last in the corpus), with the claims citing one of them. Every method is measured on the same pool, so they
 * compare with each other, not with full-corpus figures.
 */
function subset(data: RetrievalData, papers: number, train: Claim[], dev: Claim[]): [RetrievalData, Claim[], Claim[]] {
  const devDocs = new Set(dev.flatMap((c) => c.cited.map((id) => data.docIndex.get(id) ?? -1)));
  const keepDoc = (d: number) => d < papers || devDocs.has(d);
  const docs = data.docIds.map((_, d) => d).filter(keepDoc);
  const newIndex = new Map(docs.map((d, i) => [d, i]));
  const rows = data.sentences.map((_, i) => i).filter((i) => keepDoc(data.sentenceDoc[i]));
  const docIds = docs.map((d) => data.docIds[d]);
  const docIndex = new Map(docIds.map((id, i) => [id, i]));
  const keep = (cs: Claim[]) => cs.filter((c) => c.cited.some((id) => docIndex.has(id)));
  const sub = {
    ...data,
    sentences: rows.map((i) => data.sentences[i]),
    sentenceDoc: Int32Array.from(rows, (i) => newIndex.get(data.sentenceDoc[i])!),
    docIds,
    docIndex,
  };
  return [sub, keep(train), keep(dev)];
}

export async function neuralSection(full: RetrievalData): Promise<void> {
  // The re-rank's depth and form are chosen on train only; dev is reported.
  let data = full;
  let train = every(full.train, 8);
  let dev = full.dev;
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

    // The corpus's (and the claims') neural vectors go through the embedding cache on disk, in chunks: an interrupted
    // run resumes where it stopped, and a later run re-measures the retrieval without re-embedding.
    const dir = process.env.CORPUS_LENS_CACHE_DIR || join(tmpdir(), 'corpus-lens-bench-embeddings');
    const cached = new CachedEmbedder(neural, { disk: { dir } });
    const rateFile = join(dir, 'neural-rate.json');
    const rate: { sentences: number; ms: number } = existsSync(rateFile)
      ? JSON.parse(readFileSync(rateFile, 'utf8'))
      : { sentences: 0, ms: 0 };
    const neuVecs: Float32Array[] = [];
    const chunk = 256;
    // The claims first (few), then the corpus: a run stopped part-way leaves what RETRIEVAL_BENCH_NEURAL_PAPERS=N (the
    // first N papers and the dev claims' papers) can measure.
    for (let i = 0; i < train.length + dev.length; i += chunk)
      await cached.embed([...train, ...dev].slice(i, i + chunk).map((c) => c.query));
    const papers = Number(process.env.RETRIEVAL_BENCH_NEURAL_PAPERS) || 0;
    if (papers > 0 && papers < full.docIds.length) [data, train, dev] = subset(full, papers, train, dev);
    const [offVecs, offMs] = await timed(() => offline.inner.embed(data.sentences));
    for (let i = 0; i < data.sentences.length; i += chunk) {
      const before = cached.stats.providerTexts;
      const [v, ms] = await timed(() => cached.embed(data.sentences.slice(i, i + chunk)));
      neuVecs.push(...v);
      const embedded = cached.stats.providerTexts - before;
      if (embedded > 0) {
        rate.sentences += embedded;
        rate.ms += ms;
        writeFileSync(rateFile, JSON.stringify(rate));
        process.stderr.write(
          `neural: ${i + v.length}/${data.sentences.length} (${(rate.sentences / (rate.ms / 1000)).toFixed(1)} sentences/s)\n`,
        );
      }
    }
    const neuRate = `${(rate.sentences / (rate.ms / 1000)).toFixed(1)} sentences/s (${rate.sentences} embedded, over every run)`;
    const offRate = `${(data.sentences.length / (offMs / 1000)).toFixed(0)} sentences/s`;
    console.log(
      `\nneural: ${data.sentences.length} sentences of ${data.docIds.length} papers` +
        `${data === full ? '' : ` (of ${full.docIds.length}: the first ${papers} and those the dev claims cite, RETRIEVAL_BENCH_NEURAL_PAPERS)`}; build rate (embedding only): offline ${offRate}, neural ${neuRate}\n` +
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
        known(neuVecs, (t) => cached.embed(t)),
        data.sentences,
      ),
    );
    const bm25 = memoScorer(bm25Scorer(data.sentences, { tokenize: contentTokens }));
    const hybridOff = memoScorer(rrfScorer(offVec, bm25));
    const hybridNeu = memoScorer(rrfScorer(neuVec, bm25));

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
      [`dev (n = ${dev.length})`, dev],
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
