/*
 * The embedded corpus's sentence vectors in a native HNSW index (usearch, an N-API module with prebuilt binaries),
 * beside PGlite, keyed by sentence id.
 *
 * Why: pgvector builds its HNSW graph inside PGlite's single-threaded WASM: at 100k × 384-d that was ~370 s of a
 * ~400 s ingest, and a lookup spent most of its time there too. usearch builds the graph on every core in native
 * code and searches it in well under a millisecond; PGlite keeps the rows, the context, the sections and BM25, and
 * gets only the ids (one statement, as the keyword index hands over its ranking). Chosen over hnswlib-node, which
 * compiles at install (node-gyp: no compiler on a user's machine, no prebuilt binary in the .vsix); usearch ships
 * binaries for linux-x64/arm64, darwin and win32-x64. It keeps the vectors in half precision (f16): the file is 0.54×
 * the float32 one (87 against 161 MB at 100k × 384-d) at the same recall@25 (0.955 against 0.953 at 100k, 60
 * queries), and its similarities are within ~5e-5 of the stored vectors' (SIMILARITY_ERROR bounds it), so a lookup
 * re-scores the few candidates it returns from the stored float32 vectors (similarities, order and a threshold as
 * pgvector's path gives them). Figures: docs/benchmarks.md, `npm run bench -- peers`.
 *
 * A saved index is of one state of the corpus: its file is named after it (the sentence count and the largest id).
 * Any write through the store other than an append retires the files first (sql/store.ts), and the index is rebuilt
 * from the stored vectors when missing or stale. A write that only appends sentences extends the index in memory
 * (extend: the rows with ids past its largest) and keeps the file of the state before it: the whole file is re-saved
 * only once a tenth more rows are unsaved (saveAfter), by a worker thread while lookups go on (saveBehind), and when
 * the store closes, not on every write (at 1M sentences the file is ~1.5 GB). A process killed with rows unsaved leaves that older file, and the next open resumes from it:
 * it is used only where the corpus is still its rows plus rows with larger ids (the count up to its largest id is
 * its count, and it holds the stored vectors of its first and last row), then extended with the rest (re-saved past
 * the trigger by saveBehind too, so the open does not wait for the file's rewrite); otherwise
 * the index is rebuilt in full. Files are written to a temporary file and renamed, so a kill leaves the old one,
 * never half of one.
 */
import { closeSync, fstatSync, linkSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SqlDriver } from '../driver.js';

/** The part of usearch's Index this module uses. */
interface UsearchIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads?: number): void;
  search(vector: Float32Array, k: number, threads?: number): { keys: BigUint64Array; distances: Float32Array };
  size(): number;
  connectivity(): number;
  save(path: string): void;
  load(path: string): void;
  view(path: string): void;
}
type UsearchModule = {
  Index: new (config: Record<string, unknown>) => UsearchIndex;
  /** A brute-force scan of `dataset` (row-major) for the `count` nearest of `query` (hybrid-fusion.ts: the sections). */
  exactSearch(
    dataset: Float32Array,
    query: Float32Array,
    dimensions: number,
    count: number,
    metric: string,
    threads: number,
  ): { keys: BigUint64Array; distances: Float32Array };
};

/**
 * Files of the index in a corpus folder: `corpus-lens-vectors.COUNT.MAXID.f16.usearch` (and `….tmp-PID` while
 * written). The precision is in the name. The float32 file of an earlier version (`….f32.usearch`) of the corpus as
 * it is still serves (usearch reads the precision from the file; lookups re-score either way) until the next write,
 * which builds the index anew in half precision; it is never resumed from.
 */
const FILE_PREFIX = 'corpus-lens-vectors.';
/** A background save's link to the file it starts from (saveBehind), named so that retiring the index keeps it. */
const INPUT_PREFIX = 'corpus-lens-save-input.tmp-';
const fileName = (count: number, maxId: number, precision: 'f16' | 'f32' = 'f16') => `${FILE_PREFIX}${count}.${maxId}.${precision}.usearch`;

/**
 * How far the index's similarities may be from the stored float32 vectors' (half precision: ≤ 4.4e-5 measured at
 * 100k × 384-d): a threshold keeps the candidates within it, and the statement applies the threshold exactly.
 */
export const SIMILARITY_ERROR = 1e-3;

/**
 * An HNSW graph's build settings: connectivity (m, links a node keeps per level) and expansion_add
 * (ef_construction, the breadth of the search that picks them). A saved file carries its connectivity (usearch reads
 * it from the file on load or view: a file built with other settings is served and extended as it was built);
 * expansion_add applies only to rows added from then on.
 */
export interface GraphSettings {
  connectivity: number;
  expansionAdd: number;
}

/** The graph of an index built for a corpus under DENSE_FROM sentences: m 16 as pgvector's, ef_construction 64 (its default). */
export const SPARSE_GRAPH: GraphSettings = { connectivity: 16, expansionAdd: 64 };
/**
 * The denser graph of an index built for a corpus of DENSE_FROM sentences or more. At 200k (clustered synthetic
 * vectors, 100 tuning + 100 held-out queries) it gives strict recall@25 0.990 / 0.991 at breadth 128, where m 16 / 64
 * gives 0.905–0.918 / 0.949–0.955 and needs 250 to reach the bar (0.948–0.968 in two builds); at 500k 0.987 at breadth
 * 300, where m 16 needed 1,200 for 0.951; see efSearch for 1M. Its cost: ~2× the build CPU and 7 % more file.
 * 16 / 200 recalled as well at 200k but with 1.5× its build CPU; 32 / 128 no better, with slower lookups.
 */
export const DENSE_GRAPH: GraphSettings = { connectivity: 24, expansionAdd: 128 };
/**
 * From this size a new index gets the denser graph. Below it the 100k targets (ingest with the index ≥ 2,000
 * sentences/s, lookup p50 ≤ 5 ms, recall ≥ 0.95) were met with m 16 / 64 and are kept as measured (the denser build
 * would double the index's share of an ingest); at 200k m 16 / 64 is at the bar, so the line is between the two.
 */
export const DENSE_FROM = 150_000;

/** The graph a new index of `size` sentences is built with. */
export function graphFor(size: number): GraphSettings {
  return size >= DENSE_FROM ? DENSE_GRAPH : SPARSE_GRAPH;
}

/** Graph settings by corpus size: graphFor, or a store's own (fixed settings are a rule of one value). */
export type GraphRule = (size: number) => GraphSettings;

/** The rule of a store's option: graphFor where none is given, settings given as such for every size. */
export function graphRule(graph?: GraphSettings | GraphRule): GraphRule {
  if (typeof graph === 'function') return graph;
  return graph ? () => graph : graphFor;
}

/**
 * Whether an index whose graph has `connectivity` keeps serving a corpus of `size` sentences, or is rebuilt with
 * graphFor(size). Settings are fixed when an index is made, and a corpus mostly grows by appends, which extend its
 * index: an index made under DENSE_FROM would stay sparse at any size. It is rebuilt once, when it would serve past
 * DENSE_FROM (an open, a resume or an append), rather than kept and searched ever wider: m 16 / 64 fails recall at 1M
 * at any breadth measured (0.936 at 3,000), and the rebuild near DENSE_FROM takes about a minute of CPU in the
 * background (lookups scan exactly meanwhile), where at 1M it would take many. A denser index than the size asks for
 * is kept. `rule`: the store's (graphFor unless given, as the limit bench and the tests do).
 */
export function keepsGraph(connectivity: number, size: number, rule: GraphRule = graphFor): boolean {
  return connectivity >= rule(size).connectivity;
}
/** Rows read per statement while building: lookups interleave with the reads, as with the keyword index's load. */
const READ_CHUNK = 5000;

/** The narrowest search breadth (the index's expansion_search; usearch searches max(expansion, wanted) deep). */
const MIN_BREADTH = 128;

/** The denser graph's breadth past 250k: 128 there, 1 more every DENSE_STEP sentences (see efSearch). */
const DENSE_STEP = 2500;

/**
 * Search breadth by corpus size and the graph's connectivity.
 *
 * The denser graph (connectivity ≥ DENSE_GRAPH's): 128 up to 250k sentences, then 1 more every 2,500 (228 at 500k,
 * 428 at 1M), at most 2,000: at or wider than the narrowest breadth measured to meet strict recall@25 0.95 on the
 * tuning queries (100 of clustered synthetic vectors), at each size measured: 200k 128 (0.990; held-out 0.991), 500k
 * 200 (0.986; held-out 0.9996, a set without the far queries that hold most misses), 1M 300 (0.993; held-out 0.991,
 * p50 4.4 ms under the bench lock). Narrower breadths were not measured at 500k and 1M, so the rule keeps that margin.
 *
 * m 16 / 64 (an index made under DENSE_FROM, or by an earlier version): 128 up to 100k sentences (recall@25
 * 0.96–0.99 on topic-structured vectors), size/800 to 250k (313 there: 0.976), then 1 more every 435 sentences past
 * 250k, at most 2,000: at 500k (1,200) strict recall@25 fell short at size/800 (625: 0.940 / 0.949 on 100 tuning /
 * 100 held-out queries of clustered synthetic vectors), and 1,200 was the narrowest breadth meeting 0.95 on the tuning
 * set (0.951; held-out 0.957); CPU p50 per lookup 6.7 ms there (`npm run bench -- limit`, docs/benchmarks.md).
 * Re-scoring 2× or 4× the index's candidates from the float32 vectors gave the same recall: its misses are graph
 * misses, not half-precision reorderings.
 *
 * Applied at each search, so an index extended by appends searches as broadly as one built at its size.
 */
export function efSearch(size: number, connectivity: number): number {
  if (connectivity >= DENSE_GRAPH.connectivity) return Math.min(2000, MIN_BREADTH + Math.max(0, Math.ceil((size - 250_000) / DENSE_STEP)));
  return Math.min(2000, Math.max(MIN_BREADTH, Math.ceil(size / 800) + Math.max(0, Math.ceil((size - 250_000) / 435))));
}

/**
 * Rows appended since the last save past which an appending write re-saves the index: a tenth of it, at least
 * 10,000. Re-saving rewrites the whole file, so saving every tenth keeps the bytes written within ~10× the final
 * file over any growth, and a kill costs at most that tenth's re-adding on the next open.
 */
export function saveAfter(size: number): number {
  return Math.max(10_000, Math.ceil(size / 10));
}

let loaded: UsearchModule | Error | undefined;

/**
 * usearch, or why it cannot load (an unsupported platform, the universal .vsix without the binary, or
 * CORPUS_LENS_NATIVE_INDEX=0). Loaded once, on first use.
 */
export function nativeModule(): UsearchModule | Error {
  if (loaded) return loaded;
  if (process.env.CORPUS_LENS_NATIVE_INDEX === '0') return (loaded = new Error('turned off by CORPUS_LENS_NATIVE_INDEX=0'));
  try {
    loaded = createRequire(__filename)('usearch') as UsearchModule;
  } catch (err) {
    loaded = err instanceof Error ? err : new Error(String(err));
  }
  return loaded;
}

/** The one-line notice of a process whose native index cannot load. */
export function fallbackNotice(why: Error): string {
  return `the native vector index could not load on this platform (${why.message.split('\n')[0]}): vector lookups use PGlite's pgvector index`;
}

/**
 * Whether usearch can memory-map `file`: a readable, non-empty regular file. Its view() must be given nothing else:
 * when it cannot open or map a file it closes file descriptor 0 (usearch 2.x, memory_mapped_file_t: the descriptor it
 * never got is 0, and its close() closes that). The first such call closes stdin; PGlite's next file then opens on
 * descriptor 0, the next call closes it under PGlite, and PGlite fails with "could not seek to end of file … Bad file
 * descriptor" (or worse, writes to whatever file reuses the number).
 * Checked synchronously just before view(): nothing else in the process can remove the file in between.
 */
function mappable(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const stat = fstatSync(fd);
    return stat.isFile() && stat.size > 0;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The stored vectors' state the index must match: how many sentences, the largest id. */
export async function corpusState(driver: SqlDriver): Promise<{ count: number; maxId: number }> {
  const { rows } = await driver.query(`SELECT count(*)::int AS n, coalesce(max(id), 0)::bigint AS max FROM sentences`);
  return { count: Number(rows[0]?.n ?? 0), maxId: Number(rows[0]?.max ?? 0) };
}

/** usearch's settings for an index: the same in this thread and in a save's worker (saveBehind). */
function indexConfig(dimensions: number, graph: GraphSettings): Record<string, unknown> {
  return {
    dimensions,
    metric: 'cos',
    quantization: 'f16',
    connectivity: graph.connectivity,
    expansion_add: graph.expansionAdd,
    // The narrowest breadth: usearch searches max(expansion, wanted) deep, and search() asks for efSearch (or the
    // limit bench's breadth), so a set expansion would also floor every narrower breadth the bench measures.
    expansion_search: MIN_BREADTH,
  };
}

function newIndex(mod: UsearchModule, dimensions: number, graph: GraphSettings): UsearchIndex {
  return new mod.Index(indexConfig(dimensions, graph));
}

function indexFileNames(folder: string): string[] {
  try {
    return readdirSync(folder).filter((n) => n.startsWith(FILE_PREFIX));
  } catch {
    return [];
  }
}

/** Removes every index file of a corpus folder but `keep` (a write retires the index; a kill may leave a temporary file). */
export function retireFiles(folder: string, keep?: string): void {
  for (const n of indexFileNames(folder)) if (n !== keep) rmSync(join(folder, n), { force: true });
}

/** Temporary files a killed save left (one writer at a time: no other process is writing them). */
function removeTemporary(folder: string): void {
  for (const n of indexFileNames(folder)) if (n.includes('.tmp-')) rmSync(join(folder, n), { force: true });
  try {
    for (const n of readdirSync(folder)) if (n.startsWith(INPUT_PREFIX)) rmSync(join(folder, n), { force: true });
  } catch {
    // no folder: nothing left in it
  }
}

/** The saved file of an earlier state that the corpus may have grown from (the largest such state), if any. */
function earlierFile(folder: string, state: { count: number; maxId: number }): { file: string; count: number; maxId: number } | undefined {
  let best: { file: string; count: number; maxId: number } | undefined;
  for (const n of indexFileNames(folder)) {
    const m = /^corpus-lens-vectors\.(\d+)\.(\d+)\.f16\.usearch$/.exec(n);
    if (!m) continue;
    const [count, maxId] = [Number(m[1]), Number(m[2])];
    if (count < state.count && maxId < state.maxId && (!best || maxId > best.maxId)) best = { file: join(folder, n), count, maxId };
  }
  return best;
}

/**
 * Whether `index` holds the stored vectors of the first and last sentence up to `maxId` under their ids: a file of
 * another corpus (one re-created in the same folder, with the same count) fails it.
 */
async function holdsStored(index: UsearchIndex, driver: SqlDriver, maxId: number, size: number): Promise<boolean> {
  const { rows } = await driver.query(
    `(SELECT id, embedding::text AS v FROM sentences WHERE id <= $1 ORDER BY id LIMIT 1)
     UNION ALL (SELECT id, embedding::text AS v FROM sentences WHERE id <= $1 ORDER BY id DESC LIMIT 1)`,
    [maxId],
  );
  return rows.every((r) => {
    const m = index.search(Float32Array.from(JSON.parse(String(r.v)) as number[]), Math.min(size, efSearch(size, index.connectivity())), 1);
    for (let i = 0; i < m.keys.length; i++) if (Number(m.keys[i]) === Number(r.id)) return m.distances[i] < 1e-4;
    return false;
  });
}

/**
 * The newest saved file holding a prefix of an in-memory index (its corpus state; count 0: none), shared by the
 * index and its extensions, with the background save under way, if any.
 */
interface SavedState {
  count: number;
  maxId: number;
  saving?: Promise<void>;
}

export class NativeVectorIndex {
  private constructor(
    private readonly index: UsearchIndex,
    readonly size: number,
    /** The largest sentence id in it: the rows past it are what an appending write added. */
    private readonly maxId: number,
    private readonly dimensions: number,
    /** The settings rows added to it are linked with (its connectivity is the file's where it was read from one). */
    private readonly graph: GraphSettings,
    /** The store's graph settings by size: an index sparser than they ask for is not extended past them (keepsGraph). */
    private readonly rule: GraphRule,
    /** The file `index` is memory-mapped from (read only), or undefined when it is in memory. */
    private readonly mapped?: string,
    private readonly saved: SavedState = { count: size, maxId },
    /**
     * Beside a memory-mapped `index`: an in-memory index of the rows appended since (see writable), searched with it.
     * Reading the mapped file into memory instead held the corpus process for seconds (5.4 s at 1M sentences).
     */
    private readonly delta?: UsearchIndex,
  ) {}

  /** The search breadth in place of efSearch(size), where set: the limit bench measures the size rule with it. */
  breadth: number | undefined;

  /** Its graph's connectivity (m): the settings it was built with, or its file's where it was read from one. */
  get connectivity(): number {
    return this.index.connectivity();
  }

  /** Whether the rows of its saved file are served from the file, memory-mapped, rather than read into memory. */
  get memoryMapped(): boolean {
    return !!this.mapped;
  }

  /** Rows in it that no saved file holds yet: saved once there are saveAfter(size) of them, and on close. */
  get unsaved(): number {
    return this.size - this.saved.count;
  }

  /** The background save under way (saveBehind), if any: settled when its file is in place or given up. */
  get saving(): Promise<void> | undefined {
    return this.saved.saving;
  }

  /** The saved index of the corpus as it is now (memory-mapped, read only: a write retires it), if there is one. */
  static async view(
    driver: SqlDriver,
    dimensions: number,
    folder: string | null,
    graph?: GraphSettings | GraphRule,
  ): Promise<NativeVectorIndex | undefined> {
    const rule = graphRule(graph);
    const mod = nativeModule();
    if (mod instanceof Error || !folder) return undefined;
    const state = await corpusState(driver);
    const file = [fileName(state.count, state.maxId), fileName(state.count, state.maxId, 'f32')]
      .map((name) => join(folder, name))
      .find(mappable);
    if (!file) return undefined;
    try {
      const index = newIndex(mod, dimensions, rule(state.count));
      index.view(file);
      // A sparser graph than the size asks for (see keepsGraph): not served, built anew (its file is replaced then).
      if (!keepsGraph(index.connectivity(), state.count, rule)) return undefined;
      if (index.size() === state.count && (await holdsStored(index, driver, state.maxId, state.count))) {
        return new NativeVectorIndex(index, state.count, state.maxId, dimensions, rule(state.count), rule, file);
      }
    } catch {
      // missing or unreadable: to be built
    }
    return undefined;
  }

  /**
   * The index of the corpus as it is now, from the stored vectors: resumed from the file of an earlier state the
   * corpus grew from by appends (a process killed with appended rows unsaved), or built in full and saved in `folder`
   * (temporary file, then rename). `current` is asked between statements: a write or close meanwhile makes the index
   * useless, and the build stops (undefined).
   */
  static async build(
    driver: SqlDriver,
    dimensions: number,
    folder: string | null,
    current: () => boolean,
    graph?: GraphSettings | GraphRule,
  ): Promise<NativeVectorIndex | undefined> {
    const rule = graphRule(graph);
    const mod = nativeModule();
    if (mod instanceof Error) return undefined;
    const resumed = folder ? await NativeVectorIndex.resume(mod, driver, dimensions, folder, current, rule) : undefined;
    if (resumed) return resumed;
    const state = await corpusState(driver);
    const index = newIndex(mod, dimensions, rule(state.count));
    if (!(await addStored(index, driver, dimensions, 0, current))) return undefined;
    if (!current() || index.size() !== state.count) return undefined;
    const built = new NativeVectorIndex(index, state.count, state.maxId, dimensions, rule(state.count), rule, undefined, {
      count: 0,
      maxId: 0,
    });
    built.save(folder, current);
    return built;
  }

  /** The earlier state's file extended with the rows past it, where the corpus is that state plus those rows. */
  private static async resume(
    mod: UsearchModule,
    driver: SqlDriver,
    dimensions: number,
    folder: string,
    current: () => boolean,
    rule: GraphRule,
  ): Promise<NativeVectorIndex | undefined> {
    removeTemporary(folder);
    const state = await corpusState(driver);
    const earlier = earlierFile(folder, state);
    if (!earlier || !mappable(earlier.file)) return undefined;
    const { rows } = await driver.query(`SELECT count(*)::int AS n FROM sentences WHERE id <= $1`, [earlier.maxId]);
    if (Number(rows[0]?.n) !== earlier.count) return undefined; // rows of it were deleted: not a prefix of the corpus
    try {
      // Mapped, not read whole: the rows past it go to an in-memory delta (see writable).
      if (!mappable(earlier.file)) return undefined; // just before view(): see mappable
      const index = newIndex(mod, dimensions, rule(state.count));
      index.view(earlier.file);
      // Grown past what its graph serves (keepsGraph): built in full with the size's graph instead of extended.
      if (!keepsGraph(index.connectivity(), state.count, rule)) return undefined;
      if (index.size() !== earlier.count || !(await holdsStored(index, driver, earlier.maxId, earlier.count))) return undefined;
      const linked = { ...rule(state.count), connectivity: index.connectivity() }; // as the file was built (see writable)
      const delta = newIndex(mod, dimensions, linked);
      const base = new NativeVectorIndex(index, earlier.count, earlier.maxId, dimensions, linked, rule, earlier.file, undefined, delta);
      const grown = await base.extend(driver, current);
      // Past the trigger, re-saved as an append would do it: in a worker, so that the open is not held for the
      // file's rewrite (given up if any write comes meanwhile: saved then by that write's trigger or on close).
      if (grown && grown.unsaved >= saveAfter(grown.size)) void grown.saveBehind(driver, folder, current);
      return grown;
    } catch {
      return undefined;
    }
  }

  /**
   * An index to extend after an appending write: this one where it is in memory or has its delta; where it is only
   * memory-mapped (read only), the mapped file with an empty in-memory delta for the rows to come, so no write reads
   * the whole file first. Called before the write; undefined when it cannot be extended.
   */
  writable(): NativeVectorIndex | undefined {
    if (!this.mapped || this.delta) return this;
    const mod = nativeModule();
    // An earlier version's float32 file: not extended (it would be saved in float32 again); built anew after the write.
    if (mod instanceof Error || this.mapped.endsWith('.f32.usearch')) return undefined;
    // Linked as the file was built (its connectivity), as the rows would be if they were added to it.
    const graph = { ...this.graph, connectivity: this.connectivity };
    const delta = newIndex(mod, this.dimensions, graph);
    return new NativeVectorIndex(this.index, this.size, this.maxId, this.dimensions, graph, this.rule, this.mapped, this.saved, delta);
  }

  /**
   * After a write that only appended sentences: this (in-memory) index with the stored rows past its largest id
   * added, not yet saved (see save). Undefined where the corpus is not this index plus those rows (a sentence of it
   * was deleted) or a write or close came meanwhile: the caller rebuilds.
   */
  async extend(driver: SqlDriver, current: () => boolean): Promise<NativeVectorIndex | undefined> {
    // Grown past what its graph serves (keepsGraph): undefined, so that the next lookup builds it with the size's graph.
    if (!keepsGraph(this.connectivity, (await corpusState(driver)).count, this.rule)) return undefined;
    const added = this.mapped ? this.delta : this.index;
    if (!added || !(await addStored(added, driver, this.dimensions, this.maxId, current))) return undefined;
    const state = await corpusState(driver);
    if (!current() || this.index.size() + (this.delta?.size() ?? 0) !== state.count) return undefined;
    return new NativeVectorIndex(
      this.index,
      state.count,
      state.maxId,
      this.dimensions,
      this.graph,
      this.rule,
      this.mapped,
      this.saved,
      this.delta,
    );
  }

  /**
   * Saves it in `folder` under its corpus state (temporary file, then rename) and removes every other index file;
   * nothing when no row is unsaved. `current` false by the rename (a write retired it meanwhile): not kept.
   */
  save(folder: string | null, current: () => boolean): void {
    if (!folder || this.mapped || !this.unsaved) return; // a mapped index with its delta: saveBehind
    const name = fileName(this.size, this.maxId);
    const file = join(folder, name);
    const temp = `${file}.tmp-${process.pid}`;
    try {
      this.index.save(temp);
      if (!current()) throw new Error('retired while saving');
      renameSync(temp, file);
      Object.assign(this.saved, { count: this.size, maxId: this.maxId });
      retireFiles(folder, name);
    } catch {
      rmSync(temp, { force: true }); // unsaved: resumed or rebuilt on the next open, never used stale
    }
  }

  /** On close: its unsaved rows saved, from memory (save), or by a worker where it is a mapped file and a delta. */
  async saveUnsaved(driver: SqlDriver, folder: string | null, current: () => boolean): Promise<void> {
    if (this.delta) await this.saveBehind(driver, folder, current);
    else this.save(folder, current);
  }

  /**
   * Saves it as save() does, but off the thread that answers lookups: a worker thread reads the saved file of the
   * earlier state, adds the rows appended since (read here by COPY, between lookups) and writes the file of the
   * state now (at 1M sentences reading and writing the file take seconds each). This thread keeps serving from the
   * index in memory meanwhile, and appends go on. The file is renamed into place only where `kept` still holds at
   * the end (no write retired the corpus's files meanwhile; an append does not), so it is never of a corpus other
   * than this one's rows. One save at a time; where there is no earlier file, a synchronous save.
   */
  saveBehind(driver: SqlDriver, folder: string | null, kept: () => boolean): Promise<void> {
    if (!folder || (this.mapped && !this.delta) || !this.unsaved || this.saved.saving) return this.saved.saving ?? Promise.resolve();
    if (!this.saved.count) {
      this.save(folder, kept);
      return Promise.resolve();
    }
    const earlier = join(folder, fileName(this.saved.count, this.saved.maxId));
    const name = fileName(this.size, this.maxId);
    const temp = join(folder, `${name}.tmp-${process.pid}`);
    // The worker reads the earlier file through a link of its own: a write here may retire (remove) the file
    // meanwhile, and usearch must never be given a path it cannot open (see mappable: it would close descriptor 0).
    const from = join(folder, `${INPUT_PREFIX}${process.pid}`);
    const saving = (async () => {
      try {
        const rows = await readRange(driver, this.saved.maxId, this.maxId, this.dimensions);
        if (!kept() || rows.keys.length !== this.size - this.saved.count || !mappable(earlier)) return;
        rmSync(from, { force: true });
        linkSync(earlier, from);
        await inWorker({
          from,
          temp,
          config: indexConfig(this.dimensions, this.graph),
          size: this.size,
          keys: rows.keys,
          vectors: rows.vectors,
        });
        if (!kept()) throw new Error('retired while saving');
        renameSync(temp, join(folder, name));
        Object.assign(this.saved, { count: this.size, maxId: this.maxId });
        retireFiles(folder, name);
      } catch {
        // unsaved: saved on close, or resumed or rebuilt on the next open, never used stale
      } finally {
        rmSync(temp, { force: true });
        rmSync(from, { force: true });
        this.saved.saving = undefined;
      }
    })();
    this.saved.saving = saving;
    return saving;
  }

  /** The `k` nearest sentence ids to `vector`, best first, with their cosine similarities (within SIMILARITY_ERROR). */
  search(vector: Float32Array, k: number): { ids: number[]; similarities: number[] } {
    if (!this.size || k <= 0) return { ids: [], similarities: [] };
    const n = Math.min(k, this.size);
    // At least efSearch deep however the index was made: usearch's search breadth is max(expansion, wanted).
    const breadth = Math.max(n, this.breadth ?? efSearch(this.size, this.connectivity));
    // A mapped file's size is fixed; an in-memory index may hold rows a later extension added (not this state's).
    const base = this.mapped ? this.index.size() : this.size;
    const found = nearest(this.index, vector, Math.min(base, breadth));
    // The appended rows' own index, searched as broadly: the k nearest of both are the k nearest of the union.
    if (this.delta?.size()) found.push(...nearest(this.delta, vector, Math.min(this.delta.size(), breadth)));
    if (this.delta) found.sort((a, b) => a.distance - b.distance);
    const best = found.slice(0, n);
    return { ids: best.map((h) => h.id), similarities: best.map((h) => 1 - h.distance) };
  }
}

/** usearch's `wanted` nearest of `vector` in `index`, nearest first. */
function nearest(index: UsearchIndex, vector: Float32Array, wanted: number): { id: number; distance: number }[] {
  if (wanted <= 0) return [];
  const m = index.search(vector, wanted, 1);
  return Array.from({ length: m.keys.length }, (_, i) => ({ id: Number(m.keys[i]), distance: m.distances[i] }));
}

/**
 * Adds the stored sentences with ids past `after` to `index`, READ_CHUNK at a time (every core adds); false when
 * `current` turned false in between (a write or close: the index is of no use).
 */
async function addStored(
  index: UsearchIndex,
  driver: SqlDriver,
  dimensions: number,
  after: number,
  current: () => boolean,
): Promise<boolean> {
  for (;;) {
    if (!current()) return false;
    const page = await readVectors(driver, after, dimensions);
    if (!current()) return false;
    if (page.keys.length) index.add(page.keys, page.vectors, 0);
    if (page.keys.length < READ_CHUNK) return true;
    after = Number(page.keys[page.keys.length - 1]);
    await new Promise((resolve) => setImmediate(resolve)); // let a lookup's message in between chunks
  }
}

/** The stored sentences with ids in (after, upTo], id order: their ids and vectors, row-major. */
async function readRange(
  driver: SqlDriver,
  after: number,
  upTo: number,
  dimensions: number,
): Promise<{ keys: BigUint64Array; vectors: Float32Array }> {
  const keys: bigint[] = [];
  const parts: Float32Array[] = [];
  for (;;) {
    const page = await readVectors(driver, after, dimensions);
    let n = 0;
    while (n < page.keys.length && Number(page.keys[n]) <= upTo) n++;
    keys.push(...page.keys.subarray(0, n));
    parts.push(page.vectors.subarray(0, n * dimensions));
    if (n < page.keys.length || page.keys.length < READ_CHUNK) break;
    after = Number(page.keys[n - 1]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const vectors = new Float32Array(keys.length * dimensions);
  let at = 0;
  for (const p of parts) {
    vectors.set(p, at);
    at += p.length;
  }
  return { keys: BigUint64Array.from(keys), vectors };
}

/**
 * A worker thread's script: the earlier file loaded, the rows added, the whole written to `temp`. usearch is an
 * N-API module, loadable in a worker; its path is resolved here, where it loaded (the .vsix's node_modules).
 */
const SAVE_WORKER = `
const { workerData: w, parentPort } = require('node:worker_threads');
const { Index } = require(w.module);
const index = new Index(w.config);
index.load(w.from);
index.add(w.keys, w.vectors, 0);
if (index.size() !== w.size) throw new Error('the saved index has ' + index.size() + ' rows, not ' + w.size);
index.save(w.temp);
parentPort.postMessage('saved');`;

function inWorker(job: {
  from: string;
  temp: string;
  config: Record<string, unknown>;
  size: number;
  keys: BigUint64Array;
  vectors: Float32Array;
}): Promise<void> {
  const workerData = {
    ...job,
    module: createRequire(__filename).resolve('usearch'),
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(SAVE_WORKER, {
      eval: true,
      workerData,
      transferList: [job.keys.buffer, job.vectors.buffer] as ArrayBuffer[],
    });
    worker.once('message', () => resolve());
    worker.once('error', reject);
    worker.once('exit', (code) => (code ? reject(new Error(`save worker exited with ${code}`)) : resolve()));
  });
}

/**
 * READ_CHUNK rows after key `after` (key order), by binary COPY: their keys and vectors, row-major. `rows`: a query of
 * (key bigint, vector) rows, the sentences by id unless given (hybrid-fusion.ts reads the sections' by it too); none
 * may be NULL. `chunk`: READ_CHUNK, so that a caller knows a shorter page is the last.
 */
export async function readVectors(
  driver: SqlDriver,
  after: number,
  dimensions: number,
  rows = 'SELECT id, embedding FROM sentences',
): Promise<{ keys: BigUint64Array; vectors: Float32Array; chunk: number }> {
  if (!driver.copyOut) throw new Error('this driver cannot copy rows out');
  const blob = await driver.copyOut(
    `COPY (SELECT * FROM (${rows}) r(id, embedding) WHERE id > ${Math.floor(after)} ORDER BY id LIMIT ${READ_CHUNK}) TO '/dev/blob' WITH (FORMAT binary)`,
  );
  const dv = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  // PostgreSQL's binary COPY: 11-byte signature, flags, extension length; each row: int16 fields, then per field
  // int32 length + bytes (bigint; pgvector: int16 dimensions, int16 0, big-endian float4s); -1 ends.
  const keys: bigint[] = [];
  const at: number[] = [];
  for (let o = 19; o + 2 <= dv.byteLength;) {
    if (dv.getInt16(o) === -1) break;
    keys.push(dv.getBigInt64(o + 6));
    at.push(o + 22);
    o += 18 + dv.getInt32(o + 14);
  }
  const vectors = new Float32Array(keys.length * dimensions);
  at.forEach((start, i) => {
    for (let j = 0; j < dimensions; j++) vectors[i * dimensions + j] = dv.getFloat32(start + 4 * j);
  });
  return { keys: BigUint64Array.from(keys), vectors, chunk: READ_CHUNK };
}
