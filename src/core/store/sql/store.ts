// The Corpus Lens schema over a SQL connection: shared by the PGlite and the `pg` backends. The backends differ
// only in the driver (how a statement is sent, how sentences are bulk-loaded).
import { PGLITE_BUILD_MEMORY_MB } from '../ops/capacity.js';
import { SESSION_EF_SEARCH } from './lookup.js';
import { FUSED_HITS_SQL, hybridStatement, matchStatement, NATIVE_MATCH_SQL, QUERY_LEXEMES_SQL } from './ranking.js';
import { SCHEMA_VERSION, schemaSql } from './schema.js';
import { hnswIndexSql, MAX_INDEX_DIMENSIONS, vectorIndex, type VectorIndex } from './vector.js';
import type { SqlDriver, SqlTx } from '../driver.js';
import { KeywordIndex } from './keyword-index.js';
import { HybridFusion } from './hybrid-fusion.js';
import { HeldRead, markProposed, type Proposals } from '../held-read.js';
import {
  corpusState,
  fallbackNotice,
  nativeModule,
  NativeVectorIndex,
  retireFiles,
  saveAfter,
  SIMILARITY_ERROR,
  type GraphRule,
  type GraphSettings,
} from './native-index.js';
import {
  filterArgs,
  isFiltered,
  toCitedWorks,
  toElementHit,
  toHit,
  toPaperRef,
  toPaperStat,
  toSectionTitle,
  toStoredSentence,
  vectorText,
} from '../rows.js';
import { PAPER_STATS_SQL } from './health.js';
import {
  checkCompatible,
  checkPaperDimensions,
  hybridTuning,
  PAPER_DEFAULTS,
  requireMeta,
  StoreError,
  type CitedWork,
  type CorpusMeta,
  type CorpusStore,
  type ElementHit,
  type ElementInput,
  type ElementOptions,
  type Hit,
  type HybridOptions,
  type IndexPrecision,
  type InitOptions,
  type PaperRef,
  type PaperQuery,
  type PaperStat,
  type SentenceLocation,
  type StoredSentence,
  type LookupOptions,
  type PaperOptions,
  type PaperInput,
  type PaperMetadata,
  type PaperSource,
  type SourceCopy,
  type SectionTitle,
  type StoreKind,
  type WriteOptions,
  type WriteResult,
} from '../types.js';

/**
 * The server could not give a parallel index build its shared memory: pgvector reserves maintenance_work_mem in one
 * dynamic shared memory segment, which a Docker container's default 64 MB /dev/shm cannot hold (disk_full or
 * out_of_memory, "could not resize shared memory segment").
 */
function isSharedMemoryShortage(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return (e?.code === '53100' || e?.code === '53200') && /shared memory segment/i.test(e.message ?? '');
}

/** SQLSTATE 42501: the role lacks a privilege or ownership (a reader or writer role on a shared corpus). */
function isInsufficientPrivilege(err: unknown): boolean {
  return (err as { code?: string }).code === '42501';
}

const SECTIONS_HNSW = 'sections_embedding_hnsw';
const sectionsHnswSql = (v: VectorIndex) => hnswIndexSql(v, SECTIONS_HNSW, 'sections');

/** QUERY_LEXEMES_SQL as one JSON text column `q`, [web, lexemes] (a prepared lookup's values come as text). */
const QUERY_LEXEMES_JSON = `SELECT json_build_array(x.web, x.lexemes)::text AS q FROM (${QUERY_LEXEMES_SQL}) x`;

/** The corpus's vector shape, from its recorded metadata (no index_precision: a float32 corpus from before v11). */
function vectorsOf(meta: CorpusMeta): VectorIndex {
  return vectorIndex(meta.dimensions, meta.indexPrecision ?? 'float32');
}

/**
 * A new corpus's index precision on this backend: half on a PostgreSQL server (1M × 384-d: a 1.75× smaller index at
 * the same recall, no slower; docs/lab-postgres.md), float32 in PGlite (its WASM builds and searches halfvec
 * slower), half everywhere above 2,000 dimensions, where pgvector cannot build a float32 HNSW index.
 */
export function defaultIndexPrecision(kind: StoreKind, dimensions: number): IndexPrecision {
  return kind === 'pglite' && dimensions <= MAX_INDEX_DIMENSIONS.float32 ? 'float32' : 'half';
}

/** A filtered native match reads at most this many candidates before handing over to pgvector's path. */
const NATIVE_FILTER_MAX = 20_000;
/**
 * Below this many sentences a lookup scans every vector (a native corpus has no HNSW index: exact, a few ms), and no
 * native index is built: an approximate graph this small can still leave a sentence unreachable, and a corpus that
 * small must find a sentence when given its own text (seen once in the full test run on the sample corpus, never alone).
 */
const EXACT_BELOW = 2_000;

/** corpus_meta key present while a bulk load's statistics are deferred (see dropSearchIndexes). */
const STATS_STALE = 'search_stats_stale';

/**
 * The memory an index build asks for (the statement setting maintenance_work_mem). pgvector builds the HNSW graph in
 * it and, once the graph no longer fits, goes on on disk many times slower. PostgreSQL: at least 256 MB (its 64 MB
 * default spills early) but never less than the server's own setting; a parallel build reserves all of it up front,
 * so more is the administrator's to give. PGlite: enough for the graph of the embedded corpus's measured limit
 * (ops/capacity.ts, PGLITE_BUILD_MEMORY_MB); its builds are serial and allocate the graph as it grows, so a small corpus
 * uses no more. Settings in kB.
 */
export function buildMemorySql(kind: StoreKind): string {
  const floorKb = kind === 'pglite' ? PGLITE_BUILD_MEMORY_MB * 1024 : 262144;
  return `SELECT set_config('maintenance_work_mem',
  greatest((SELECT setting::bigint FROM pg_settings WHERE name = 'maintenance_work_mem'), ${floorKb})::text || 'kB', false)`;
}

/** Where a bulk load's rows land first, by binary COPY on both drivers (see SqlTx.stage). */
const STAGING_SQL = `CREATE TEMP TABLE IF NOT EXISTS staging_sentences (
  paper_id text, section_title text, section_number text, section_index int, sentence_index int,
  global_index int, page int, text text, embedding vector, line_start int, line_end int, page_end int
) ON COMMIT DELETE ROWS`;

export interface SqlStoreOptions {
  /** Hears what the store did differently from what was asked, for the user (a serial index build). */
  onNotice?: (message: string) => void;
  /**
   * Embedded corpus: load the in-memory keyword index (keyword-index.ts) on the first hybrid lookup, for a process
   * that answers many (the corpus process). A one-shot command would pay its load (2–3 s at 100k sentences) for a
   * few lookups of ~15 ms less each, so it is off unless asked for, or loaded by keywordIndex().
   */
  keywordIndex?: boolean;
  /**
   * Embedded corpus: serve vector lookups from the native vector index (native-index.ts), kept in `folder` (null: in
   * memory only), instead of pgvector's HNSW in PGlite, which is then not built. Where the native module cannot
   * load, the store says so once (onNotice) and keeps pgvector's index. `graph`: the HNSW settings of an index it
   * builds, for every size or by size (default graphFor; an index sparser than its size asks for is rebuilt, see
   * keepsGraph; the limit bench and the tests give others); a saved file keeps its own connectivity.
   */
  nativeIndex?: { folder: string | null; graph?: GraphSettings | GraphRule };
}

/** What the user is told when a parallel index build had to run serially (see isSharedMemoryShortage). */
export const SERIAL_BUILD_NOTICE =
  "the server's shared memory (/dev/shm) could not hold a parallel index build, so the indexes were built serially " +
  '(slower on many cores): give the server a larger /dev/shm (docker run --shm-size=…, compose shm_size)';

export class SqlCorpusStore implements CorpusStore {
  readonly schema = 'corpusLens' as const;
  readonly readOnly = false;
  private cachedMeta: CorpusMeta | null | undefined;
  private iterativeScanSet = false;
  /** dropSearchIndexes deferred the statistics in this session (its setting is per session, as this flag). */
  private statsDeferred = false;
  /** The venue list, until a write through this store; a minute on a server others may write to. */
  private readonly venueList: HeldRead<string[]>;
  /** The papers whose metadata a model proposed, which every hit is marked from (the panel shows the mark). */
  private readonly proposals: HeldRead<Proposals>;
  /** Bumped by every write through this store: the keyword index is of one generation of the corpus. */
  private generation = 0;
  /** Writes under way: no vector index is served or built meanwhile (it could miss what they have written so far). */
  private writes = 0;
  /** Bumped by every write that retires the native index's files (any but an append): a save begun before it is void. */
  private fileGeneration = 0;
  private closed = false;
  /**
   * The embedded corpus's in-memory keyword ranking (keyword-index.ts), or its load under way; with the native index,
   * the hybrid ranking's vectors (hybrid-fusion.ts), loaded after it and retired with it.
   */
  private keywords:
    { generation: number; index?: KeywordIndex; fusion?: HybridFusion; loading?: Promise<KeywordIndex | undefined> } | undefined;
  /** The native vector index (native-index.ts) of one generation of the corpus, or its build under way. */
  private vectors: { generation: number; index?: NativeVectorIndex; loading?: Promise<NativeVectorIndex | undefined> } | undefined;
  /** Whether this store serves vectors natively: options.nativeIndex and the module loads (decided once). */
  private native: boolean | undefined;
  /** A serial index build was reported (options.onNotice). */
  private serialBuildNoticed = false;
  /** dropSearchIndexes dropped the indexes in this session. */
  private indexesDropped = false;

  constructor(
    readonly driver: SqlDriver,
    private readonly options: SqlStoreOptions = {},
  ) {
    this.venueList = new HeldRead(
      async () => ((await this.meta()) ? (await driver.query('SELECT venue FROM list_venues()')).rows.map((r) => String(r.venue)) : []),
      driver.kind === 'pglite' ? Infinity : 60_000,
    );
    this.proposals = new HeldRead(
      async () => {
        const { rows } = await driver.query('SELECT id, metadata_proposed_by FROM papers WHERE metadata_proposed_by IS NOT NULL');
        return new Map(rows.map((r) => [String(r.id), String(r.metadata_proposed_by)]));
      },
      driver.kind === 'pglite' ? Infinity : 60_000,
    );
  }

  /** Lookup rows as hits, each paper marked with the model that proposed its metadata (null for real metadata). */
  private async hits(rows: readonly Record<string, unknown>[]): Promise<Hit[]> {
    return markProposed(rows.map(toHit), await this.proposals.get());
  }

  /** Element rows as hits, marked as `hits` marks sentences' (a made-up or proposed title says so). */
  private async elementHits(rows: readonly Record<string, unknown>[], how: 'direct' | 'linked'): Promise<ElementHit[]> {
    return markProposed(
      rows.map((r) => toElementHit(r, how)),
      await this.proposals.get(),
    );
  }

  get kind(): StoreKind {
    return this.driver.kind;
  }

  async meta(): Promise<CorpusMeta | null> {
    if (this.cachedMeta !== undefined) return this.cachedMeta;
    const exists = await this.driver.query(`SELECT to_regclass('corpus_meta') IS NOT NULL AS ok`);
    if (!exists.rows[0]?.ok) return (this.cachedMeta = null);
    const { rows } = await this.driver.query('SELECT key, value FROM corpus_meta');
    const m = new Map(rows.map((r) => [String(r.key), String(r.value)]));
    if (!m.has('dimensions')) return (this.cachedMeta = null);
    const version = Number(m.get('schema_version') ?? 1);
    const precision: IndexPrecision = m.get('index_precision') === 'half' ? 'half' : 'float32';
    if (version < Number(SCHEMA_VERSION)) await this.upgrade(Number(m.get('dimensions')), precision, version);
    else if (m.has(STATS_STALE))
      await this.refreshStats().catch((err) => {
        // A reader of a shared corpus may not recount (a writer's bulk load is under way or was killed): its
        // keyword statistics stay as they are until the owner or a writer opens the corpus.
        if (!isInsufficientPrivilege(err)) throw err;
      });
    this.cachedMeta = {
      schemaVersion: SCHEMA_VERSION,
      model: m.get('embedding_model') ?? '',
      dimensions: Number(m.get('dimensions')),
      createdAt: m.get('created_at'),
      ...(m.has('vector_context') ? { vectorContext: m.get('vector_context') } : {}),
      indexPrecision: precision,
    };
    return this.cachedMeta;
  }

  /**
   * Brings an older Corpus Lens schema up to this version in place (the schema SQL is idempotent; v2 adds the stored
   * lexemes and the BM25 statistics, computed here once; v3 the papers' source and licence; v4 the paper ranking,
   * rank_papers; v5 a hit's paper carries its citation key; v6 the faster hybrid: section and sentence rows kept
   * whole in the heap, an HNSW index on the section vectors, bounded keyword candidates — the sections are rewritten
   * here, the index built after; v7 the elements table and its lookups, nothing recounted; v8 a PDF sentence's line range, null for the rows already
   * there: those papers lose their content hash, so that the next index run reads their PDFs again; v9 a filtered
   * vector match searches with ef_search ≥ 400, the function replaced, nothing rewritten; v10 the keyword ranking
   * reads the sections of its 400 best candidates only, the function replaced; v11 the index precision, recorded as
   * float32 for the corpora before it and kept, and the exact scan of a small paper filter, functions replaced; v12
   * ef_search at least 200 above 100k sentences, lookup_ef_search replaced; v13 the venue and section filters, the
   * lookup functions replaced with two more parameters, their old signatures dropped; v14 the papers' cited works; v15 the diagram element type, the
   * elements' type check replaced, existing figures left as they are until re-read; v16 find_papers and list_venues, Ask's
   * lookups of cited works and venues, created; v17 source_copies, created empty; v18 title_key keeps the letters of every
   * script, the function replaced, nothing rewritten). A
   * database the user may not alter gets a clear error.
   */
  private async upgrade(dimensions: number, precision: IndexPrecision, from: number): Promise<void> {
    // No step changes a sentence's id or vector (v6 rewrites the sections, v8 the papers' hashes; the others create
    // tables, functions and indexes), so the native index's file stays valid: retiring it cost every corpus a full
    // rebuild on its first open after an update (~28 CPU-minutes at 1M sentences).
    return this.writing(() => this.upgradeSteps(dimensions, precision, from), 'untouched');
  }

  private async upgradeSteps(dimensions: number, precision: IndexPrecision, from: number): Promise<void> {
    try {
      const v = vectorIndex(dimensions, precision);
      // Idempotent steps: an upgrade interrupted half-way is finished by the next open.
      await this.buildIndexes(schemaSql(dimensions, precision));
      // Before v6 every section is rewritten: build its index once after, not row by row.
      if (from < 6) {
        await this.driver.exec(`DROP INDEX IF EXISTS ${SECTIONS_HNSW}; SELECT refresh_search_stats()`);
        await this.buildIndexes(sectionsHnswSql(v));
      }
      // Before v8 no sentence has lines: forgetting the content hash of the papers read from PDFs (those with pages)
      // makes the next index run read them again, with lines, instead of skipping them as unchanged.
      if (from < 8) {
        await this.driver.exec(`UPDATE papers p SET content_hash = NULL
          WHERE EXISTS (SELECT 1 FROM sentences s WHERE s.paper_id = p.id AND s.page IS NOT NULL AND s.line_start IS NULL)`);
      }
      await this.driver.query(`UPDATE corpus_meta SET value = $1 WHERE key = 'schema_version'`, [SCHEMA_VERSION]);
    } catch (err) {
      throw new StoreError(
        `this corpus uses an older Corpus Lens schema and could not be upgraded (${err instanceof Error ? err.message : String(err)}); ` +
          'run the output of `corpus-lens schema --print` as its owner',
        { cause: err },
      );
    }
  }

  async init(options: InitOptions): Promise<CorpusMeta> {
    const existing = await this.meta();
    if (existing) {
      checkCompatible(existing, options);
      // Asked for a precision the corpus does not have: refused, not silently kept (its indexes are built).
      if (options.indexPrecision && existing.indexPrecision && options.indexPrecision !== existing.indexPrecision) {
        throw new StoreError(
          `this corpus's indexes are ${existing.indexPrecision}; ${options.indexPrecision} precision applies to a new corpus only`,
        );
      }
      // A corpus its owner's migration created (`schema --print`): its first fill records the model, rows only.
      return existing.model ? existing : this.recordModel(options);
    }
    const precision = options.indexPrecision ?? (await this.migratedPrecision()) ?? defaultIndexPrecision(this.kind, options.dimensions);
    // Generated (and the dimension checked against the index's limit) before anything is written. The indexes of
    // empty tables need no parallel workers: a server that offers them anyway (a low min_parallel_table_scan_size)
    // would reserve the server's maintenance_work_mem as shared memory for each, which a Docker /dev/shm may lack.
    await this.driver.exec(`SET LOCAL max_parallel_maintenance_workers = 0; ${schemaSql(options.dimensions, precision)}`);
    return this.recordModel(options);
  }

  /** Records the model (and vector context) of a corpus that has none yet: no DDL, so a writer role may do it. */
  private async recordModel(options: InitOptions): Promise<CorpusMeta> {
    await this.driver.query(
      `INSERT INTO corpus_meta (key, value) VALUES ('schema_version', $1), ('embedding_model', $2), ('dimensions', $3),
         ('created_at', $4) ON CONFLICT (key) DO NOTHING`,
      [SCHEMA_VERSION, options.model, String(options.dimensions), new Date().toISOString()],
    );
    if (options.vectorContext) {
      await this.driver.query(`INSERT INTO corpus_meta (key, value) VALUES ('vector_context', $1) ON CONFLICT (key) DO NOTHING`, [
        options.vectorContext,
      ]);
    }
    // The native index serves this corpus's sentence vectors: pgvector's is not kept up to date row by row.
    if (this.nativeVectors()) await this.driver.exec('DROP INDEX IF EXISTS sentences_embedding_hnsw');
    this.cachedMeta = undefined;
    const meta = await this.meta();
    if (!meta) throw new StoreError('could not record the corpus metadata');
    checkCompatible(meta, options);
    return meta;
  }

  /** The precision a migration run before the first write (`corpus-lens schema --print`) recorded, if any. */
  private async migratedPrecision(): Promise<IndexPrecision | undefined> {
    const exists = await this.driver.query(`SELECT to_regclass('corpus_meta') IS NOT NULL AS ok`);
    if (!exists.rows[0]?.ok) return undefined;
    const { rows } = await this.driver.query(`SELECT value FROM corpus_meta WHERE key = 'index_precision'`);
    return rows.length ? (String(rows[0].value) as IndexPrecision) : undefined;
  }

  private checkVector(v: Float32Array, meta: CorpusMeta): void {
    if (v.length !== meta.dimensions) {
      throw new StoreError(`query embedding has ${v.length} dimensions; the corpus has ${meta.dimensions}`);
    }
  }

  /** Makes filtered HNSW scans return k rows (pgvector ≥ 0.8); set once per session. */
  private async prepareSession(): Promise<void> {
    if (this.iterativeScanSet) return;
    this.iterativeScanSet = true;
    try {
      await this.driver.exec(`SET hnsw.iterative_scan = relaxed_order; ${SESSION_EF_SEARCH}`);
    } catch {
      // Older pgvector: no iterative scans; filtered queries may return fewer rows.
    }
  }

  /**
   * Runs a write: the keyword index of the corpus before it is retired, and so is one loaded while it ran (a load
   * checks the generation between its statements). What it does to the sentences' vectors decides the native index's
   * fate. A write that only `appended` sentences keeps the index in memory and its saved file (of the corpus before the
   * write: never served for the corpus after it, and what the next open resumes from if this process dies before
   * saving) and extends it with the new rows once the write is done; meanwhile lookups scan exactly. One that left
   * them `untouched` (a schema upgrade) keeps the saved file, which the next lookup opens as before. Any other write
   * (deletions, replacements, a bulk load) retires the files too and leaves the index to a full rebuild.
   */
  private async writing<T>(write: () => Promise<T>, vectors: 'rewritten' | 'appended' | 'untouched' = 'rewritten'): Promise<T> {
    const base = vectors === 'appended' ? this.appendBase() : undefined;
    this.retire(vectors === 'rewritten');
    this.writes++;
    try {
      return await write();
    } finally {
      this.writes--;
      this.generation++;
      this.venueList.clear();
      this.proposals.clear();
      if (base && this.writes === 0) await this.extendVectorIndex(base);
    }
  }

  /**
   * Before a write: the keyword and vector indexes of the corpus as it was are retired, with the vector index's files
   * (first, so that a kill during the write leaves none to be used stale: the next open rebuilds it) unless the
   * write only appends (`files` false).
   */
  private retire(files = true): void {
    this.generation++;
    this.vectors = undefined;
    if (!files) return;
    this.fileGeneration++;
    if (this.options.nativeIndex?.folder) retireFiles(this.options.nativeIndex.folder);
  }

  /** The native index of the corpus as it is now, writable, to be extended by an appending write (see writing). */
  private appendBase(): NativeVectorIndex | undefined {
    const index = this.vectors?.generation === this.generation && this.writes === 0 ? this.vectors.index : undefined;
    return index?.writable();
  }

  /**
   * After an appending write: `base` extended with the rows it added serves the corpus as it is now, saved once
   * saveAfter(size) rows are unsaved (else on close); where it cannot be (see NativeVectorIndex.extend), the next
   * lookup starts a build as after any write.
   */
  private async extendVectorIndex(base: NativeVectorIndex): Promise<void> {
    const generation = this.generation;
    const current = () => !this.closed && this.generation === generation && this.writes === 0;
    const entry: NonNullable<typeof this.vectors> = { generation };
    this.vectors = entry;
    entry.loading = base
      .extend(this.driver, current)
      .catch(() => undefined)
      .then((index) => {
        if (index && current() && index.unsaved >= saveAfter(index.size)) {
          // Off the lookups' path (a worker writes the file): at 1M sentences a synchronous save blocked them for seconds.
          const files = this.fileGeneration;
          void index.saveBehind(this.driver, this.options.nativeIndex?.folder ?? null, () => this.fileGeneration === files);
        }
        if (this.vectors === entry && index && current()) entry.index = index;
        else if (this.vectors === entry) this.vectors = undefined; // not extended: built in full on demand
        entry.loading = undefined;
        return entry.index;
      });
    await entry.loading;
  }

  async vectorSearch(): Promise<'native' | 'pgvector'> {
    return this.nativeVectors() ? 'native' : 'pgvector';
  }

  /** Whether vector lookups go through the native index (the notice of a failed load is given once, here). */
  private nativeVectors(): boolean {
    if (this.native !== undefined) return this.native;
    if (this.kind !== 'pglite' || !this.options.nativeIndex) return (this.native = false);
    const mod = nativeModule();
    if (mod instanceof Error) this.options.onNotice?.(fallbackNotice(mod));
    return (this.native = !(mod instanceof Error));
  }

  /**
   * The native vector index of the corpus as it is now, or undefined where there is none (not this store's, a write
   * or close during its build). Its saved file is opened (memory-mapped) when it matches the corpus; otherwise it is
   * built from the stored vectors, one build at a time. With `wait` false a build under way is not waited for
   * (lookups take pgvector's path meanwhile); opening the file is.
   */
  async vectorIndex(wait = true): Promise<NativeVectorIndex | undefined> {
    if (!this.nativeVectors() || this.closed || this.writes > 0) return undefined;
    const generation = this.generation;
    if (this.vectors?.generation === generation) return this.vectors.index ?? (wait ? this.vectors.loading : undefined);
    const meta = await requireMeta(this);
    const current = () => !this.closed && this.generation === generation && this.writes === 0;
    const entry: NonNullable<typeof this.vectors> = { generation };
    this.vectors = entry;
    // A corpus under EXACT_BELOW is scanned exactly: its index would not be used (asked again after the next write).
    if ((await corpusState(this.driver)).count < EXACT_BELOW) return undefined;
    const folder = this.options.nativeIndex?.folder ?? null;
    const graph = this.options.nativeIndex?.graph;
    const saved = await NativeVectorIndex.view(this.driver, meta.dimensions, folder, graph);
    if (saved) {
      if (this.vectors === entry && current()) entry.index = saved;
      return entry.index;
    }
    entry.loading = NativeVectorIndex.build(this.driver, meta.dimensions, folder, current, graph)
      .catch(() => undefined) // a failed build: pgvector's path serves, and the next write tries again
      .then((index) => {
        if (this.vectors === entry && index && current()) entry.index = index;
        entry.loading = undefined;
        return entry.index;
      });
    return wait ? entry.loading : undefined;
  }

  /** The native index where it serves a lookup now: built (only for a corpus past EXACT_BELOW). */
  private servingIndex(): Promise<NativeVectorIndex | undefined> {
    return this.vectorIndex(false);
  }

  /** New papers only (existing ids are skipped): an append, unless the load drops and rebuilds the indexes. */
  async writePapers(papers: readonly PaperInput[], options: WriteOptions = {}): Promise<WriteResult> {
    const result = await this.writing(() => this.writeAll(papers, options), options.deferIndexes ? 'rewritten' : 'appended');
    // The native index is part of a bulk load: built (and saved) now rather than by the first lookup.
    if (options.deferIndexes) await this.vectorIndex();
    return result;
  }

  private async writeAll(papers: readonly PaperInput[], options: WriteOptions): Promise<WriteResult> {
    const meta = await requireMeta(this);
    const result: WriteResult = { papers: 0, sentences: 0, skipped: 0 };
    const total = papers.length;
    let done = 0;
    if (options.deferIndexes) await this.dropSearchIndexes();
    try {
      await this.writeEach(papers, meta, result, options, () => options.onProgress?.(++done, total));
    } finally {
      if (options.deferIndexes) await this.createSearchIndexes();
    }
    return result;
  }

  /**
   * Before a large load: drops the HNSW and full-text indexes and defers the BM25 statistics and section vectors
   * (this session's triggers skip them; `createSearchIndexes` recounts once). The corpus is marked so that a load
   * killed half-way is recounted on the next open.
   */
  async dropSearchIndexes(): Promise<void> {
    this.retire(); // a write: the in-memory indexes of the corpus before it are retired
    try {
      await this.driver.exec(`DROP INDEX IF EXISTS sentences_embedding_hnsw; DROP INDEX IF EXISTS sentences_tsv;
        DROP INDEX IF EXISTS ${SECTIONS_HNSW};
        INSERT INTO corpus_meta (key, value) VALUES ('${STATS_STALE}', 'true') ON CONFLICT (key) DO UPDATE SET value = 'true';
        SET corpus_lens.defer_stats = 'on'`);
    } catch (err) {
      // A writer role on a shared corpus does not own the indexes: it loads with them in place (the statements ran
      // as one implicit transaction, so nothing was dropped). Readers keep their index scans meanwhile.
      if (isInsufficientPrivilege(err)) return;
      throw err;
    }
    this.statsDeferred = true;
    this.indexesDropped = true;
  }

  /**
   * (Re)builds the HNSW and full-text indexes (`m`/`efConstruction`, for the sentences', default to pgvector's 16/64)
   * and deferred statistics.
   */
  async createSearchIndexes(options: { m?: number; efConstruction?: number } = {}): Promise<void> {
    await this.writing(() => this.buildSearchIndexes(options));
    // The embedded corpus has no checkpointer process (PGlite runs PostgreSQL single-user): without a checkpoint the
    // load's write-ahead log (hundreds of MB at 100k sentences) stays in the folder until the store closes.
    if (this.kind === 'pglite') await this.driver.exec('CHECKPOINT');
    // The native index is part of the load: built (and saved) now rather than by the first lookup.
    await this.vectorIndex();
  }

  private async buildSearchIndexes(options: { m?: number; efConstruction?: number }): Promise<void> {
    const v = vectorsOf(await requireMeta(this));
    const native = this.nativeVectors();
    if (!this.indexesDropped && !this.statsDeferred) {
      // Nothing dropped in this session: only a load killed with its indexes dropped needs them back, and a role
      // that does not own the table may not even run CREATE INDEX IF NOT EXISTS.
      const { rows } = await this.driver.query(
        `SELECT (${native} OR to_regclass('sentences_embedding_hnsw') IS NOT NULL) AND to_regclass('sentences_tsv') IS NOT NULL
           AND to_regclass('${SECTIONS_HNSW}') IS NOT NULL AS ok`,
      );
      if (rows[0]?.ok) return;
    }
    this.indexesDropped = false;
    const w =
      options.m || options.efConstruction ? ` WITH (m = ${options.m ?? 16}, ef_construction = ${options.efConstruction ?? 64})` : '';
    await this.buildIndexes(
      `${native ? '' : `${hnswIndexSql(v, 'sentences_embedding_hnsw', 'sentences', w)};`}
      CREATE INDEX IF NOT EXISTS sentences_tsv ON sentences USING gin (tsv)`,
    );
    if (this.statsDeferred) await this.refreshStats();
    // After the recount, which rewrites every section.
    await this.buildIndexes(sectionsHnswSql(v));
  }

  /**
   * Runs index builds (`sql`: statements) with the build memory. A server that cannot give a parallel build its shared
   * memory (see isSharedMemoryShortage; nothing was built, the statements are one implicit transaction) builds them
   * again serially, in its own memory: slower on many cores, but the corpus gets its indexes, and the user is told.
   */
  private async buildIndexes(sql: string): Promise<void> {
    const statements = `${buildMemorySql(this.kind)}; ${sql}; RESET maintenance_work_mem`;
    try {
      await this.driver.exec(statements);
    } catch (err) {
      if (!isSharedMemoryShortage(err)) throw err;
      await this.driver.exec(`SET max_parallel_maintenance_workers = 0; ${statements}; RESET max_parallel_maintenance_workers`);
      // Once per store: a load builds two or three indexes, and the server's /dev/shm is the same for each.
      if (!this.serialBuildNoticed) this.options.onNotice?.(SERIAL_BUILD_NOTICE);
      this.serialBuildNoticed = true;
    }
  }

  /** Recounts the BM25 statistics and section vectors a bulk load deferred (in this session or a killed one). */
  private async refreshStats(): Promise<void> {
    await this.driver.exec(`RESET corpus_lens.defer_stats; SELECT refresh_search_stats();
      DELETE FROM corpus_meta WHERE key = '${STATS_STALE}'`);
    this.statsDeferred = false;
  }

  /**
   * Papers are written in groups (up to ~2,000 sentences) per transaction: one staging COPY and one INSERT … SELECT
   * for the group. Each paper stays atomic (its group commits or rolls back whole); if a group fails, it is
   * retried one paper per transaction so that the failing paper is named and the others still land. Measured in
   * PGlite: one transaction per paper ≈ 1,000 sentences/s (the commit dominates); grouped ≈ 8,000–12,000.
   */
  private async writeEach(
    papers: readonly PaperInput[],
    meta: CorpusMeta,
    result: WriteResult,
    options: WriteOptions,
    progress: () => void,
  ): Promise<void> {
    checkPaperDimensions(papers, meta.dimensions);
    const groups: PaperInput[][] = [];
    let group: PaperInput[] = [];
    let size = 0;
    for (const paper of papers) {
      if (group.length && (size + paper.sentences.length > 2000 || group.length >= 100)) {
        groups.push(group);
        group = [];
        size = 0;
      }
      group.push(paper);
      size += paper.sentences.length;
    }
    if (group.length) groups.push(group);
    for (const g of groups) {
      options.signal?.throwIfAborted();
      try {
        const r = await this.writeGroup(g);
        result.papers += r.papers;
        result.sentences += r.sentences;
        result.skipped += r.skipped;
        result.elements = (result.elements ?? 0) + (r.elements ?? 0);
      } catch (err) {
        if (g.length === 1) throw new StoreError(`paper ${g[0].id}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        for (const paper of g) {
          try {
            const r = await this.writeGroup([paper]);
            result.papers += r.papers;
            result.sentences += r.sentences;
            result.skipped += r.skipped;
            result.elements = (result.elements ?? 0) + (r.elements ?? 0);
          } catch (e) {
            throw new StoreError(`paper ${paper.id}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
          }
        }
      }
      for (let i = 0; i < g.length; i++) progress();
    }
  }

  private writeGroup(papers: readonly PaperInput[]): Promise<WriteResult> {
    return this.driver.transaction(async (tx) => {
      const col = <T>(f: (p: PaperInput) => T) => papers.map(f);
      const ins = await tx.query(
        `INSERT INTO papers (id, title, authors, year, venue, doi, url, abstract, citation_key, bibtex, source_path,
           content_hash, source, license, cited_works, metadata_proposed_by)
         SELECT p.id, p.title, coalesce(a.authors, '{}'), p.year, p.venue, p.doi, p.url, p.abstract, p.citation_key,
           p.bibtex, p.source_path, p.content_hash, p.source, p.license, p.cited_works::jsonb, p.metadata_proposed_by
         FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[],
           $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
           AS p(id, title, authors_json, year, venue, doi, url, abstract, citation_key, bibtex, source_path, content_hash,
             source, license, cited_works, metadata_proposed_by)
         CROSS JOIN LATERAL (SELECT array_agg(x) AS authors FROM jsonb_array_elements_text(p.authors_json::jsonb) x) a
         ON CONFLICT (id) DO NOTHING`,
        [
          col((p) => p.id),
          col((p) => p.title ?? null),
          col((p) => JSON.stringify(p.authors ?? [])),
          col((p) => p.year ?? null),
          col((p) => p.venue ?? null),
          col((p) => p.doi ?? null),
          col((p) => p.url ?? null),
          col((p) => p.abstract ?? null),
          col((p) => p.citationKey ?? null),
          col((p) => p.bibtex ?? null),
          col((p) => p.sourcePath ?? null),
          col((p) => p.contentHash ?? null),
          col((p) => p.source ?? null),
          col((p) => p.license ?? null),
          col((p) => (p.citedWorks?.length ? JSON.stringify(p.citedWorks) : null)),
          col((p) => p.metadataProposedBy ?? null),
        ],
      );
      const rows = papers.flatMap((p) => p.sentences.map((s) => ({ ...s, paperId: p.id })));
      // In the same transaction as the sentences: a paper's elements are there whole or not at all.
      const elements = await insertElements(
        tx,
        papers.flatMap((p) => (p.elements ?? []).map((e) => ({ ...e, paperId: p.id }))),
      );
      if (!rows.length) return { papers: ins.rowCount, sentences: 0, skipped: 0, elements };
      await tx.query(STAGING_SQL);
      await tx.stage(rows);
      const moved = await tx.query(
        `INSERT INTO sentences (paper_id, section_title, section_number, section_index, sentence_index, global_index,
           page, text, embedding, line_start, line_end, page_end)
         SELECT paper_id, section_title, section_number, section_index, sentence_index, global_index, page, text,
           embedding, line_start, line_end, page_end FROM staging_sentences ON CONFLICT DO NOTHING`,
      );
      return { papers: ins.rowCount, sentences: moved.rowCount, skipped: rows.length - moved.rowCount, elements };
    });
  }

  async matchElements(embedding: Float32Array, text: string, o: ElementOptions): Promise<ElementHit[]> {
    const meta = await requireMeta(this);
    this.checkVector(embedding, meta);
    await this.prepareSession();
    const rows = await this.driver.lookup(`SELECT * FROM match_elements($1, $2, $3, $4, $5)`, embedding, [
      text,
      Math.max(0, Math.floor(o.count)),
      o.type ?? null,
      o.paperIds ? [...o.paperIds] : null,
    ]);
    return this.elementHits(rows, 'direct');
  }

  async linkedElements(sentenceIds: readonly number[], o: ElementOptions): Promise<ElementHit[]> {
    if (!sentenceIds.length) return [];
    await requireMeta(this);
    const { rows } = await this.driver.query(`SELECT * FROM linked_elements($1::bigint[], $2, $3, $4)`, [
      sentenceIds.map(String),
      Math.max(0, Math.floor(o.count)),
      o.type ?? null,
      o.paperIds ? [...o.paperIds] : null,
    ]);
    return this.elementHits(rows, 'linked');
  }

  async describeElements(rows: readonly { id: number; description: string; embedding: Float32Array }[]): Promise<number> {
    if (!rows.length) return 0;
    const meta = await requireMeta(this);
    for (const r of rows) this.checkVector(r.embedding, meta);
    const { rows: out } = await this.driver.query(`SELECT updated FROM describe_elements($1::bigint[], $2::text[], $3::text[])`, [
      rows.map((r) => String(r.id)),
      rows.map((r) => r.description.replace(/\u0000/g, '')),
      rows.map((r) => vectorText(r.embedding)),
    ]);
    return Number(out[0]?.updated ?? 0);
  }

  async listElements(o: ElementOptions & { after?: number }): Promise<ElementHit[]> {
    if (!(await this.meta())) return [];
    const { rows } = await this.driver.query(`SELECT * FROM list_elements($1, $2, $3, $4)`, [
      o.type ?? null,
      o.paperIds ? [...o.paperIds] : null,
      o.after ?? null,
      Math.max(0, Math.floor(o.count)),
    ]);
    return this.elementHits(rows, 'direct');
  }

  async matchVector(embedding: Float32Array, o: LookupOptions): Promise<Hit[]> {
    const meta = await requireMeta(this);
    this.checkVector(embedding, meta);
    await this.prepareSession();
    const [count, offset] = filterArgs(o);
    const native = await this.servingIndex();
    const hits = native && (await this.matchNative(native, embedding, o));
    if (hits) return hits;
    const rows = !isFiltered(o)
      ? await this.driver.lookup(
          matchStatement(count, vectorsOf(meta)),
          embedding,
          [o.threshold ?? null, offset],
          `corpus_lens_match_${count}`,
        )
      : await this.driver.lookup(`SELECT * FROM match_sentences($1, $2, $3, $4, $5, $6, $7, $8, $9)`, embedding, [
          o.threshold ?? null,
          ...filterArgs(o),
        ]);
    return this.hits(rows);
  }

  /**
   * The vector match from the native index: its top k, re-scored from the stored vectors and given context in one
   * prepared statement. A filter or threshold is applied to the candidates, fetched wider (×8, then ×4 each time)
   * until k pass it or NATIVE_FILTER_MAX were read; undefined then, and pgvector's path answers (match_sentences: the
   * exact scan of a small paper filter).
   */
  private async matchNative(index: NativeVectorIndex, embedding: Float32Array, o: LookupOptions): Promise<Hit[] | undefined> {
    const [count, offset, ...filters] = filterArgs(o);
    const filtered = isFiltered(o);
    for (let want = count * (filtered ? 8 : 1); ; want *= 4) {
      const found = index.search(embedding, want);
      const exhausted = found.ids.length >= index.size;
      let ids = found.ids;
      if (o.threshold != null) {
        // The candidates past those that may pass (the statement applies the threshold to the exact similarities).
        const keep = found.similarities.findIndex((s) => s < o.threshold! - SIMILARITY_ERROR);
        if (keep >= 0) ids = ids.slice(0, keep);
      }
      const rows = await this.driver.lookup(
        NATIVE_MATCH_SQL,
        embedding,
        [ids.map(String), offset, count, ...filters, o.threshold ?? null],
        'corpus_lens_native_match',
      );
      if (!filtered || rows.length >= count || exhausted || ids.length < found.ids.length) return this.hits(rows);
      if (want >= NATIVE_FILTER_MAX) return undefined;
    }
  }

  async matchKeyword(text: string, o: LookupOptions): Promise<Hit[]> {
    await requireMeta(this);
    const rows = await this.driver.lookup(`SELECT * FROM keyword_sentences($1, $2, $3, $4, $5, $6, $7, $8)`, null, [
      text,
      ...filterArgs(o),
    ]);
    return this.hits(rows);
  }

  async matchHybrid(embedding: Float32Array, text: string, o: HybridOptions): Promise<Hit[]> {
    const meta = await requireMeta(this);
    this.checkVector(embedding, meta);
    await this.prepareSession();
    const t = hybridTuning(o);
    const [count, offset] = filterArgs(o);
    const unfiltered = !isFiltered(o);
    const ranking = unfiltered ? await this.keywordRanking(text, t.candidates) : undefined;
    const native = unfiltered ? await this.servingIndex() : undefined;
    // Unfiltered (the related-work and Q&A paths' usual case): hybrid_sentences' SQL as a prepared statement, with
    // the embedded corpus's keyword ranking from memory where it is ready, and its vector candidates from the native
    // index where it serves (re-scored exactly in the statement).
    if (native) {
      const found = native.search(embedding, t.candidates).ids;
      // Both rankings in memory: the statement only reads the hits (hybrid-fusion.ts).
      const fused = ranking?.fusion?.rank(embedding, found, ranking.ids, t, count);
      if (fused) {
        const rows = await this.driver.lookup(
          FUSED_HITS_SQL,
          embedding,
          [fused.map((h) => String(h.id)), fused.map((h) => h.vectorRank), fused.map((h) => h.keywordRank), t.rrfK, offset],
          'corpus_lens_hybrid_fused',
        );
        return this.hits(rows);
      }
      const ids = found.map(String);
      const keywords = ranking ? 'given' : 'sql';
      const rows = await this.driver.lookup(
        hybridStatement(count, t.candidates, vectorsOf(meta), keywords, 'given'),
        embedding,
        [
          ranking ? ranking.ids.map(String) : text,
          offset,
          t.rrfK,
          t.sectionWeight,
          t.perSection,
          ids,
          ...(ranking ? [ranking.papers, ranking.sections] : []),
        ],
        `corpus_lens_hybrid_${keywords}_native_${count}_${t.candidates}`,
      );
      return this.hits(rows);
    }
    const rows = ranking
      ? await this.driver.lookup(
          hybridStatement(count, t.candidates, vectorsOf(meta), 'given'),
          embedding,
          [ranking.ids.map(String), offset, t.rrfK, t.sectionWeight, t.perSection, ranking.papers, ranking.sections],
          `corpus_lens_hybrid_given_${count}_${t.candidates}`,
        )
      : unfiltered
        ? await this.driver.lookup(
            hybridStatement(count, t.candidates, vectorsOf(meta)),
            embedding,
            [text, offset, t.rrfK, t.sectionWeight, t.perSection],
            `corpus_lens_hybrid_${count}_${t.candidates}`,
          )
        : await this.driver.lookup(`SELECT * FROM hybrid_sentences($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, embedding, [
            text,
            ...filterArgs(o),
            t.rrfK,
            t.candidates,
            t.sectionWeight,
            t.perSection,
          ]);
    return this.hits(rows);
  }

  /**
   * bm25_sentences' ranking of `text` (best `count` sentence ids, with their papers and section indexes for the
   * hybrid's per-section cap) from the in-memory keyword index, on the embedded corpus once the index is loaded for
   * the corpus as it is now; undefined otherwise (and for web-search syntax), and the caller ranks in SQL. With options.keywordIndex the first call starts the load (a few seconds at 100k
   * sentences, in short statements that lookups interleave with) and does not wait for it.
   */
  private async keywordRanking(
    text: string,
    count: number,
  ): Promise<{ ids: number[]; papers: string[]; sections: number[]; fusion?: HybridFusion } | undefined> {
    if (this.kind !== 'pglite') return undefined;
    if (this.keywords?.generation !== this.generation || !this.keywords.index) {
      if (this.options.keywordIndex) void this.keywordIndex().catch(() => undefined); // a failed load: SQL ranks
      return undefined;
    }
    // A prepared statement with one JSON text column: parsing and planning the statement at every call cost more than
    // running it (PGlite, 20k sentences, interleaved: p50 0.97 → 0.27 ms, CPU 2.1 → 0.6 ms a lookup).
    const [row] = await this.driver.lookup(QUERY_LEXEMES_JSON, null, [text], 'corpus_lens_query_lexemes');
    const [web, lexemes] = JSON.parse(String(row?.q ?? '[false, []]')) as [boolean, string[] | null];
    if (web) return undefined;
    const { index, fusion } = this.keywords;
    const ids = index.rank(lexemes ?? [], count);
    const places = ids.map((id) => index.placeOf(id)!); // its own ids: always found
    return {
      ids,
      papers: places.map((p) => p.paperId),
      sections: places.map((p) => p.sectionIndex),
      fusion,
    };
  }

  /**
   * The embedded corpus's keyword index for the corpus as it is now: loads it if needed (one load at a time), or
   * undefined where there is none (another backend, a write or close during the load). Lookups use it once it is
   * there (keywordRanking); benches and tests wait for it here.
   */
  async keywordIndex(): Promise<KeywordIndex | undefined> {
    if (this.kind !== 'pglite' || this.closed) return undefined;
    const generation = this.generation;
    if (this.keywords?.generation === generation) return this.keywords.index ?? this.keywords.loading;
    const current = () => !this.closed && this.generation === generation;
    const entry: NonNullable<typeof this.keywords> = { generation };
    entry.loading = (async () => {
      const index = await KeywordIndex.load(this.driver, current);
      if (this.keywords === entry && index && current()) entry.index = index;
      // Lookups rank keywords in memory from here on; the hybrid ranking's vectors follow, where the native index
      // gives the vector candidates (a corpus it serves, on a platform it loads on) and they fit (HybridFusion.fits).
      if (entry.index && this.nativeVectors() && entry.index.size >= EXACT_BELOW) {
        const meta = await requireMeta(this);
        const fusion = await HybridFusion.load(this.driver, entry.index, meta.dimensions, current).catch(() => undefined);
        if (this.keywords === entry && fusion && current()) entry.fusion = fusion;
      }
      entry.loading = undefined;
      return entry.index;
    })();
    this.keywords = entry;
    return entry.loading;
  }

  /** Loads the keyword index and the hybrid ranking's vectors (see keywordIndex) and waits for both: its size. */
  async loadKeywordIndex(): Promise<number> {
    const index = await this.keywordIndex();
    await this.keywords?.loading;
    return index?.size ?? 0;
  }

  async matchPapers(embedding: Float32Array, text: string, o: PaperOptions): Promise<Hit[]> {
    const meta = await requireMeta(this);
    this.checkVector(embedding, meta);
    await this.prepareSession();
    const rows = await this.driver.lookup(`SELECT * FROM rank_papers($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, embedding, [
      text,
      ...filterArgs(o),
      o.vectorWeight ?? PAPER_DEFAULTS.vectorWeight,
      o.candidates ?? PAPER_DEFAULTS.candidates,
    ]);
    return this.hits(rows);
  }

  async context(sentenceIds: readonly number[], offset = 0): Promise<Hit[]> {
    await requireMeta(this);
    const rows = await this.driver.lookup(`SELECT * FROM sentence_context($1::bigint[], $2)`, null, [sentenceIds.map(String), offset]);
    return this.hits(rows);
  }

  async counts(): Promise<{ papers: number; sentences: number }> {
    if (!(await this.meta())) return { papers: 0, sentences: 0 };
    const { rows } = await this.driver.query(
      'SELECT (SELECT count(*) FROM papers)::int AS papers, (SELECT count(*) FROM sentences)::int AS sentences',
    );
    return { papers: Number(rows[0].papers), sentences: Number(rows[0].sentences) };
  }

  async sources(): Promise<PaperSource[]> {
    if (!(await this.meta())) return [];
    const { rows } = await this.driver.query('SELECT id, source_path, content_hash FROM papers');
    return rows.map((r) => ({
      id: String(r.id),
      sourcePath: (r.source_path as string | null) ?? null,
      contentHash: (r.content_hash as string | null) ?? null,
    }));
  }

  async sourceCopies(): Promise<SourceCopy[]> {
    if (!(await this.meta())) return [];
    const { rows } = await this.driver.query('SELECT source_path, content_hash, paper_id FROM source_copies');
    return rows.map((r) => ({ sourcePath: String(r.source_path), contentHash: String(r.content_hash), paperId: String(r.paper_id) }));
  }

  async updateSourceCopies(record: readonly SourceCopy[], forget: readonly string[]): Promise<void> {
    if ((!record.length && !forget.length) || !(await this.meta())) return;
    // Not a write of papers or sentences (as updatePaperMetadata): no search index is retired for it.
    if (forget.length) await this.driver.query('DELETE FROM source_copies WHERE source_path = ANY($1::text[])', [forget]);
    if (!record.length) return;
    await this.driver.query(
      `INSERT INTO source_copies (source_path, content_hash, paper_id)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
       ON CONFLICT (source_path) DO UPDATE SET content_hash = excluded.content_hash, paper_id = excluded.paper_id`,
      [record.map((c) => c.sourcePath), record.map((c) => c.contentHash), record.map((c) => c.paperId)],
    );
  }

  async deletePapers(ids: readonly string[]): Promise<void> {
    if (ids.length) await this.writing(() => this.driver.query('DELETE FROM papers WHERE id = ANY($1::text[])', [ids]));
  }

  async updatePaperMetadata(id: string, m: PaperMetadata): Promise<boolean> {
    if (!(await this.meta())) return false;
    // Not a write of sentences: the keyword and vector indexes stay; only what is read about papers is read again.
    const { rows } = await this.driver.query(
      `UPDATE papers SET title = $2, authors = $3::text[], year = $4, citation_key = $5, bibtex = coalesce($6, bibtex),
         metadata_proposed_by = $7 WHERE id = $1 RETURNING id`,
      [id, m.title, m.authors, m.year, m.citationKey, m.bibtex ?? null, m.metadataProposedBy],
    );
    this.venueList.clear();
    this.proposals.clear();
    return rows.length > 0;
  }

  /**
   * One row per (paper, section), in one statement: the query of the schema's section_titles() without its paging,
   * and not a call of it, so that a corpus created before that function existed needs no upgrade.
   */
  async sectionTitles(): Promise<SectionTitle[]> {
    if (!(await this.meta())) return [];
    const { rows } = await this.driver.query(
      `SELECT paper_id, section_index, min(section_title) AS section_title FROM sentences
       GROUP BY paper_id, section_index ORDER BY paper_id, section_index`,
    );
    return rows.map(toSectionTitle);
  }

  async paperSentences(paperId: string, signal?: AbortSignal): Promise<string[]> {
    signal?.throwIfAborted();
    if (!(await this.meta())) return [];
    const { rows } = await this.driver.query(
      'SELECT text FROM sentences WHERE paper_id = $1 ORDER BY section_index, sentence_index, global_index',
      [paperId],
    );
    return rows.map((r) => String(r.text));
  }

  async citedWorks(paperIds: readonly string[]): Promise<Array<{ id: string; works: CitedWork[] }>> {
    if (!paperIds.length || !(await this.meta())) return [];
    const { rows } = await this.driver.query('SELECT id, cited_works FROM papers WHERE id = ANY($1::text[]) AND cited_works IS NOT NULL', [
      paperIds,
    ]);
    return rows.map((r) => ({ id: String(r.id), works: toCitedWorks(r.cited_works) }));
  }

  async paperBibtex(paperIds: readonly string[]): Promise<Array<{ id: string; bibtex: string }>> {
    if (!paperIds.length || !(await this.meta())) return [];
    const { rows } = await this.driver.query('SELECT id, bibtex FROM papers WHERE id = ANY($1::text[]) AND bibtex IS NOT NULL', [paperIds]);
    return rows.map((r) => ({ id: String(r.id), bibtex: String(r.bibtex) }));
  }

  async sentencePages(sentenceIds: readonly number[]): Promise<SentenceLocation[]> {
    if (!sentenceIds.length || !(await this.meta())) return [];
    const { rows } = await this.driver.query(
      'SELECT id, page, line_start, line_end, page_end FROM sentences WHERE id = ANY($1::bigint[]) AND page IS NOT NULL',
      [sentenceIds.map(String)],
    );
    const int = (v: unknown) => (v == null ? null : Number(v));
    return rows.map((r) => ({
      id: Number(r.id),
      page: Number(r.page),
      lineStart: int(r.line_start),
      lineEnd: int(r.line_end),
      pageEnd: int(r.page_end),
    }));
  }

  async paperRows(paperId: string, options: { embeddings?: boolean; signal?: AbortSignal } = {}): Promise<StoredSentence[]> {
    options.signal?.throwIfAborted();
    if (!(await this.meta())) return [];
    const { rows } = await this.driver.query(
      `SELECT id, global_index, text, section_title, page, line_start, line_end${options.embeddings ? ', embedding::text AS embedding' : ''}
         FROM sentences WHERE paper_id = $1 ORDER BY global_index`,
      [paperId],
    );
    return rows.map(toStoredSentence);
  }

  async listPapers(): Promise<PaperRef[]> {
    if (!(await this.meta())) return [];
    const { rows } = await this.driver.query(
      `SELECT id, title, authors, year, venue, doi, citation_key, metadata_proposed_by FROM papers ORDER BY id`,
    );
    return rows.map(toPaperRef);
  }

  async findPapers(query: PaperQuery): Promise<PaperRef[]> {
    if (!(await this.meta())) return [];
    const { rows } = await this.driver.query('SELECT * FROM find_papers($1::text[], $2::text[], $3::text[], $4::text[])', [
      query.dois,
      query.titles,
      query.keys,
      query.texts,
    ]);
    return rows.map(toPaperRef);
  }

  venues(): Promise<string[]> {
    return this.venueList.get();
  }

  async paperStats(): Promise<PaperStat[]> {
    if (!(await this.meta())) return [];
    const { rows } = await this.driver.query(PAPER_STATS_SQL);
    return rows.map(toPaperStat);
  }

  async close(): Promise<void> {
    this.closed = true;
    // A keyword index load ends at its next statement (see keywordIndex); let it, rather than close under it.
    await this.keywords?.loading?.catch(() => undefined);
    await this.vectors?.loading?.catch(() => undefined);
    await this.vectors?.index?.saving; // a background save reads its rows through the driver: let it end first
    // Appended rows not yet in the vector index's file: saved now, so the next open maps it rather than re-adds them.
    if (this.vectors?.generation === this.generation && this.writes === 0) {
      await this.vectors.index?.saveUnsaved(this.driver, this.options.nativeIndex?.folder ?? null, () => this.writes === 0);
    }
    this.keywords = undefined;
    this.vectors = undefined;
    return this.driver.close();
  }
}

/** Inserts element rows (one statement; vectors as pgvector text); re-importing the same positions adds nothing. */
export async function insertElements(tx: Pick<SqlTx, 'query'>, rows: readonly (ElementInput & { paperId: string })[]): Promise<number> {
  if (!rows.length) return 0;
  const col = <T>(f: (e: ElementInput & { paperId: string }) => T) => rows.map(f);
  const r = await tx.query(
    `INSERT INTO elements (paper_id, element_index, type, label, label_key, caption, content, description, section_title,
       section_index, after_sentence, page, bbox, embedding)
     SELECT e.paper_id, e.element_index, e.type, e.label, e.label_key, e.caption, e.content, e.description, e.section_title,
       e.section_index, e.after_sentence, e.page,
       CASE WHEN e.bbox IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(e.bbox::jsonb)::float8) END,
       e.embedding::vector
     FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
       $10::int[], $11::int[], $12::int[], $13::text[], $14::text[])
       AS e(paper_id, element_index, type, label, label_key, caption, content, description, section_title, section_index,
         after_sentence, page, bbox, embedding)
     ON CONFLICT DO NOTHING`,
    [
      col((e) => e.paperId),
      col((e) => e.elementIndex),
      col((e) => e.type),
      col((e) => nul(e.label)),
      col((e) => nul(e.labelKey ?? null)),
      col((e) => nul(e.caption)),
      col((e) => nul(e.content)),
      col((e) => nul(e.description ?? null)),
      col((e) => nul(e.sectionTitle)),
      col((e) => e.sectionIndex),
      col((e) => e.afterSentence),
      col((e) => e.page),
      col((e) => (e.bbox ? JSON.stringify(e.bbox) : null)),
      col((e) => vectorText(e.embedding)),
    ],
  );
  return r.rowCount;
}

/** PostgreSQL text cannot hold NUL (a PDF's text layer can). */
function nul(v: string | null): string | null {
  return v == null ? null : v.replace(/\u0000/g, '');
}
