// `npm run bench -- retrieval`: citation retrieval (../shared/eval/retrieval, Citation-Integrity) THROUGH THE STORE:
// corpus.jsonl is imported into an embedded PGlite corpus by the same code path as `corpus-lens import`
// (papersFromRows + importPapers, offline embedder, plain vectors: the `corpus-lens import` defaults), every claim (citation
// tokens removed) is run with `search` in vector, keyword and hybrid modes (k = 25 sentence hits, dedupe off; a
// paper's rank = its best sentence's rank), and paper-level recall@1/5/10/25 and MRR are printed next to
// in-memory BM25 over sentences measured in the same run. test/integration/retrieval-eval.test.ts asserts on it.
import { createEmbedder } from '../src/core/embed/index.js';
import type { Embedder } from '../src/core/embed/types.js';
import { pgliteStore } from '../src/core/store/backends/pglite.js';
import { importPapers, papersFromRows, type DocumentRow, type Lined, type SourceRow } from '../src/core/ingest/seed-rows.js';
import type { CorpusStore } from '../src/core/store/types.js';
import { paperSearch, search, type SearchMode } from '../src/core/retrieve/index.js';
import { freshPGlite } from '../test/support/db-pglite.js';
import {
  bm25Scorer,
  contentTokens,
  paperBm25Scorer,
  evaluate,
  formatMetrics,
  loadRetrievalData,
  type Claim,
  type Metrics,
  type RetrievalData,
  type Scorer,
} from '../test/support/retrieval-eval.js';

/** The sentence rankings (a paper ranks at its best sentence) and the paper ranking (`query --group papers`). */
export type EvalMode = SearchMode | 'papers';
export const MODES: readonly EvalMode[] = ['vector', 'keyword', 'hybrid', 'papers'];

export interface EvalCorpus {
  store: CorpusStore;
  embedder: Embedder;
  /** Sentences imported and seconds taken (embedding + writes + index builds). */
  sentences: number;
  importSeconds: number;
}

/** Imports the eval corpus (one paper per doc, its sentences in order, one section; plain vectors) into a fresh in-memory PGlite. */
export async function importEvalCorpus(data: RetrievalData): Promise<EvalCorpus> {
  const documents: Lined<DocumentRow>[] = [];
  const sources: Lined<SourceRow>[] = [];
  let line = 0;
  let start = 0;
  data.docIds.forEach((docId, d) => {
    sources.push({
      line: d + 1,
      row: { doc_id: String(docId), title: null, abstract: null, authors: [], doi_link: null, venue_name: null, year: null },
    });
    let i = 0;
    while (start < data.sentences.length && data.sentenceDoc[start] === d) {
      const text = data.sentences[start++];
      line++;
      if (!text.trim()) continue;
      documents.push({
        line,
        row: { doc_id: String(docId), text, section_title: null, section_number: null, sentence_index: i, global_index: i },
      });
      i++;
    }
  });
  const embedder = createEmbedder({ provider: 'offline' });
  const store = pgliteStore(await freshPGlite(), { ownsDatabase: true });
  const t0 = performance.now();
  const r = await importPapers(store, embedder, papersFromRows(documents, sources), {
    documentsFile: 'corpus.jsonl',
    deferIndexesFrom: 0,
  });
  return { store, embedder, sentences: r.sentences, importSeconds: (performance.now() - t0) / 1000 };
}

/** Paper rank (1-based) of the best-ranked cited paper among the papers of `paperIds` (hit order), or Infinity. */
function paperRank(paperIds: readonly string[], cited: readonly number[]): number {
  const seen: string[] = [];
  for (const p of paperIds) if (!seen.includes(p)) seen.push(p);
  const want = new Set(cited.map(String));
  const i = seen.findIndex((p) => want.has(p));
  return i < 0 ? Infinity : i + 1;
}

function metricsOf(ranks: readonly number[]): Metrics {
  const n = ranks.length;
  const at = (k: number): number => ranks.filter((r) => r <= k).length / n;
  return { n, r1: at(1), r5: at(5), r10: at(10), r25: at(25), mrr: ranks.reduce((a, r) => a + (Number.isFinite(r) ? 1 / r : 0), 0) / n };
}

/** Runs the claims through `search` in each mode; k = 25 sentence hits, dedupe off. */
export async function evalThroughStore(
  corpus: EvalCorpus,
  claims: readonly Claim[],
  options: { modes?: readonly EvalMode[] } = {},
): Promise<Record<string, Metrics & { msPerQuery: number }>> {
  const out: Record<string, Metrics & { msPerQuery: number }> = {};
  for (const mode of options.modes ?? MODES) {
    const ranks: number[] = [];
    const t0 = performance.now();
    for (const c of claims) {
      const hits =
        mode === 'papers'
          ? await paperSearch(corpus.store, corpus.embedder, c.query, { k: 25 })
          : await search(corpus.store, corpus.embedder, c.query, mode, { k: 25, dedupe: false });
      ranks.push(
        paperRank(
          hits.map((h) => h.paper.id),
          c.cited,
        ),
      );
    }
    out[mode] = { ...metricsOf(ranks), msPerQuery: (performance.now() - t0) / claims.length };
  }
  return out;
}

/** The baselines' BM25 indexes, built once per data set for every split evaluated on it. */
const baselineScorers = new WeakMap<RetrievalData, Record<string, Scorer>>();

/** In-memory BM25 over sentences (plain and stemmed ≈ Postgres `english`), the baselines of the table. */
export async function bm25Baselines(data: RetrievalData, claims: readonly Claim[]): Promise<Record<string, Metrics>> {
  let scorers = baselineScorers.get(data);
  if (!scorers) {
    scorers = {
      'BM25 over sentences, in memory': bm25Scorer(data.sentences),
      'BM25 stemmed, in memory': bm25Scorer(data.sentences, { tokenize: contentTokens }),
      'BM25 over whole papers, in memory': paperBm25Scorer(data),
      'BM25 over whole papers stemmed, in memory': paperBm25Scorer(data, { tokenize: contentTokens }),
    };
    baselineScorers.set(data, scorers);
  }
  const out: Record<string, Metrics> = {};
  for (const [name, scorer] of Object.entries(scorers)) out[name] = await evaluate(data, claims, scorer);
  return out;
}

export const TABLE_HEAD = '| method | R@1 | R@5 | R@10 | R@25 | MRR |\n|---|---|---|---|---|---|';

export function table(store: Record<string, Metrics & { msPerQuery?: number }>, baselines: Record<string, Metrics>, label = ''): string {
  const rows = [TABLE_HEAD];
  for (const [name, m] of Object.entries(baselines)) rows.push(formatMetrics(name, m));
  for (const [mode, m] of Object.entries(store)) {
    const ms = m.msPerQuery !== undefined ? ` (${m.msPerQuery.toFixed(1)} ms/query)` : '';
    rows.push(formatMetrics(`store ${mode}${label}${ms}`, m));
  }
  return rows.join('\n');
}

/** A deterministic subset of the claims (every `step`-th). */
export function every<T>(xs: readonly T[], step: number): T[] {
  return xs.filter((_, i) => i % step === 0);
}

export async function run(): Promise<void> {
  const data = loadRetrievalData();
  if (!data) {
    console.log('retrieval: ../shared/eval/retrieval is absent; skipped');
    return;
  }
  // RETRIEVAL_BENCH_NEURAL=1 adds the neural embedder's table (bench/retrieval-neural.ts); `only`: that table alone.
  if (process.env.RETRIEVAL_BENCH_NEURAL) {
    const { neuralSection } = await import('./retrieval-neural.js');
    await neuralSection(data);
    if (process.env.RETRIEVAL_BENCH_NEURAL === 'only') return;
  }
  const corpus = await importEvalCorpus(data);
  try {
    const meta = await corpus.store.meta();
    console.log(
      `retrieval: ${corpus.sentences} sentences imported in ${corpus.importSeconds.toFixed(1)} s ` +
        `(${meta?.model}, ${meta?.dimensions}-d, vectors ${meta?.vectorContext}); hybrid = the product defaults`,
    );
    const dev = await evalThroughStore(corpus, data.dev);
    console.log(`\ndev (n = ${data.dev.length}), paper level:\n${table(dev, await bm25Baselines(data, data.dev))}`);
    // The train subset doubles the run time (keyword lookups cost ~1 s each in PGlite here); opt in.
    if (!process.env.RETRIEVAL_BENCH_TRAIN) return;
    const train = every(data.train, 4);
    const tr = await evalThroughStore(corpus, train);
    console.log(`\ntrain, every 4th claim (n = ${train.length}):\n${table(tr, await bm25Baselines(data, train))}`);
  } finally {
    await corpus.store.close();
  }
}
