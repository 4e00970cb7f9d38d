// Citation retrieval through the real store (../shared/eval/retrieval, Citation-Integrity dev split): corpus.jsonl
// is imported into an embedded PGlite corpus by the `corpus-lens import` code path with its defaults (papersFromRows +
// importPapers, offline embedder, plain sentence vectors), each claim (citation tokens removed) is run with `search`
// (k = 25 sentence hits, dedupe off; a paper's rank = its best sentence's), and paper-level recall@1/5/10/25 and MRR
// are printed next to in-memory BM25 measured in the same run. See bench/retrieval.bench.ts. The hybrid is measured
// again as the corpus process serves it (native vector index, ranked in memory).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bm25Baselines, evalThroughStore, every, importEvalCorpus, table } from '../../bench/retrieval.bench.js';
import type { PGlite } from '@electric-sql/pglite' with { 'resolution-mode': 'import' };
import { pgliteStore } from '../../src/core/store/backends/pglite.js';
import { QUERY_LEXEMES_SQL } from '../../src/core/store/sql/ranking.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import { evalPath } from '../support/eval.js';
import { loadRetrievalData } from '../support/retrieval-eval.js';

const skip = evalPath('retrieval', 'corpus.jsonl') ? false : '../shared/eval/retrieval is absent (set CORPUS_LENS_EVAL_DIR)';

test(
  'citation retrieval through the store: paper-level recall on dev (vector, keyword, hybrid, papers) and train (papers)',
  { skip, timeout: 1_200_000 },
  async (t) => {
    const data = loadRetrievalData()!;
    const corpus = await importEvalCorpus(data);
    try {
      const meta = await corpus.store.meta();
      assert.equal(meta?.vectorContext, 'plain', 'the product default: plain sentence vectors');
      const dev = data.dev;
      const r = await evalThroughStore(corpus, dev);
      const devBase = await bm25Baselines(data, dev);
      // The paper ranking's weight was tuned on claims_train: print it there too, on every 8th claim (n = 268) for time:
      // the papers mode costs ~90 ms a claim. The check there stays real: it is paired (the same claims for the ranking
      // and both BM25s) and deterministic (papers are ranked exactly), and measured 0.937 against 0.903 / 0.903 (every
      // 4th: 0.918 against 0.864 / 0.873). The held-out check that users rely on is dev's, on all its claims.
      const train = every(data.train, 8);
      const tr = await evalThroughStore(corpus, train, { modes: ['papers'] });
      const trainBase = await bm25Baselines(data, train);
      const lines = [
        `import: ${corpus.sentences} sentences in ${corpus.importSeconds.toFixed(1)} s (${meta?.model}, vectors ${meta?.vectorContext})`,
        `dev (n = ${dev.length}):`,
        table(r, devBase),
        `train, every 8th claim (n = ${train.length}):`,
        table(tr, trainBase),
      ];
      for (const l of lines.join('\n').split('\n')) t.diagnostic(l);
      // The paper ranking must beat whole-paper BM25 measured in the same run, on both splits.
      for (const [split, m, base] of [
        ['dev', r.papers, devBase],
        ['train', tr.papers, trainBase],
      ] as const) {
        for (const name of ['BM25 over whole papers, in memory', 'BM25 over whole papers stemmed, in memory']) {
          assert.ok(m.r10 > base[name].r10, `${split}: papers R@10 ${m.r10.toFixed(3)} ≤ ${name} ${base[name].r10.toFixed(3)}`);
        }
      }
      assert.ok(r.papers.r10 >= PAPERS_FLOOR, `papers recall@10 on dev ${r.papers.r10.toFixed(3)} < ${PAPERS_FLOOR}`);

      // Floors slightly below what was measured (2026-11-22; HNSW builds vary a little between runs). The issue's
      // target: hybrid recall@10 >= 0.80 on dev.
      assert.ok(r.vector.r10 >= VECTOR_FLOOR, `vector recall@10 on dev ${r.vector.r10.toFixed(3)} < ${VECTOR_FLOOR}`);
      assert.ok(r.keyword.r10 >= KEYWORD_FLOOR, `keyword recall@10 ${r.keyword.r10.toFixed(3)} < ${KEYWORD_FLOOR}`);
      assert.ok(r.hybrid.r10 >= HYBRID_FLOOR, `hybrid recall@10 ${r.hybrid.r10.toFixed(3)} < ${HYBRID_FLOOR}`);

      // The embedded corpus's in-memory keyword ranking (the corpus process's, keyword-index.ts) in place of
      // bm25_sentences: the same ranking for every dev claim, so the same hybrid recall.
      const store = corpus.store as SqlCorpusStore;
      const index = await store.keywordIndex();
      assert.ok(index);
      let ranked = 0;
      for (const c of dev) {
        const { web, lexemes } = (await store.driver.query(QUERY_LEXEMES_SQL, [c.query])).rows[0] as { web: boolean; lexemes: string[] };
        if (web) continue; // web-search syntax (a claim's "OR 1.46"): the store ranks it in SQL
        const want = (await store.driver.query(`SELECT id FROM bm25_sentences($1, 100)`, [c.query])).rows.map((row) => Number(row.id));
        assert.deepEqual(index.rank(lexemes, 100), want, c.query);
        ranked++;
      }
      assert.ok(ranked > 0.9 * dev.length, `${ranked} of ${dev.length} claims ranked in memory`);
      const inMemory = await evalThroughStore(corpus, dev, { modes: ['hybrid'] });
      const { msPerQuery: memoryMs, ...memoryMetrics } = inMemory.hybrid;
      const { msPerQuery: sqlMs, ...sqlMetrics } = r.hybrid;
      t.diagnostic(
        `hybrid with the in-memory keyword ranking: R@10 ${memoryMetrics.r10.toFixed(3)}, MRR ${memoryMetrics.mrr.toFixed(3)}, ` +
          `${memoryMs?.toFixed(1)} ms/query (SQL ranking: ${sqlMs?.toFixed(1)})`,
      );
      assert.deepEqual(memoryMetrics, sqlMetrics);

      // As the corpus process serves it: the native vector index's candidates and the hybrid ranked in memory
      // (sql/hybrid-fusion.ts), by a second store over the same database. Measured 0.826 (the statement over the same
      // candidates: 0.823; pgvector's HNSW, above: 0.829), and 4.6 against 6.3 ms a query with the embedding.
      // One PGlite session: the first store's prepared statements go, as the second prepares its own of those names.
      await store.driver.exec('DEALLOCATE ALL');
      const served = pgliteStore((store.driver as unknown as { db: PGlite }).db, { nativeIndex: { folder: null } });
      assert.ok(await served.vectorIndex(), 'the native index serves the eval corpus');
      await served.loadKeywordIndex();
      let fused = 0;
      const lookup = served.driver.lookup.bind(served.driver);
      served.driver.lookup = (sql, vector, params, prepareAs) => {
        if (prepareAs === 'corpus_lens_hybrid_fused') fused++;
        return lookup(sql, vector, params, prepareAs);
      };
      const product = (await evalThroughStore({ ...corpus, store: served }, dev, { modes: ['hybrid'] })).hybrid;
      t.diagnostic(
        `hybrid as the corpus process serves it (native index, ranked in memory): R@10 ${product.r10.toFixed(3)}, ` +
          `MRR ${product.mrr.toFixed(3)}, ${product.msPerQuery.toFixed(1)} ms/query`,
      );
      assert.equal(fused, ranked, 'every claim the keyword index ranks is ranked in memory');
      assert.ok(product.r10 >= HYBRID_FLOOR, `served hybrid recall@10 ${product.r10.toFixed(3)} < ${HYBRID_FLOOR}`);
    } finally {
      await corpus.store.close();
    }
  },
);

const VECTOR_FLOOR = 0.52;
const KEYWORD_FLOOR = 0.75;
const HYBRID_FLOOR = 0.8;
/** Measured 0.861 on dev (2026-11-23; train 0.915, whole-paper BM25 0.791 / stemmed 0.807 on dev). */
const PAPERS_FLOOR = 0.84;
