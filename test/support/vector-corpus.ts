// A small corpus of clustered vectors for the native vector index's tests (test/integration/native-index.test.ts and
// the child processes it starts).
import { mulberry32 } from '../../src/core/random.js';
import type { PaperInput } from '../../src/core/store/types.js';
import { DIM } from './db-contract.js';

/** Clustered unit vectors: each paper a centre, each sentence the centre plus noise (neighbours are not ties). */
export function corpus(seed: number, papers: number, prefix = 'p'): PaperInput[] {
  const u = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(u() + 1e-12)) * Math.cos(2 * Math.PI * u());
  const unit = (v: Float32Array) => {
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  };
  return Array.from({ length: papers }, (_, i) => {
    const centre = Float32Array.from({ length: DIM }, gauss);
    return {
      id: `${prefix}${i}`,
      title: `Paper ${i}`,
      year: 2000 + (i % 10),
      sentences: Array.from({ length: 40 }, (_, g) => ({
        sectionTitle: `Section ${Math.floor(g / 10)}`,
        sectionIndex: Math.floor(g / 10),
        sentenceIndex: g % 10,
        globalIndex: g,
        text: `paper ${i} sentence ${g}`,
        embedding: unit(Float32Array.from(centre, (c) => c + 1.2 * gauss())),
      })),
    };
  });
}

export function queries(seed: number, n: number): Float32Array[] {
  const u = mulberry32(seed);
  return Array.from({ length: n }, () => Float32Array.from({ length: DIM }, () => u() - 0.5));
}
