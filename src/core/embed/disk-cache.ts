/**
 * Embedding vectors kept on disk between runs, one file per model (the shared record cache, ../disk-cache.ts), so
 * that re-indexing the same papers or re-running a query costs no embedding calls (CorpusStudio keeps such a disk
 * cache too). CachedEmbedder asks it after its in-memory LRU misses and tells it every vector the provider answers.
 *
 * What a vector is filed under: the model id (which names a requested size, `openai:m@512`) picks the file; the
 * exact text the provider saw picks the record, so query/document prefixes (added before the cache, prefix.ts)
 * are part of the key; each record keeps its vector's length, and a lookup for a known size takes only a
 * vector of that size. Another model, size or prefix therefore misses.
 */
import { DiskRecordCache, type DiskCacheOptions, type RecordKind } from '../disk-cache.js';

export type { DiskCacheOptions };

/** float32 records; no embedding model is wider than 65,536; 512 MiB unless told. */
const VECTORS: RecordKind = { suffix: '.vec', unit: 4, maxLength: 65_536, defaultMaxBytes: 512 * 1024 * 1024 };

export class DiskVectorCache {
  private readonly records: DiskRecordCache;

  constructor(options: DiskCacheOptions) {
    this.records = new DiskRecordCache(options, VECTORS);
  }

  /** The stored vector of `text` under `model`, of length `dimensions` (0: any length), or undefined. */
  get(model: string, text: string, dimensions: number): Float32Array | undefined {
    const b = this.records.get(model, text, dimensions);
    return b && new Float32Array(b.buffer, b.byteOffset, b.length / 4).slice();
  }

  /** Stores vectors (one write per call); failures are dropped: the cache is an aid. */
  put(model: string, entries: ReadonlyArray<readonly [string, Float32Array]>): void {
    this.records.put(
      model,
      entries.map(([t, v]) => [t, Buffer.from(v.buffer, v.byteOffset, v.byteLength)] as const),
    );
  }

  /** Ends file handles (the cache stays usable: files reopen on the next call). */
  close(): void {
    this.records.close();
  }
}
