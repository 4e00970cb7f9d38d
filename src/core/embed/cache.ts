/**
 * An `lru-cache` in front of any Embedder, keyed by model + text. Identical texts are embedded once: across
 * calls (LRU), within one call (deduplicated before the provider sees them) and across concurrent calls
 * (a text already being embedded is awaited, not requested again).
 *
 * Abort semantics: a caller whose own signal aborts rejects at once with an AbortError. If a shared in-flight
 * request fails because *another* caller aborted it, the remaining callers re-request those texts themselves.
 */
import { LRUCache } from 'lru-cache';
import type { Embedder } from './types.js';
import { abortError, throwIfAborted } from './errors.js';
import { DiskVectorCache, type DiskCacheOptions } from './disk-cache.js';

export interface CacheOptions {
  /** Approximate memory budget in bytes for cached vectors + keys (default 64 MiB). */
  maxBytes?: number;
  /** Also keep vectors on disk between runs (disk-cache.ts): a folder and its budget. */
  disk?: DiskCacheOptions;
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** Of the hits, those read from the disk cache. */
  diskHits: number;
  /** Texts that joined an in-flight request instead of sending their own. */
  shared: number;
  /** Calls made to the inner provider. */
  providerCalls: number;
  /** Texts sent to the inner provider. */
  providerTexts: number;
}

function isAbort(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

function raceAbort<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

export class CachedEmbedder implements Embedder {
  private readonly lru: LRUCache<string, Float32Array>;
  private readonly inflight = new Map<string, Promise<Float32Array>>();
  readonly stats: CacheStats = { hits: 0, misses: 0, diskHits: 0, shared: 0, providerCalls: 0, providerTexts: 0 };
  private readonly disk: DiskVectorCache | undefined;

  constructor(
    readonly inner: Embedder,
    options: CacheOptions = {},
  ) {
    this.lru = new LRUCache<string, Float32Array>({
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (v, k) => v.byteLength + k.length * 2 + 64,
    });
    this.disk = options.disk ? new DiskVectorCache(options.disk) : undefined;
  }

  get model(): string {
    return this.inner.model;
  }

  get dimensions(): number {
    return this.inner.dimensions;
  }

  async resolveDimensions(options?: { signal?: AbortSignal }): Promise<number> {
    if (!this.disk || this.inner.dimensions > 0 || !this.inner.resolveDimensions) {
      return this.inner.resolveDimensions?.(options) ?? this.inner.dimensions;
    }
    // The probe goes through the cache: an earlier run's answer on disk tells the size without a call.
    const [v] = await this.embed(['dimension probe'], options);
    return this.inner.dimensions || (v?.length ?? 0);
  }

  /** Number of cached vectors. */
  get size(): number {
    return this.lru.size;
  }

  clear(): void {
    this.lru.clear();
  }

  /**
   * Model id and vector length: the id names a requested size (`@512`), but a model of unknown size learns it from
   * its first answer, and a vector of another length must never be served for the same text. A vector is kept
   * under its own length, so the answer that taught the size is a hit afterwards.
   */
  private key(text: string, dimensions = this.inner.dimensions): string {
    return `${this.inner.model}\u0000${dimensions}\u0000${text}`;
  }

  /** A vector from the disk cache, moved into the LRU. */
  private fromDisk(text: string): Float32Array | undefined {
    const v = this.disk?.get(this.inner.model, text, this.inner.dimensions);
    if (!v) return undefined;
    this.stats.diskHits++;
    this.lru.set(this.key(text, v.length), v);
    return v;
  }

  /** Returned vectors are copies: callers may modify them without touching the cache. */
  async embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]> {
    const signal = options?.signal;
    throwIfAborted(signal);
    const out = new Array<Float32Array>(texts.length);
    const waits: Array<Promise<void>> = [];
    const missing = new Map<string, number[]>(); // text -> positions
    const joined = new Map<string, number[]>();
    for (let i = 0; i < texts.length; i++) {
      const t = texts[i];
      const k = this.key(t);
      const hit = this.lru.get(k) ?? this.fromDisk(t);
      if (hit) {
        this.stats.hits++;
        out[i] = hit.slice();
        continue;
      }
      const pos = missing.get(t) ?? joined.get(t);
      if (pos) {
        pos.push(i);
        this.stats.hits++;
        continue;
      }
      if (this.inflight.has(k)) {
        this.stats.shared++;
        joined.set(t, [i]);
      } else {
        this.stats.misses++;
        missing.set(t, [i]);
      }
    }
    if (missing.size > 0) {
      const uniq = [...missing.keys()];
      this.stats.providerCalls++;
      this.stats.providerTexts += uniq.length;
      const batch = this.inner.embed(uniq, { signal });
      if (this.disk) {
        const disk = this.disk;
        batch.then(
          (vs) =>
            disk.put(
              this.inner.model,
              uniq.map((t, j) => [t, vs[j]] as const),
            ),
          () => undefined,
        );
      }
      uniq.forEach((t, j) => {
        const k = this.key(t);
        const p = batch.then((vs) => vs[j]);
        p.catch(() => undefined); // handled by whoever awaits it
        this.inflight.set(k, p);
        const done = (): void => {
          if (this.inflight.get(k) === p) this.inflight.delete(k);
        };
        p.then((v) => {
          this.lru.set(this.key(t, v.length), v);
          done();
        }, done);
      });
      waits.push(
        raceAbort(batch, signal).then((vs) => {
          uniq.forEach((t, j) => {
            for (const i of missing.get(t)!) out[i] = vs[j].slice();
          });
        }),
      );
    }
    for (const [t, positions] of joined) {
      const p = this.inflight.get(this.key(t))!;
      waits.push(
        raceAbort(p, signal).then(
          (v) => {
            for (const i of positions) out[i] = v.slice();
          },
          async (e: unknown) => {
            // The request we joined was aborted by its own caller, not by us: ask again ourselves.
            if (isAbort(e) && !signal?.aborted) {
              const [v] = await this.embed([t], options);
              for (const i of positions) out[i] = v.slice();
              return;
            }
            throw e;
          },
        ),
      );
    }
    await Promise.all(waits);
    return out;
  }
}
