// `npm run bench -- recall`: the HNSW lookup's recall on real sentences, by ef_search. The synthetic benches (limit,
// scale) choose ef_search by corpus size on generated vectors; this checks the choice on real text. The
// Citation-Integrity corpus (../shared/eval/retrieval: 15,280 sentences of 2,189 papers) is imported into an
// embedded corpus as `corpus-lens import` does (offline embedder), and every claim, train and dev apart, is looked up
// as the typing loop looks a sentence up (matchVector, k = 25) at each ef_search, then by an exact scan: recall@25
// strict and ann-benchmarks' k-nn (ties with the exact 25th count; stats.ts recallAtK), p50 of the lookups.
// Nothing here is tuned: the two sets are reported apart so that a choice made on one can be checked on the other.
// Skips without ../shared/eval.
import type { SqlCorpusStore } from '../src/core/store/sql/store.js';
import { loadRetrievalData, type Claim } from '../test/support/retrieval-eval.js';
import { importEvalCorpus } from './retrieval.bench.js';
import { exactLookup, fmt, load, median, rankedOf, recallAtK, type Ranked } from './stats.js';

const K = 25;
const EFS = (process.env.RECALL_BENCH_EFS ?? '40,100,200,400').split(',').map(Number);

export async function run(): Promise<void> {
  const data = loadRetrievalData();
  if (!data) {
    console.log('## HNSW recall on real sentences: skipped (../shared/eval/retrieval is absent)');
    return;
  }
  const corpus = await importEvalCorpus(data);
  const store = corpus.store as SqlCorpusStore;
  try {
    const sets: [string, Claim[]][] = [
      ['train', data.train],
      ['dev', data.dev],
    ];
    const vectors = new Map<Claim, Float32Array>();
    for (const [, claims] of sets) {
      for (const c of claims) vectors.set(c, (await corpus.embedder.embed([c.query], { role: 'query' }))[0]);
    }
    const all = sets.flatMap(([, claims]) => claims);
    const lookup = async (c: Claim): Promise<Ranked> => rankedOf(await store.matchVector(vectors.get(c)!, { count: K }));
    await lookup(all[0]);
    const sizeRule = (await store.driver.query(`SELECT current_setting('hnsw.ef_search') AS ef`)).rows[0].ef;
    console.log(
      `\n## HNSW recall on real sentences (Citation-Integrity, ${corpus.sentences.toLocaleString('en')} sentences, offline ` +
        `embedder, k = ${K}; the store's ef_search at this size: ${sizeRule}; ${load()})`,
    );
    const runs = new Map<number, { answers: Map<Claim, Ranked>; ms: number[] }>();
    for (const ef of EFS) {
      await store.driver.exec(`SET hnsw.ef_search = ${ef}`);
      const answers = new Map<Claim, Ranked>();
      const ms: number[] = [];
      for (const c of all) {
        const t = performance.now();
        answers.set(c, await lookup(c));
        ms.push(performance.now() - t);
      }
      runs.set(ef, { answers, ms });
    }
    await store.driver.exec('SET enable_indexscan = off');
    const exact = new Map<Claim, Ranked>();
    const exactMs: number[] = [];
    for (const c of all) {
      const t = performance.now();
      exact.set(c, await exactLookup(store, vectors.get(c)!, K));
      exactMs.push(performance.now() - t);
    }
    await store.driver.exec('RESET enable_indexscan');
    console.log(`  exact scan (baseline): p50 ${fmt(median(exactMs))}`);
    for (const [ef, r] of runs) {
      const figures = sets.map(([name, claims]) => {
        const rec = recallAtK(
          claims.map((c) => r.answers.get(c)!),
          claims.map((c) => exact.get(c)!),
          K,
        );
        return `${name} (${claims.length}) strict ${rec.strict.toFixed(3)}, k-nn ${rec.knn.toFixed(3)}`;
      });
      console.log(
        `  ef_search ${String(ef).padStart(4)}: recall@${K} ${figures.join('; ')}; p50 ${fmt(median(r.ms))} ` +
          `(${(median(exactMs) / median(r.ms)).toFixed(1)}× faster than exact)`,
      );
    }
  } finally {
    await store.close();
  }
}
