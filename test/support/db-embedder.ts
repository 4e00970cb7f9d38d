// A small deterministic embedder for store tests: words (lower-cased, length ≥ 2) hashed into signed buckets,
// L2-normalised. Texts that share words are similar; texts that share none are near-orthogonal.
import type { Embedder } from '../../src/core/embed/types.js';

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function hashEmbed(text: string, dimensions: number): Float32Array {
  const v = new Float32Array(dimensions);
  for (const w of text.toLowerCase().match(/[a-z0-9]{2,}/g) ?? []) {
    const h = fnv1a(w);
    v[h % dimensions] += h & 0x80000000 ? -1 : 1;
  }
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

export class HashEmbedder implements Embedder {
  calls = 0;
  constructor(
    readonly dimensions = 64,
    readonly model = `test-hash-${dimensions}`,
  ) {}
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++;
    return texts.map((t) => hashEmbed(t, this.dimensions));
  }
}
