// How large the embedded (PGlite) corpus may grow. PGlite runs PostgreSQL in WebAssembly, one process, its heap
// capped at 2 GiB and its index builds single-threaded: past some size a corpus builds, opens or answers too slowly,
// or not at all. Before a load would take the corpus past a safe share of that size, the extension offers to move
// it to PostgreSQL and `corpus-lens ingest` warns on stderr. The decision is this pure function on counts.
import type { CorpusStore } from '../types.js';

/**
 * The largest embedded corpus (sentences, 384-d float32 vectors) measured to open in a fresh process and answer a
 * lookup with context at p50 ≤ 15 ms with recall@25 ≥ 0.95 against an exact scan, at the size rule's ef_search
 * (`LIMIT_BENCH_N=… npm run bench -- limit`: clustered synthetic sentences, 60 queries; runs in docs/benchmarks.md):
 * 300k: ef_search 200, p50 7.0 / 6.9 ms, recall 0.967 / 0.956 in two builds (build + recount ~280 s, 2.4 GB).
 * 400k: p50 11.4 / 13.5 ms but recall 0.946 / 0.885 at 200 (0.947 / 0.934 at 300, p50 16–17 ms).
 * 500k: p50 14.4–15.6 ms, recall 0.91–0.92 at 200; 0.936 at 400 (p50 23 ms).
 * A half-precision corpus (`ingest --precision half`) holds 300k too: recall 0.967, p50 13.4 ms once the index's pages
 * are read (16.2 ms over the first 100 lookups), but its build takes 1,371 s (PGlite converts halves in software).
 * Lookups stay within about 15 ms to 500k; recall is what fails first, and how far it falls differs much from one HNSW
 * build of the same data to the next.
 * This is the limit where pgvector serves the vector lookups (where usearch cannot load); NATIVE_SENTENCE_LIMIT is
 * the native index's.
 */
export const EMBEDDED_SENTENCE_LIMIT = 300_000;

/**
 * The same limit where the native index (usearch, sql/native-index.ts, the default where it loads) answers the vector
 * lookups, by the same bench with 100 tuning + 100 held-out queries: 250k p50 6.6 ms, recall 0.976 (under load);
 * 500k on an idle machine, at the size rule's breadth (1,200): strict recall@25 0.951 / 0.957, CPU p50 ~7 ms, built
 * in 265 s (load + index). 1M failed on recall: 0.922 at breadth 2,000 (p50 13.0 ms), 0.936 at 3,000 (p50 20.0 ms).
 * Those were m 16 / 64 graphs. From 150k the index is built m 24 / 128 (native-index.ts graphFor; a sparser one is
 * rebuilt past it, keepsGraph), and with it 1M passes (under the bench lock, load 3.5–6 on 2 cores, fresh process):
 * strict recall@25 0.993 / 0.991 (tuning / held-out) at breadth 300, p50 4.4 ms; 0.996 / 0.992 at 450, p50 6.6 ms;
 * open 1.9 s, first lookup 3.8 s, peak RSS 1.5 GB serving and 1.7 GB loading; the build took 3,636 s wall (CPU 1,681 s)
 * at nice 10 under load. Past 1M nothing is measured (PGlite's heap is capped at 2 GiB), so the limit is 1M.
 */
export const NATIVE_SENTENCE_LIMIT = 1_000_000;

/**
 * Bytes pgvector's HNSW build holds in memory per sentence (m = 16, 384-d): the vector and ~560 bytes of neighbour
 * lists. Measured in PGlite from the build's "graph no longer fits into maintenance_work_mem after N tuples" notice
 * (16 MB: 7,978 float32 and 12,576 half elements); test/integration/build-memory.test.ts measures them again.
 */
export const HNSW_ELEMENT_BYTES = { float32: 2_103, half: 1_334 } as const;

/**
 * maintenance_work_mem of an embedded index build: the float32 graph of ~638k sentences (twice the limit: a user may
 * index past the warning) or the half one of ~1M, under PGlite's 2 GiB WASM heap beside its 128 MB of shared
 * buffers. At 256 MB a 500k build spilled after ~127k sentences and took 3,065 s; with this, 515–562 s (loading
 * process peak ~1.4 GB).
 */
export const PGLITE_BUILD_MEMORY_MB = 1_280;

/** The share of the limit a load may reach without a warning (room for the estimate being low). */
export const EMBEDDED_SAFE_SHARE = 0.8;

/** Sentences a source is assumed to add when nothing else is known of it and the corpus has no papers to average over. */
export const SENTENCES_PER_SOURCE = 250;

/**
 * Sentences a PDF page yields, for a PDF whose text is not read before the load: a full two-column page ~30, a
 * single-column one ~20, pages of figures, tables and references fewer (the reader drops references).
 */
export const SENTENCES_PER_PDF_PAGE = 25;

/** What one source will contribute, as far as it is known cheaply before the load reads it. */
export interface SourceFacts {
  /** Sentences of an extracted full text the load will index (Zotero's cache of the item), split as the load splits it. */
  fullTextSentences?: number;
  /** Pages of the readable PDF on disk the load will index (0: none). */
  pdfPages?: number;
  /** Sentences of the abstract: all that is indexed of an item with no full text. */
  abstractSentences?: number;
}

/**
 * The sentences one source is estimated to add: its full text's own count where it is at hand, else its PDF's pages ×
 * SENTENCES_PER_PDF_PAGE, else its abstract's sentences, else 0 (an item with nothing to index adds nothing).
 */
export function sourceSentenceEstimate(facts: SourceFacts): number {
  if (facts.fullTextSentences) return facts.fullTextSentences;
  if (facts.pdfPages) return facts.pdfPages * SENTENCES_PER_PDF_PAGE;
  return facts.abstractSentences ?? 0;
}

/** A load's size: sentences estimated from its sources themselves, and how many sources could not be estimated. */
export interface LoadEstimate {
  sentences: number;
  /** Sources estimated at the corpus's mean sentences per paper (a file of a folder). */
  unestimated: number;
}

/** Sums the estimates of the sources that give one (a Zotero item); the others are left to the corpus mean. */
export async function estimateLoad(sources: readonly { estimate?(): Promise<number> }[]): Promise<LoadEstimate> {
  const out: LoadEstimate = { sentences: 0, unestimated: 0 };
  for (const s of sources) {
    if (s.estimate) out.sentences += await s.estimate();
    else out.unestimated++;
  }
  return out;
}

/**
 * The limit in force: CORPUS_LENS_EMBEDDED_LIMIT (sentences) overrides the measured one, e.g. on a larger machine;
 * else the one measured for what answers the corpus's vector lookups (the store's vectorSearch): the native index's,
 * or pgvector's in PGlite (where usearch cannot load, or a store that does not say).
 */
export function embeddedLimit(env: Record<string, string | undefined> = {}, search: 'native' | 'pgvector' = 'pgvector'): number {
  const v = Number(env.CORPUS_LENS_EMBEDDED_LIMIT);
  if (Number.isFinite(v) && v > 0) return Math.floor(v);
  return search === 'native' ? NATIVE_SENTENCE_LIMIT : EMBEDDED_SENTENCE_LIMIT;
}

export interface CapacityWarning {
  /** Sentences the corpus would hold after the load (estimated). */
  projected: number;
  /** The sentence count from which the warning is given (safe share × limit). */
  safe: number;
  limit: number;
  /** One line for the user. */
  message: string;
}

/**
 * The warning for a load into this embedded corpus, at the limit measured for what answers its vector lookups
 * (embeddedLimit): the one place the CLI's ingest and the extension's Index Folder ask it.
 */
export async function corpusCapacityWarning(
  store: Pick<CorpusStore, 'counts' | 'vectorSearch'>,
  load: number | LoadEstimate,
  env: Record<string, string | undefined>,
): Promise<CapacityWarning | null> {
  return embeddedCapacityWarning(await store.counts(), load, embeddedLimit(env, await store.vectorSearch?.()));
}

/**
 * Whether a load into an embedded corpus that holds `sentences` sentences in `papers` papers would take it past the
 * safe share of `limit`. The load is its own estimate (estimateLoad) or a number of files; a source without an
 * estimate counts at the corpus's mean sentences per paper (SENTENCES_PER_SOURCE in an empty corpus). Unchanged sources
 * that the load will skip count too, so near the limit the warning errs on the side of being given. Null: no warning.
 */
export function embeddedCapacityWarning(
  counts: { sentences: number; papers: number },
  load: number | LoadEstimate,
  limit: number = EMBEDDED_SENTENCE_LIMIT,
): CapacityWarning | null {
  const perSource = counts.papers > 0 ? counts.sentences / counts.papers : SENTENCES_PER_SOURCE;
  const { sentences, unestimated } = typeof load === 'number' ? { sentences: 0, unestimated: load } : load;
  const projected = Math.round(counts.sentences + Math.max(0, sentences) + Math.max(0, unestimated) * perSource);
  const safe = Math.floor(EMBEDDED_SAFE_SHARE * limit);
  if (projected <= safe) return null;
  const n = (x: number) => x.toLocaleString('en');
  return {
    projected,
    safe,
    limit,
    message:
      `this load would bring the embedded corpus to about ${n(projected)} sentences (now ${n(counts.sentences)}); ` +
      `an embedded corpus is measured to stay fast up to ${n(limit)} sentences, so past ${n(safe)} move it to ` +
      `PostgreSQL + pgvector ("Corpus Lens: Move Corpus to PostgreSQL…" or \`corpus-lens copy\`)`,
  };
}
