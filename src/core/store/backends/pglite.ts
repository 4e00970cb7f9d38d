// The embedded store: PGlite (PostgreSQL in WASM) with its bundled pgvector, persisted in a directory.
// PGlite is loaded lazily (dynamic import), so importing this module is cheap. Measured choices (notes/pglite.md,
// bench/store.bench.ts): sentences are bulk-loaded with BINARY COPY (text input of vectors is ~4 µs per float in
// WASM); the query vector is sent as a binary parameter through the extended protocol (saves ~1.5 ms a lookup at
// 384-d over a text parameter).
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statfsSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite' with { 'resolution-mode': 'import' };
import { vectorBinary } from '../rows.js';
import type { Row, SqlDriver, SqlTx, StagedSentence } from '../driver.js';
import { SqlCorpusStore, type SqlStoreOptions } from '../sql/store.js';
import type { GraphSettings } from '../sql/native-index.js';
import { StoreError } from '../types.js';
import { describeThrown } from '../../redact.js';
import { LOCK_FILE, fsProblem, isAlive, lockCorpus } from '../ops/lock.js';

const enc = new TextEncoder();

/**
 * PostgreSQL's buffer cache inside the WASM heap, sized to the corpus: a lookup that misses it re-reads pages through
 * PGlite's file system (~10 µs a page), and an HNSW search over offline vectors touches thousands of pages. Measured
 * (fresh process, persisted corpora): 100k offline-embedder sentences (461 MB on disk): top-25 ids
 * 23 ms at 32MB, 12 ms at 128MB (PGlite's default), 4.4 ms at 160MB, 4.8 ms at 256MB; 100k clustered synthetic:
 * 6.0 ms at 128MB, 5.2 at 192MB; the sample corpus (1k sentences) needs none of it. So: 40 % of the corpus's data
 * on disk plus 16MB, from 32MB up to 256MB (100k sentences → ~190MB). The store runs in its own process in VS
 * Code, so this memory is not the extension host's.
 */
export function sharedBuffersFor(dataBytes: number): string {
  const mb = Math.round(0.4 * (dataBytes / 2 ** 20) + 16);
  return `${Math.min(256, Math.max(32, mb))}MB`;
}

/** Bytes of table and index data in a PGlite data directory (its `base` folder, less a new database's ~24MB). */
function dataBytes(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.isFile()) total += statSync(join(d, e.name)).size;
    }
  };
  try {
    walk(join(dir, 'base'));
  } catch {
    return 0; // a new corpus
  }
  return Math.max(0, total - 24 * 2 ** 20);
}

/**
 * The write-ahead log kept no longer than a checkpoint needs it. PostgreSQL's defaults keep the segments a checkpoint
 * retires for reuse (wal_recycle, up to min_wal_size and its estimate of the next checkpoint's distance): after a
 * bulk load of 100k sentences that was 16 segments, 256 MB of a 697 MB corpus folder, kept for as long as the folder
 * exists. Off, a checkpoint deletes them; a later write creates its segment anew (16 MB, once per 16 MB of writes).
 */
const WAL_PARAMS = ['-c', 'wal_recycle=off', '-c', 'min_wal_size=32MB'];

export interface PGliteOpenOptions {
  /** shared_buffers, e.g. '32MB' (default: {@link sharedBuffersFor} the corpus's size); null keeps PGlite's default. */
  sharedBuffers?: string | null;
  /**
   * Create the corpus when the folder is missing or empty (default true). Readers (query, review, lookups) pass false:
   * a mistyped path must not leave a new corpus and its parent folders behind.
   */
  create?: boolean;
  /** How long to wait for another process that has the corpus open (default 0: fail at once with its pid). */
  lockWaitMs?: number;
  /** What this process is, for the message another opener sees. */
  owner?: string;
  /** This process closes the corpus when another opener asks (it handles SIGUSR2; see ops/lock.ts). */
  handover?: boolean;
}

/** The folder is an existing PGlite corpus (PostgreSQL writes PG_VERSION first). */
export function isCorpusFolder(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'));
}

/**
 * Checks a corpus folder before PGlite touches it, so every problem gets a sentence that names it and its fix
 * (PGlite itself says "[object Object]" for a file, "failed to initialize" for a read-only folder). Nothing is
 * created here: a new corpus is made whole elsewhere ({@link createWhole}). Returns whether `path` exists.
 */
function prepareFolder(path: string, create: boolean): boolean {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw fsProblem(path, err);
  }
  if (st && !st.isDirectory()) {
    throw new StoreError(`${path} is a file, not a corpus folder: --db takes a corpus folder, a postgres:// URL or supabase:<url>`);
  }
  if (!st && !create) throw noCorpus(path);
  // A new corpus is built beside its folder (createWhole): the parent must be writable too.
  const writable = st ? path : dirname(path);
  try {
    if (!st) mkdirSync(writable, { recursive: true });
    accessSync(writable, constants.W_OK);
  } catch (err) {
    throw fsProblem(path, err);
  }
  // PGlite writes on open (WAL, checkpoint); on a full disk it hangs instead of failing: refuse first.
  const fs = statfsSync(writable, { bigint: false });
  if (fs.bavail * fs.bsize < MIN_FREE_BYTES) throw fsProblem(path, Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
  return !!st;
}

/** Free space a corpus needs to open and write (WAL segments are 16 MB). */
const MIN_FREE_BYTES = 16 * 2 ** 20;

function noCorpus(path: string): StoreError {
  return new StoreError(
    `no corpus at ${path}: check the path (this command opens an existing corpus; \`corpus-lens ingest --db FOLDER …\` creates one)`,
  );
}

/** What a folder holds: a corpus, nothing (or only a lock), a corpus whose creation was cut short, or other files. */
type FolderState = 'corpus' | 'empty' | 'incomplete' | 'other';

/**
 * The entries of a PostgreSQL data folder. Older versions initialised a new corpus in place, and a kill before
 * PG_VERSION was written left a folder of only these: nothing was ever stored in it.
 */
const PG_ENTRY = /^(base|global|pg_[a-z_]+|postgresql(\.auto)?\.conf|pg_(hba|ident)\.conf|postmaster\.(pid|opts))$/;

function folderState(path: string): FolderState {
  if (isCorpusFolder(path)) return 'corpus';
  const entries = readdirSync(path).filter((e) => !e.startsWith(LOCK_FILE));
  if (!entries.length) return 'empty';
  return entries.every((e) => PG_ENTRY.test(e)) ? 'incomplete' : 'other';
}

/** With the lock held (no one is creating it meanwhile): the folder is a corpus, or a sentence saying why not. */
function checkContents(path: string): void {
  const state = folderState(path);
  if (state === 'corpus') return;
  if (state === 'incomplete') {
    throw new StoreError(
      `the corpus at ${path} was never finished (its creation was interrupted; it holds no papers): ` +
        `\`corpus-lens ingest --db ${path} …\` creates it again, or delete the folder`,
    );
  }
  if (state === 'other') {
    throw new StoreError(
      `${path} is not a Corpus Lens corpus (it holds other files): give --db a corpus folder, or a new or empty folder for a new corpus`,
    );
  }
  throw noCorpus(path);
}

/** Sibling names of a corpus being built, or of an unfinished one moved aside: `.NAME.corpus-lens-new-PID-…`. */
const sibling = (path: string, what: 'new' | 'old') =>
  join(dirname(path), `.${basename(path)}.corpus-lens-${what}-${process.pid}-${Date.now().toString(36)}`);

/** Removes the building folders of runs that were killed (their pid is gone). */
function sweepSiblings(path: string): void {
  const prefix = `.${basename(path)}.corpus-lens-`;
  let names: string[];
  try {
    names = readdirSync(dirname(path)).filter((n) => n.startsWith(prefix));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^(?:new|old)-(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (pid && pid !== process.pid && !isAlive(pid)) rmSync(join(dirname(path), name), { recursive: true, force: true });
  }
}

/**
 * Creates a new corpus at `path` whole or not at all. PGlite initialises a database in a hidden sibling folder
 * (seconds, dozens of files); only once it is complete and closed is it renamed into place, one atomic step. A kill
 * at any instant leaves `path` as it was (missing, empty, or an unfinished corpus of an older version) or a whole
 * corpus; a killed run's sibling is removed by the next. Two creators at once: the second rename fails, and that
 * run opens the first one's corpus.
 */
async function createWhole(
  path: string,
  state: FolderState | 'missing',
  initialise: (dir: string) => Promise<{ close(): Promise<void> }>,
): Promise<void> {
  sweepSiblings(path);
  const building = sibling(path, 'new');
  try {
    mkdirSync(building);
    const db = await initialise(building);
    await db.close();
    if (state === 'incomplete') {
      // An unfinished corpus of an older version: moved aside (one rename), replaced, then removed.
      const aside = sibling(path, 'old');
      renameSync(path, aside);
      renameSync(building, path);
      rmSync(aside, { recursive: true, force: true });
      return;
    }
    try {
      renameSync(building, path); // onto a missing or empty folder (POSIX replaces an empty directory)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EPERM') {
        if (existsSync(path) && folderState(path) !== 'empty') return; // another run created it first: open theirs
        removeEmptyFolder(path); // Windows does not rename onto an empty folder
        renameSync(building, path);
      } else throw err;
    }
  } catch (err) {
    throw err instanceof StoreError ? err : fsProblem(path, err);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/** Removes an empty folder, and a lock left in it by a process that is gone. */
function removeEmptyFolder(path: string): void {
  for (const e of readdirSync(path)) if (e.startsWith(LOCK_FILE)) unlinkSync(join(path, e));
  rmdirSync(path);
}

/** Why PGlite could not open a folder that passed prepareFolder: a write probe names disk-full / read-only cases. */
function openProblem(path: string, err: unknown): StoreError {
  const probe = join(path, `.corpus-lens-probe-${process.pid}`);
  try {
    writeFileSync(probe, Buffer.alloc(64 * 1024));
    unlinkSync(probe);
  } catch (probeErr) {
    try {
      unlinkSync(probe);
    } catch {
      /* not created */
    }
    return fsProblem(path, probeErr);
  }
  return new StoreError(
    `cannot open the corpus at ${path}: ${describeThrown(err)} (the folder may be damaged, or written by a newer Corpus Lens)`,
    { cause: err },
  );
}

/**
 * Opens (creating if needed and allowed) a PGlite database in `dir` (or in memory for `memory://`) with pgvector
 * loaded. A folder is locked for this process until the database closes (ops/lock.ts): a second process gets
 * CorpusInUseError naming this one.
 */
export async function openPGliteDatabase(dir: string, options: PGliteOpenOptions = {}): Promise<PGlite> {
  const [{ PGlite }, { vector }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-pgvector')]);
  const local = !dir.startsWith('memory://');
  const path = resolve(dir);
  const create = options.create ?? true;
  const exists = local && prepareFolder(path, create);
  const buffers = options.sharedBuffers === undefined ? sharedBuffersFor(exists ? dataBytes(path) : 0) : options.sharedBuffers;
  const settings = {
    extensions: { vector },
    startParams: [...PGlite.defaultStartParams, ...WAL_PARAMS, ...(buffers ? ['-c', `shared_buffers=${buffers}`] : [])],
  };
  if (!local) return PGlite.create(dir, settings);
  const state = exists ? folderState(path) : 'missing';
  if (create && state !== 'corpus' && state !== 'other') {
    await createWhole(path, state, async (building) => {
      try {
        return await PGlite.create(building, settings);
      } catch (err) {
        throw openProblem(dirname(building), err);
      }
    });
  }
  const lock = await lockCorpus(path, { waitMs: options.lockWaitMs, command: options.owner, handover: options.handover });
  let db: PGlite;
  try {
    checkContents(path);
  } catch (err) {
    lock.release();
    throw err;
  }
  try {
    db = await PGlite.create(path, settings);
  } catch (err) {
    lock.release();
    throw openProblem(path, err);
  }
  const close = db.close.bind(db);
  db.close = async () => {
    try {
      await close();
    } finally {
      lock.release();
    }
  };
  return db;
}

/**
 * The embedded store in `dir`, its vector lookups served by the native index where the module loads
 * (sql/native-index.ts); `nativeIndex: false` or CORPUS_LENS_NATIVE_INDEX=0 keeps pgvector's HNSW index in PGlite.
 */
export async function openPGliteStore(
  dir: string,
  options: PGliteOpenOptions &
    Pick<SqlStoreOptions, 'keywordIndex' | 'onNotice'> & { nativeIndex?: boolean; nativeGraph?: GraphSettings } = {},
): Promise<SqlCorpusStore> {
  const db = await openPGliteDatabase(dir, options);
  return pgliteStore(db, {
    ownsDatabase: true,
    keywordIndex: options.keywordIndex,
    ...((options.nativeIndex ?? process.env.CORPUS_LENS_NATIVE_INDEX !== '0')
      ? { nativeIndex: { folder: dir.startsWith('memory://') ? null : resolve(dir), graph: options.nativeGraph } }
      : {}),
    onNotice: options.onNotice ?? ((message) => process.stderr.write(`corpus-lens: ${message}\n`)),
  });
}

/** A store over an already open PGlite (tests share one per file). `close()` closes it only if it owns it. */
export function pgliteStore(
  db: PGlite,
  options: { ownsDatabase?: boolean } & Pick<SqlStoreOptions, 'keywordIndex' | 'nativeIndex' | 'onNotice'> = {},
): SqlCorpusStore {
  const { ownsDatabase, ...storeOptions } = options;
  return new SqlCorpusStore(new PGliteDriver(db, ownsDatabase ?? false), storeOptions);
}

/** Binary COPY stream of staging_sentences rows (PostgreSQL's binary copy format), written into one buffer. */
export function copyBinary(rows: readonly StagedSentence[]): Uint8Array<ArrayBuffer> {
  const texts = rows.map((r) => [r.paperId, r.sectionTitle, r.sectionNumber, r.text].map((t) => (t == null ? null : enc.encode(t))));
  let size = 19 + 2;
  rows.forEach((r, i) => {
    // 12 fields' lengths, 4 ints always written (the index columns; a null int writes its length only) and 3 nullable
    // ones counted at their widest, the vector's header and floats; the buffer is cut to what was written.
    size += 2 + 12 * 4 + 7 * 4 + 4 + 4 * r.embedding.length;
    for (const t of texts[i]) if (t) size += t.length;
  });
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  out.set([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00], 0); // flags, extension length: 0
  let o = 19;
  const text = (t: Uint8Array | null) => {
    if (!t) {
      dv.setInt32(o, -1);
      o += 4;
      return;
    }
    dv.setInt32(o, t.length);
    out.set(t, o + 4);
    o += 4 + t.length;
  };
  const int = (n: number | null | undefined) => {
    if (n == null) {
      dv.setInt32(o, -1);
      o += 4;
      return;
    }
    dv.setInt32(o, 4);
    dv.setInt32(o + 4, n);
    o += 8;
  };
  rows.forEach((r, i) => {
    const [paperId, sectionTitle, sectionNumber, body] = texts[i];
    dv.setInt16(o, 12);
    o += 2;
    text(paperId);
    text(sectionTitle);
    text(sectionNumber);
    int(r.sectionIndex);
    int(r.sentenceIndex);
    int(r.globalIndex);
    int(r.page);
    text(body);
    const e = r.embedding;
    dv.setInt32(o, 4 + 4 * e.length); // pgvector binary: int16 dim, int16 0, float4s
    dv.setInt16(o + 4, e.length);
    dv.setInt16(o + 6, 0);
    o += 8;
    for (let k = 0; k < e.length; k++, o += 4) dv.setFloat32(o, e[k]);
    int(r.lineStart);
    int(r.lineEnd);
    int(r.pageEnd);
  });
  dv.setInt16(o, -1);
  o += 2;
  return o === size ? out : out.slice(0, o);
}

/** A Postgres array literal of texts, for a text parameter: {"a","b"}. */
function arrayLiteral(values: readonly unknown[]): string {
  return `{${values.map((v) => (v == null ? 'NULL' : `"${String(v).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;
}

function paramText(v: unknown): string | null {
  if (v == null) return null;
  if (Array.isArray(v)) return arrayLiteral(v);
  return String(v);
}

interface ProtocolMessage {
  name: string;
  fields?: unknown[];
}

const dec = new TextDecoder();

class PGliteDriver implements SqlDriver {
  readonly kind = 'pglite' as const;
  private vectorOid: number | undefined;
  /** Statements prepared on this connection (lookup's prepareAs). */
  private readonly prepared = new Set<string>();
  private serialize:
    (typeof import('@electric-sql/pglite', { with: { 'resolution-mode': 'import' } }))['protocol']['serialize'] | undefined;

  constructor(
    readonly db: PGlite,
    private readonly owns: boolean,
  ) {}

  async query(sql: string, params: readonly unknown[] = []) {
    const r = await this.db.query<Row>(sql, [...params]);
    return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  async copyOut(sql: string): Promise<Uint8Array> {
    const r = await this.db.query(sql);
    return r.blob ? new Uint8Array(await r.blob.arrayBuffer()) : new Uint8Array(0);
  }

  /**
   * The lookup through the extended protocol, with the vector as a BINARY parameter (db.query only sends text).
   * Parse/Bind/Describe/Execute/Sync go to the backend as one message batch: one round trip.
   */
  async lookup(sql: string, vector: Float32Array | null, params: readonly unknown[], prepareAs?: string): Promise<Row[]> {
    if (!vector && !prepareAs) {
      const r = await this.db.query<Row>(sql, [...params]);
      return r.rows;
    }
    this.serialize ??= (await import('@electric-sql/pglite')).protocol.serialize;
    if (vector && this.vectorOid === undefined) {
      const r = await this.db.query<{ oid: number }>(`SELECT 'vector'::regtype::oid AS oid`);
      this.vectorOid = Number(r.rows[0].oid);
    }
    const s = this.serialize;
    const values = [...(vector ? [vectorBinary(vector)] : []), ...params.map(paramText)];
    const parse = !prepareAs || !this.prepared.has(prepareAs);
    const msgs = [
      ...(parse ? [s.parse({ name: prepareAs, text: sql, types: vector ? [this.vectorOid!] : [] })] : []),
      s.bind({ statement: prepareAs, values }),
      s.describe({ type: 'P' }),
      s.execute({}),
      s.sync(),
    ];
    const total = msgs.reduce((a, m) => a + m.length, 0);
    const buf = new Uint8Array(total);
    let o = 0;
    for (const m of msgs) {
      buf.set(m, o);
      o += m.length;
    }
    let result: Awaited<ReturnType<PGlite['execProtocol']>>;
    try {
      result = await this.db.runExclusive(() => this.db.execProtocol(buf, { syncToFs: false }));
    } catch (err) {
      // A failed bind may leave a parsed statement behind: drop it, so that the next lookup parses it again.
      if (parse && prepareAs) await this.db.exec(`DEALLOCATE ${prepareAs}`).catch(() => undefined);
      throw err;
    }
    if (prepareAs) this.prepared.add(prepareAs);
    let names: string[] = [];
    const rows: Row[] = [];
    for (const m of result.messages as unknown as ProtocolMessage[]) {
      if (m.name === 'rowDescription') {
        names = (m.fields as { name: string }[]).map((f) => f.name);
      } else if (m.name === 'dataRow') {
        const row: Row = {};
        const fields = m.fields ?? [];
        for (let i = 0; i < names.length; i++) {
          const v = fields[i];
          row[names[i]] = v == null ? null : typeof v === 'string' ? v : dec.decode(v as Uint8Array);
        }
        rows.push(row);
      }
    }
    return rows;
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    return this.db.transaction(async (t) => {
      const tx: SqlTx = {
        query: async (sql, params = []) => {
          const r = await t.query<Row>(sql, [...params]);
          return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
        },
        stage: async (rows) => {
          const blob = new Blob([copyBinary(rows)]);
          await t.query(`COPY staging_sentences FROM '/dev/blob' WITH (FORMAT binary)`, [], { blob });
        },
      };
      return fn(tx);
    });
  }

  async close(): Promise<void> {
    if (this.owns && !this.db.closed) await this.db.close();
  }
}
