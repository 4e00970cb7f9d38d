// Citation retrieval through the real store (../shared/eval/retrieval, Citation-Integrity dev split): corpus.jsonl
// is imported into an embedded PGlite corpus by the `corpus-lens import` code path (papersFromRows + importPapers,
// offline embedder, section-context vectors as with `--context section`), each claim (citation tokens removed) is run with
// `search` (k = 25 sentence hits, dedupe off; a paper's rank = its best sentence's), and paper-level
// recall@1/5/10/25 and MRR are printed next to in-memory BM25 measured in the same run. See bench/retrieval.bench.ts.
//
// Keyword and hybrid lookups cost ~1 s each in PGlite on this corpus (the full-text functions recompute
// to_tsvector for every matching row), so by default they run on every 8th dev claim (n = 40) and vector on all
// 316; CORPUS_LENS_RETRIEVAL_FULL=1 runs every claim in every mode (~12 min on 2 busy cores).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bm25Baselines, evalThroughStore, every, importEvalCorpus, table } from '../../bench/retrieval.bench.js';
import { evalPath } from '../support/eval.js';
import { loadRetrievalData } from '../support/retrieval-eval.js';

const skip = evalPath('retrieval', 'corpus.jsonl') ? false : '../shared/eval/retrieval is absent (set CORPUS_LENS_EVAL_DIR)';
const FULL = !!process.env.CORPUS_LENS_RETRIEVAL_FULL;
const STEP = FULL ? 1 : 8;

test('citation retrieval through the store: paper-level recall on dev (vector, keyword, hybrid)', { skip, timeout: 1_200_000 }, async (t) => {
  const data = loadRetrievalData()!;
  const corpus = await importEvalCorpus(data);
  try {
    const meta = await corpus.store.meta();
    assert.equal(meta?.vectorContext, 'ctx(all,1)', 'section-context vectors are recorded in the corpus');
    const dev = data.dev;
    const part = every(dev, STEP);
    const vector = await evalThroughStore(corpus, dev, { modes: ['vector'] });
    const rest = await evalThroughStore(corpus, part, { modes: ['keyword', 'hybrid'] });
    const all = await evalThroughStore(corpus, part, { modes: ['vector'] });
    const lines = [
      `import: ${corpus.sentences} sentences in ${corpus.importSeconds.toFixed(1)} s (${meta?.model}, vectors ${meta?.vectorContext})`,
      `dev, all claims (n = ${dev.length}):`,
      table({ vector: vector.vector }, await bm25Baselines(data, dev)),
      `dev, every ${STEP}th claim (n = ${part.length}):`,
      table({ vector: all.vector, ...rest }, await bm25Baselines(data, part)),
    ];
    for (const l of lines.join('\n').split('\n')) t.diagnostic(l);

    // Floors slightly below what was measured (2026-11-22; HNSW builds vary a little between runs): vector dev
    // recall@10 0.674–0.687; on the every-8th subset keyword 0.275, hybrid 0.650. The target (hybrid
    // ≥ 0.80) is NOT reached through the store: its keyword ranking (ts_rank_cd over an OR query, no IDF) is far
    // below in-memory stemmed BM25 (0.256 vs 0.687 on all of dev) and drags the RRF below vector alone.
    assert.ok(vector.vector.r10 >= 0.64, `vector recall@10 on dev ${vector.vector.r10.toFixed(3)} < 0.64`);
    assert.ok(rest.keyword.r10 >= KEYWORD_FLOOR, `keyword recall@10 ${rest.keyword.r10.toFixed(3)} < ${KEYWORD_FLOOR}`);
    assert.ok(rest.hybrid.r10 >= HYBRID_FLOOR, `hybrid recall@10 ${rest.hybrid.r10.toFixed(3)} < ${HYBRID_FLOOR}`);
  } finally {
    await corpus.store.close();
  }
});

const KEYWORD_FLOOR = 0.22;
const HYBRID_FLOOR = 0.58;
