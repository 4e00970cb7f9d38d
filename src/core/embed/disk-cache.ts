/**
 * Embedding vectors kept on disk between runs, one file per model, so that re-indexing the same papers or
 * re-running a query costs no embedding calls (CorpusStudio keeps such a disk cache too). CachedEmbedder asks
 * it after its in-memory LRU misses and tells it every vector the provider answers.
 *
 * What a vector is filed under: the model id (which names a requested size, `openai:m@512`) picks the file; the
 * exact text the provider saw picks the record, so query/document prefixes (added before the cache, prefix.ts)
 * are part of the key; each record keeps its vector's length, and a lookup for a known size takes only a
 * vector of that size. Another model, size or prefix therefore misses.
 *
 * A file is an append-only log of records `[16-byte SHA-256 of the text][uint32 length][length × float32]`; the
 * index (hash → offset) is read once per file, vectors are read on demand. Bounded: when the folder grows past
 * `maxBytes`, the least recently used model files are removed, and a file past the budget on its own is cut to
 * its newest records. A torn last record (a killed process) is cut off when the file is next opened.
 *
 * No library fitted: the npm disk caches keep one file or one JSON value per entry (cacache, flat-cache) and
 * bound nothing, or need a native module (lmdb, sqlite); this is fixed-width binary records in one file.
 * Appends are single `write` calls on an O_APPEND descriptor, so two processes adding to one file interleave
 * whole records on a local disk.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

const HASH_BYTES = 16;
const HEAD_BYTES = HASH_BYTES + 4;
/** Longest vector a record may hold: a length above it marks a damaged file (no embedding model is this wide). */
const MAX_LENGTH = 65_536;
const SUFFIX = '.vec';

export interface DiskCacheOptions {
  /** The folder (created on first write). */
  dir: string;
  /** Budget for the whole folder in bytes (default 512 MiB). */
  maxBytes?: number;
}

interface Entry {
  offset: number;
  length: number;
}

function textKey(text: string): string {
  return createHash('sha256').update(text).digest().subarray(0, HASH_BYTES).toString('hex');
}

/** A file name for the model: readable, and unique by a hash of the full id. */
function fileName(model: string): string {
  const slug = model.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  return `${slug}-${createHash('sha256').update(model).digest('hex').slice(0, 12)}${SUFFIX}`;
}

export class DiskVectorCache {
  readonly dir: string;
  readonly maxBytes: number;
  private readonly files = new Map<string, ModelFile>();

  constructor(options: DiskCacheOptions) {
    this.dir = options.dir;
    this.maxBytes = options.maxBytes ?? 512 * 1024 * 1024;
  }

  /** The stored vector of `text` under `model`, of length `dimensions` (0: any length), or undefined. */
  get(model: string, text: string, dimensions: number): Float32Array | undefined {
    return this.file(model).get(textKey(text), dimensions);
  }

  /** Stores vectors (one write per call). Failures (a read-only or full disk) are dropped: the cache is an aid. */
  put(model: string, entries: ReadonlyArray<readonly [string, Float32Array]>): void {
    if (entries.length === 0) return;
    try {
      this.file(model).append(entries.map(([t, v]) => [textKey(t), v] as const));
    } catch {
      // The vectors were answered; only their reuse is lost.
    }
  }

  /** Ends file handles (the cache stays usable: files reopen on the next call). */
  close(): void {
    for (const f of this.files.values()) f.close();
    this.files.clear();
  }

  private file(model: string): ModelFile {
    let f = this.files.get(model);
    if (!f) {
      const path = join(this.dir, fileName(model));
      this.evict(path);
      f = new ModelFile(path, this.maxBytes);
      this.files.set(model, f);
    }
    return f;
  }

  /** Keeps the folder within budget: least recently used model files first, never `keep`. */
  private evict(keep: string): void {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith(SUFFIX));
    } catch {
      return;
    }
    const files = names
      .map((n) => join(this.dir, n))
      .map((path) => ({ path, stat: statSync(path, { throwIfNoEntry: false }) }))
      .filter((f) => f.stat)
      .sort((a, b) => a.stat!.mtimeMs - b.stat!.mtimeMs);
    let total = files.reduce((s, f) => s + f.stat!.size, 0);
    for (const f of files) {
      if (total <= this.maxBytes) break;
      if (f.path === keep || [...this.files.values()].some((m) => m.path === f.path)) continue;
      try {
        unlinkSync(f.path);
        total -= f.stat!.size;
      } catch {
        // Another process removed it, or it is not ours to remove.
      }
    }
  }
}

/** One model's file: its index, read on first use, and an append descriptor. */
class ModelFile {
  private index: Map<string, Entry> | undefined;
  private fd: number | undefined;
  private size = 0;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
  ) {}

  get(key: string, dimensions: number): Float32Array | undefined {
    const e = this.load().get(key);
    if (!e || (dimensions > 0 && e.length !== dimensions)) return undefined;
    const buf = Buffer.alloc(e.length * 4);
    if (readSync(this.fd!, buf, 0, buf.length, e.offset) !== buf.length) return undefined;
    return new Float32Array(buf.buffer, buf.byteOffset, e.length).slice();
  }

  append(entries: ReadonlyArray<readonly [string, Float32Array]>): void {
    const index = this.load();
    const fresh = entries.filter(([k, v]) => index.get(k)?.length !== v.length && v.length > 0 && v.length <= MAX_LENGTH);
    if (fresh.length === 0) return;
    const buf = Buffer.alloc(fresh.reduce((s, [, v]) => s + HEAD_BYTES + v.length * 4, 0));
    let at = 0;
    for (const [k, v] of fresh) {
      buf.write(k, at, 'hex');
      buf.writeUInt32LE(v.length, at + HASH_BYTES);
      Buffer.from(v.buffer, v.byteOffset, v.byteLength).copy(buf, at + HEAD_BYTES);
      at += HEAD_BYTES + v.length * 4;
    }
    if (this.size + buf.length > this.maxBytes) this.compact(Math.max(0, Math.floor(this.maxBytes / 2) - buf.length));
    // O_APPEND: the data lands at the end even if another process appended since; re-read where it landed.
    writeSync(this.fd!, buf);
    const end = fstatSync(this.fd!).size;
    let offset = end - buf.length;
    for (const [k, v] of fresh) {
      index.set(k, { offset: offset + HEAD_BYTES, length: v.length });
      offset += HEAD_BYTES + v.length * 4;
    }
    this.size = end;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.index = undefined;
  }

  private load(): Map<string, Entry> {
    if (this.index) return this.index;
    mkdirSync(join(this.path, '..'), { recursive: true });
    this.fd = openSync(this.path, 'a+');
    const index = new Map<string, Entry>();
    const size = fstatSync(this.fd).size;
    const head = Buffer.alloc(HEAD_BYTES);
    let at = 0;
    while (at + HEAD_BYTES <= size) {
      if (readSync(this.fd, head, 0, HEAD_BYTES, at) !== HEAD_BYTES) break;
      const length = head.readUInt32LE(HASH_BYTES);
      if (length === 0 || length > MAX_LENGTH || at + HEAD_BYTES + length * 4 > size) break;
      index.set(head.toString('hex', 0, HASH_BYTES), { offset: at + HEAD_BYTES, length });
      at += HEAD_BYTES + length * 4;
    }
    // A torn or damaged tail: cut it, so that later appends stay readable.
    if (at < size) truncateSync(this.path, at);
    this.size = at;
    this.index = index;
    if (existsSync(this.path)) {
      const now = new Date();
      utimesSync(this.path, now, now); // its use, for the folder's least-recently-used eviction
    }
    return index;
  }

  /** Rewrites the file with its newest records that fit in `budget` bytes. */
  private compact(budget: number): void {
    const index = this.load();
    const kept: Array<[string, Entry]> = [];
    let bytes = 0;
    for (const [k, e] of [...index].sort((a, b) => b[1].offset - a[1].offset)) {
      const n = HEAD_BYTES + e.length * 4;
      if (bytes + n > budget) break;
      kept.push([k, e]);
      bytes += n;
    }
    kept.reverse();
    const records = kept.map(([k, e]) => [k, this.get(k, e.length)!] as const);
    truncateSync(this.path, 0);
    index.clear();
    this.size = 0;
    if (records.length) this.append(records);
  }
}
