/*
 * The embedded corpus's hybrid ranking in memory: the vector side of ranking.ts hybridQuery (the native index's
 * candidates and every sentence of the 40 sections nearest the query, scored by their own similarity plus the section
 * weight times their section's), its fusion with the keyword ranking (reciprocal rank) and the per-section cap. The
 * prepared statement then only reads the hits it chose, with their context, their exact similarities and their fused
 * scores (FUSED_HITS_SQL).
 *
 * Why: that statement moved ~500 candidate rows through PGlite's WASM executor (their vectors, their sections', an
 * HNSW scan of the sections) for every hybrid lookup: at 100k sentences 5.45 of its 5.45 ms in-process, against
 * 3.10 ms with the ranking here and the 25 hits read (interleaved, one core, same queries). Like for like, one core
 * each, LanceDB's hybrid was 7.4–8.2 ms to our 9.8–10.4 (docs/benchmarks.md).
 *
 * What it holds, read once from the corpus beside the keyword index (whose rows, sections and places it shares, and
 * whose lifetime it has: any write retires both): every sentence vector in 16 bits a dimension (768 bytes a 384-d
 * sentence, 77 MB at 100k; a corpus whose vectors would pass MAX_BYTES is not held, and its statement ranks), their
 * float32 norms, and the sections' vectors in float32. The 16 bits are fixed point, each vector scaled to its largest
 * component: ~4 significant bits more than half precision for the components that weigh most, and no table to decode.
 * That moves a similarity by ~1e-6 (at most |query|₁ × the largest component / 65,534), so two candidates closer than
 * that may swap places against the statement's float32 order; the hits' similarities and scores are the statement's
 * own, computed from the stored vectors and the ranks, so what the user sees beside a hit is exact. The 40 nearest
 * sections are found by an exact scan (usearch's, native) where the statement used pgvector's HNSW index: it can only
 * find nearer ones.
 */
import type { SqlDriver } from '../driver.js';
import type { KeywordIndex } from './keyword-index.js';
import { nativeModule, readVectors } from './native-index.js';
import { SECTION_CANDIDATES } from './ranking.js';
import type { hybridTuning } from '../types.js';

/** The most sentence vectors held, in bytes (16 bits a dimension): 384-d up to ~350k sentences, 1,536-d up to ~87k. */
const MAX_BYTES = 256 * 1024 * 1024;
/** Rows quantised between two yields: a lookup waits for at most one slice (a few ms at 384-d). */
const CONVERT_SLICE = 500;
/** The 16-bit range a vector's largest component is scaled to. */
const FIXED_MAX = 32767;

/** A fused hit: its sentence id and its ranks in the vector and keyword rankings (1-based; null: not in it). */
export interface FusedHit {
  id: number;
  vectorRank: number | null;
  keywordRank: number | null;
}

const sleep = () => new Promise((resolve) => setImmediate(resolve));

export class HybridFusion {
  /** Per-lookup scratch by sentence row: which lookup made it a candidate, and its vector score. */
  private readonly stamp: Int32Array;
  private lookup = 0;
  /** Per-lookup scratch by section row: its similarity to the query, valid where sectionStamp is this lookup. */
  private readonly sectionSimilarity: Float64Array;
  private readonly sectionStamp: Int32Array;

  private constructor(
    /** The native module (its exact scan finds the nearest sections). */
    private readonly usearch: Exclude<ReturnType<typeof nativeModule>, Error>,
    private readonly keywords: KeywordIndex,
    private readonly dimensions: number,
    /** Sentence row (the keyword index's) → its vector in 16-bit fixed point, row-major, and its scale. */
    private readonly fixed: Int16Array,
    private readonly scales: Float32Array,
    /** Sentence row → its stored vector's norm (from the float32 vector). */
    private readonly norms: Float32Array,
    /** Section row (the keyword index's) → its vector, row-major; its norm. */
    private readonly sectionVectors: Float32Array,
    private readonly sectionNorms: Float64Array,
    /** Section row s's sentence rows: members[memberStart[s] … memberStart[s + 1]). */
    private readonly memberStart: Int32Array,
    private readonly members: Int32Array,
    /** Sentence row → its (paper, section_index) group: the per-section cap's partition. */
    private readonly groupOf: Int32Array,
    private readonly groups: number,
  ) {
    this.stamp = new Int32Array(norms.length);
    this.sectionSimilarity = new Float64Array(sectionNorms.length);
    this.sectionStamp = new Int32Array(sectionNorms.length);
  }

  /** Whether a corpus of `sentences` × `dimensions` is held: its 16-bit vectors fit MAX_BYTES. */
  static fits(sentences: number, dimensions: number): boolean {
    return sentences * dimensions * 2 <= MAX_BYTES;
  }

  /**
   * Reads the stored vectors of the keyword index's sentences and sections (binary COPY, in chunks that lookups
   * interleave with). undefined where `current` turns false in between (a write or close), or where the rows read are
   * not the keyword index's (a sentence or section without a vector: the statement ranks those corpora); undefined
   * at once where the native module does not load or the vectors do not fit (fits).
   */
  static async load(
    driver: SqlDriver,
    keywords: KeywordIndex,
    dimensions: number,
    current: () => boolean,
  ): Promise<HybridFusion | undefined> {
    const layout = keywords.layout;
    const size = layout.ids.length;
    const usearch = nativeModule();
    if (usearch instanceof Error || !HybridFusion.fits(size, dimensions)) return undefined;
    const D = dimensions;

    // Sections, numbered as the keyword index numbers them (paper_id, section_index order).
    const sectionVectors = new Float32Array(layout.sections * D);
    const sectionNorms = new Float64Array(layout.sections);
    let sectionsRead = 0;
    for (let after = -1; ;) {
      if (!current()) return undefined;
      const page = await readVectors(
        driver,
        after,
        D,
        `SELECT n, embedding FROM (SELECT row_number() OVER (ORDER BY paper_id, section_index) - 1 AS n, embedding FROM sections) x WHERE embedding IS NOT NULL`,
      );
      for (let i = 0; i < page.keys.length; i++) {
        const row = Number(page.keys[i]);
        if (row >= layout.sections) return undefined;
        sectionVectors.set(page.vectors.subarray(i * D, (i + 1) * D), row * D);
        sectionNorms[row] = norm(page.vectors, i * D, D);
        sectionsRead++;
      }
      if (page.keys.length < page.chunk) break;
      after = Number(page.keys[page.keys.length - 1]);
    }
    if (sectionsRead !== layout.sections) return undefined;

    // Sentences, in id order as the keyword index's rows are.
    const fixed = new Int16Array(size * D);
    const scales = new Float32Array(size);
    const norms = new Float32Array(size);
    let row = 0;
    for (let after = 0; ;) {
      if (!current()) return undefined;
      const page = await readVectors(driver, after, D);
      for (let from = 0; from < page.keys.length; from += CONVERT_SLICE) {
        const to = Math.min(page.keys.length, from + CONVERT_SLICE);
        for (let i = from; i < to; i++, row++) {
          if (row >= size || Number(page.keys[i]) !== layout.ids[row]) return undefined;
          norms[row] = norm(page.vectors, i * D, D);
          let largest = 0;
          for (let j = 0; j < D; j++) largest = Math.max(largest, Math.abs(page.vectors[i * D + j]));
          const scale = largest / FIXED_MAX || 1;
          scales[row] = scale;
          for (let j = 0; j < D; j++) fixed[row * D + j] = Math.round(page.vectors[i * D + j] / scale);
        }
        await sleep();
      }
      if (page.keys.length < page.chunk) break;
      after = Number(page.keys[page.keys.length - 1]);
    }
    if (row !== size || !current()) return undefined;

    // Section → its sentence rows (CSR), and each row's (paper, section_index) group.
    const memberStart = new Int32Array(layout.sections + 1);
    for (let r = 0; r < size; r++) if (layout.sectionOf[r] >= 0) memberStart[layout.sectionOf[r] + 1]++;
    for (let s = 0; s < layout.sections; s++) memberStart[s + 1] += memberStart[s];
    const members = new Int32Array(memberStart[layout.sections]);
    const fill = memberStart.slice(0, layout.sections);
    for (let r = 0; r < size; r++) if (layout.sectionOf[r] >= 0) members[fill[layout.sectionOf[r]]++] = r;
    const groupOf = new Int32Array(size);
    const group = new Map<string, number>();
    for (let r = 0; r < size; r++) {
      const key = `${layout.paperOf[r]} ${layout.sectionIndexOf[r]}`;
      let g = group.get(key);
      if (g === undefined) group.set(key, (g = group.size));
      groupOf[r] = g;
    }
    return new HybridFusion(
      usearch,
      keywords,
      D,
      fixed,
      scales,
      norms,
      sectionVectors,
      sectionNorms,
      memberStart,
      members,
      groupOf,
      group.size,
    );
  }

  /**
   * The best `count` hits of the hybrid ranking, best first, from the native index's vector candidates (`vectorIds`,
   * nearest first) and the keyword ranking (`keywordIds`, best first), by hybridQuery's rules; undefined where a
   * candidate is not one of its rows (the caller's statement ranks instead).
   */
  rank(
    query: Float32Array,
    vectorIds: readonly number[],
    keywordIds: readonly number[],
    t: ReturnType<typeof hybridTuning>,
    count: number,
  ): FusedHit[] | undefined {
    const D = this.dimensions;
    const stamp = ++this.lookup;
    const queryNorm = norm(query, 0, D);
    const candidates: number[] = [];
    const add = (row: number) => {
      if (this.stamp[row] === stamp) return;
      this.stamp[row] = stamp;
      candidates.push(row);
    };
    for (const id of vectorIds) {
      const row = this.keywords.rowOf(id);
      if (row < 0) return undefined;
      add(row);
    }
    const sections = this.sectionNorms.length;
    if (t.sectionWeight > 0 && sections > 0) {
      const near = this.usearch.exactSearch(this.sectionVectors, query, D, Math.min(SECTION_CANDIDATES, sections), 'cos', 1);
      for (const key of near.keys) {
        const s = Number(key);
        for (let m = this.memberStart[s]; m < this.memberStart[s + 1]; m++) add(this.members[m]);
      }
    }

    // The vector ranking: similarity + section weight × the section's similarity (0 without a section), best first.
    const sectionOf = this.keywords.layout.sectionOf;
    const ids = this.keywords.layout.ids;
    const scores = new Float64Array(candidates.length);
    candidates.forEach((row, i) => {
      const s = sectionOf[row];
      scores[i] = this.similarity(query, queryNorm, row) + t.sectionWeight * (s >= 0 ? this.sectionScore(query, queryNorm, s, stamp) : 0);
    });
    const order = candidates.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || ids[candidates[a]] - ids[candidates[b]]);

    // Reciprocal-rank fusion with the keyword ranking.
    const fused = new Map<number, FusedHit & { row: number; score: number }>();
    const hit = (row: number) => {
      let h = fused.get(row);
      if (!h) fused.set(row, (h = { id: ids[row], row, vectorRank: null, keywordRank: null, score: 0 }));
      return h;
    };
    order.slice(0, t.candidates).forEach((i, rank) => {
      const h = hit(candidates[i]);
      h.vectorRank = rank + 1;
      h.score += 1 / (t.rrfK + rank + 1);
    });
    for (let i = 0; i < keywordIds.length; i++) {
      const row = this.keywords.rowOf(keywordIds[i]);
      if (row < 0) return undefined;
      const h = hit(row);
      h.keywordRank = i + 1;
      h.score += 1 / (t.rrfK + i + 1);
    }

    // At most perSection hits of one section (none: no cap), best first.
    const taken = new Int32Array(this.groups);
    const out: FusedHit[] = [];
    for (const h of [...fused.values()].sort((a, b) => b.score - a.score || a.id - b.id)) {
      if (out.length >= count) break;
      if (t.perSection > 0 && taken[this.groupOf[h.row]]++ >= t.perSection) continue;
      out.push({ id: h.id, vectorRank: h.vectorRank, keywordRank: h.keywordRank });
    }
    return out;
  }

  /** Cosine similarity of the query to sentence row `row` (its 16-bit vector, its float32 norm). */
  private similarity(query: Float32Array, queryNorm: number, row: number): number {
    const v = this.fixed;
    const at = row * this.dimensions;
    let dot = 0;
    for (let j = 0; j < this.dimensions; j++) dot += query[j] * v[at + j];
    return (dot * this.scales[row]) / (queryNorm * this.norms[row]);
  }

  /** Section row `s`'s similarity to the query, computed once a lookup. */
  private sectionScore(query: Float32Array, queryNorm: number, s: number, stamp: number): number {
    if (this.sectionStamp[s] === stamp) return this.sectionSimilarity[s];
    const v = this.sectionVectors;
    const at = s * this.dimensions;
    let dot = 0;
    for (let j = 0; j < this.dimensions; j++) dot += query[j] * v[at + j];
    this.sectionStamp[s] = stamp;
    return (this.sectionSimilarity[s] = dot / (queryNorm * this.sectionNorms[s]));
  }
}

function norm(v: Float32Array, at: number, dimensions: number): number {
  let sum = 0;
  for (let j = 0; j < dimensions; j++) sum += v[at + j] * v[at + j];
  return Math.sqrt(sum);
}
