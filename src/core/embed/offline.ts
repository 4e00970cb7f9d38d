/**
 * The offline embedder: signed feature hashing of word unigrams, word bigrams and character n-grams into a
 * fixed number of dimensions, IDF-weighted, L2-normalised. No network, no download, deterministic
 * (same text → same bits on every platform: only integer hashing and float32 sums in a fixed order).
 *
 * Why this and not GloVe: measured on the Citation-Integrity retrieval set (see test/support/retrieval-eval.ts
 * and the report in this folder's README comment in index.ts), general-domain GloVe vectors miss biomedical
 * vocabulary; hashed n-grams keep every term (acronyms, gene names, numbers) and char n-grams match
 * morphological variants ("hepatic" ~ "hepatocytes").
 */
import type { Embedder } from './types.js';
import { isStopWord } from '../text/stop-words.js';
import { rawTokens, stem } from './tokenize.js';

export interface HashEmbedderConfig {
  /** Output length (default 384). */
  dimensions: number;
  /** Weight of each word unigram (stemmed, stop words removed). */
  wordWeight: number;
  /** Weight of each bigram of adjacent content words. */
  bigramWeight: number;
  /** Total weight of a word's character n-grams (spread over its n-grams as 1/sqrt(count)). */
  charWeight: number;
  /** Character n-gram lengths, taken within `<word>` (boundary-marked). */
  charMin: number;
  charMax: number;
  /** IDF-like weight of a content word (stemmed); undefined → 1 for all. */
  idf?: (stemmedWord: string) => number;
  /** Model id recorded in the corpus. */
  model: string;
}

// 32-bit FNV-1a over a string slice, with a seed (feature type), then a murmur3 finaliser for good low bits.
function hashSlice(s: string, start: number, end: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function hashString(s: string, seed = 0): number {
  return hashSlice(s, 0, s.length, seed);
}

const SEED_WORD = 0x9e3779b9;
const SEED_BIGRAM = 0x7f4a7c15;
const SEED_CHAR = 0x27d4eb2f;

export class HashEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  constructor(readonly config: HashEmbedderConfig) {
    if (!(Number.isInteger(config.dimensions) && config.dimensions > 0)) throw new Error('dimensions must be a positive integer');
    this.model = config.model;
    this.dimensions = config.dimensions;
  }

  private add(v: Float32Array, h: number, w: number): void {
    // Low bits choose the bucket, the top bit the sign (signed hashing keeps inner products unbiased).
    const d = this.dimensions;
    v[h % d] += h & 0x80000000 ? -w : w;
  }

  /** Synchronous embedding of one text (the offline path needs no promise). */
  embedOne(text: string): Float32Array {
    const { wordWeight, bigramWeight, charWeight, charMin, charMax, idf } = this.config;
    const v = new Float32Array(this.dimensions);
    const toks = rawTokens(text);
    let prev: string | undefined;
    let prevW = 0;
    for (const raw of toks) {
      if (isStopWord(raw)) {
        prev = undefined; // bigrams do not span stop words
        continue;
      }
      const s = stem(raw);
      const w = idf ? idf(s) : 1;
      if (wordWeight !== 0) this.add(v, hashString(s, SEED_WORD), wordWeight * w);
      if (bigramWeight !== 0 && prev !== undefined) {
        this.add(v, hashString(prev + ' ' + s, SEED_BIGRAM), bigramWeight * 0.5 * (w + prevW));
      }
      prev = s;
      prevW = w;
      if (charWeight !== 0) {
        const m = '<' + raw + '>';
        const L = m.length;
        let count = 0;
        for (let n = charMin; n <= charMax; n++) if (L >= n) count += L - n + 1;
        if (count === 0) continue;
        const cw = (charWeight * w) / Math.sqrt(count);
        for (let n = charMin; n <= charMax; n++) {
          for (let i = 0; i + n <= L; i++) this.add(v, hashSlice(m, i, i + n, SEED_CHAR + n), cw);
        }
      }
    }
    let s2 = 0;
    for (let i = 0; i < v.length; i++) s2 += v[i] * v[i];
    if (s2 > 0) {
      const inv = 1 / Math.sqrt(s2);
      for (let i = 0; i < v.length; i++) v[i] *= inv;
    }
    return v;
  }

  embedSync(texts: readonly string[]): Float32Array[] {
    return texts.map((t) => this.embedOne(t));
  }

  async embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length);
    for (let i = 0; i < texts.length; i++) {
      // Large imports: check the signal now and then (embedding itself is ~µs per text).
      if ((i & 255) === 0 && options?.signal?.aborted) {
        throw options.signal.reason instanceof Error && options.signal.reason.name === 'AbortError'
          ? options.signal.reason
          : new DOMException('The embedding request was aborted', 'AbortError');
      }
      out[i] = this.embedOne(texts[i]);
    }
    if (options?.signal?.aborted) throw new DOMException('The embedding request was aborted', 'AbortError');
    return out;
  }
}
