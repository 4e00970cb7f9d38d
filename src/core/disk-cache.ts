/**
 * Records kept on disk between runs, one append-only file per namespace (an embedding model, an LLM endpoint and
 * model), so that a re-run costs no calls for what it asked before. Two users: the embedding cache
 * (embed/disk-cache.ts: vectors) and the LLM response cache (llm/cache.ts: answers).
 *
 * A record is `[16-byte SHA-256 of the key][uint32 length][length × unit bytes]`; the key is the exact request the
 * provider saw (text, or a canonical JSON of the request), so anything that changes the request misses. The index
 * (hash → offset) is read once per file, values are read on demand. Bounded: when the folder grows past `maxBytes`,
 * the least recently used files are removed, and a file past the budget on its own is cut to its newest records. A
 * torn last record (a killed process) is cut off when the file is next opened.
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

export interface DiskCacheOptions {
  /** The folder (created on first write). */
  dir: string;
  /** Budget for the whole folder in bytes (default: the user's). */
  maxBytes?: number;
}

/** What one user's records are: their files' suffix, the byte width of a length unit, and the longest sane length. */
export interface RecordKind {
  suffix: string;
  /** Bytes per length unit (4 for float32 vectors, 1 for bytes). */
  unit: number;
  /** A length above it marks a damaged file. */
  maxLength: number;
  /** The folder's budget when the options give none. */
  defaultMaxBytes: number;
}

interface Entry {
  offset: number;
  length: number;
}

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest().subarray(0, HASH_BYTES).toString('hex');
}

/** A file name for the namespace: readable, and unique by a hash of the full name. */
function fileName(namespace: string, suffix: string): string {
  const slug = namespace.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  return `${slug}-${createHash('sha256').update(namespace).digest('hex').slice(0, 12)}${suffix}`;
}

export class DiskRecordCache {
  readonly dir: string;
  readonly maxBytes: number;
  private readonly files = new Map<string, RecordFile>();

  constructor(
    options: DiskCacheOptions,
    private readonly kind: RecordKind,
  ) {
    this.dir = options.dir;
    this.maxBytes = options.maxBytes ?? kind.defaultMaxBytes;
  }

  /** The stored value of `key` under `namespace`, of `length` units (0: any length), or undefined. */
  get(namespace: string, key: string, length = 0): Buffer | undefined {
    return this.file(namespace).get(hashKey(key), length);
  }

  /** Stores values (one write per call). Failures (a read-only or full disk) are dropped: the cache is an aid. */
  put(namespace: string, entries: ReadonlyArray<readonly [key: string, value: Buffer]>): void {
    if (entries.length === 0) return;
    try {
      this.file(namespace).append(entries.map(([k, v]) => [hashKey(k), v] as const));
    } catch {
      // The values were answered; only their reuse is lost.
    }
  }

  /** Ends file handles (the cache stays usable: files reopen on the next call). */
  close(): void {
    for (const f of this.files.values()) f.close();
    this.files.clear();
  }

  private file(namespace: string): RecordFile {
    let f = this.files.get(namespace);
    if (!f) {
      const path = join(this.dir, fileName(namespace, this.kind.suffix));
      this.evict(path);
      f = new RecordFile(path, this.maxBytes, this.kind);
      this.files.set(namespace, f);
    }
    return f;
  }

  /** Keeps the folder within budget: least recently used files first, never `keep`. */
  private evict(keep: string): void {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith(this.kind.suffix));
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

/** One namespace's file: its index, read on first use, and an append descriptor. */
class RecordFile {
  private index: Map<string, Entry> | undefined;
  private fd: number | undefined;
  private size = 0;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly kind: RecordKind,
  ) {}

  get(key: string, length: number): Buffer | undefined {
    const e = this.load().get(key);
    if (!e || (length > 0 && e.length !== length)) return undefined;
    const buf = Buffer.alloc(e.length * this.kind.unit);
    if (readSync(this.fd!, buf, 0, buf.length, e.offset) !== buf.length) return undefined;
    return buf;
  }

  append(entries: ReadonlyArray<readonly [string, Buffer]>): void {
    const index = this.load();
    const { unit, maxLength } = this.kind;
    const fresh = entries
      .map(([k, v]) => [k, v, v.length / unit] as const)
      .filter(([k, , n]) => index.get(k)?.length !== n && n > 0 && n <= maxLength && Number.isInteger(n));
    if (fresh.length === 0) return;
    const buf = Buffer.alloc(fresh.reduce((s, [, v]) => s + HEAD_BYTES + v.length, 0));
    let at = 0;
    for (const [k, v, n] of fresh) {
      buf.write(k, at, 'hex');
      buf.writeUInt32LE(n, at + HASH_BYTES);
      v.copy(buf, at + HEAD_BYTES);
      at += HEAD_BYTES + v.length;
    }
    if (this.size + buf.length > this.maxBytes) this.compact(Math.max(0, Math.floor(this.maxBytes / 2) - buf.length));
    // O_APPEND: the data lands at the end even if another process appended since; re-read where it landed.
    writeSync(this.fd!, buf);
    const end = fstatSync(this.fd!).size;
    let offset = end - buf.length;
    for (const [k, v, n] of fresh) {
      index.set(k, { offset: offset + HEAD_BYTES, length: n });
      offset += HEAD_BYTES + v.length;
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
    const { unit, maxLength } = this.kind;
    mkdirSync(join(this.path, '..'), { recursive: true });
    this.fd = openSync(this.path, 'a+');
    const index = new Map<string, Entry>();
    const size = fstatSync(this.fd).size;
    const head = Buffer.alloc(HEAD_BYTES);
    let at = 0;
    while (at + HEAD_BYTES <= size) {
      if (readSync(this.fd, head, 0, HEAD_BYTES, at) !== HEAD_BYTES) break;
      const length = head.readUInt32LE(HASH_BYTES);
      if (length === 0 || length > maxLength || at + HEAD_BYTES + length * unit > size) break;
      index.set(head.toString('hex', 0, HASH_BYTES), { offset: at + HEAD_BYTES, length });
      at += HEAD_BYTES + length * unit;
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
      const n = HEAD_BYTES + e.length * this.kind.unit;
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
