/*
 * The embedded corpus's section vectors in memory, for the hybrid lookup's nearest sections (ranking.ts
 * SECTION_CANDIDATES) where the native index serves: an exact scan in native code (usearch's exactSearch, SIMD)
 * over a float32 copy read once from the sections table.
 *
 * Why: the hybrid statement found its nearest sections with pgvector's HNSW search in PGlite's WASM, a fifth of the
 * statement's CPU (PGlite, 20k sentences, native index, interleaved A/B: 11.2 → 9.0 ms a statement with the sections
 * given, same hits). Only which sections are nearest comes from here: the statement still reads those sections' rows
 * and computes their distances, so every score is pgvector's as before; the nearest sections are the exact ones,
 * where the HNSW search was approximate. Held beside the keyword index and retired with it: loaded for one state
 * of the corpus, used only while no write has happened since (sql/store.ts). Memory: 4 bytes a dimension a section
 * (~10k sections at 100k sentences: 15 MB at 384-d).
 */
import type { SqlDriver } from '../driver.js';
import { readPaged } from './keyword-index.js';
import { nativeModule } from './native-index.js';

/** Sections read per statement while loading: lookups interleave with the reads (as the keyword index's load). */
const CHUNK = 200;

type ExactSearch = (
  dataset: Float32Array,
  query: Float32Array,
  dimensions: number,
  count: number,
  metric: string,
  threads?: number,
) => { keys: BigUint64Array };

export class SectionVectors {
  private constructor(
    private readonly papers: string[],
    private readonly indexes: Int32Array,
    private readonly vectors: Float32Array,
    private readonly dimensions: number,
    private readonly exactSearch: ExactSearch,
  ) {}

  /** Sections held (those with a vector of nonzero length: the ones a cosine HNSW index holds). */
  get size(): number {
    return this.papers.length;
  }

  /**
   * Reads every section's vector in short statements; undefined where usearch cannot load (the statement keeps
   * pgvector's search) or `current` turned false meanwhile (a write or a close: the copy would be stale).
   */
  static async load(driver: SqlDriver, dimensions: number, current: () => boolean): Promise<SectionVectors | undefined> {
    const usearch = nativeModule();
    if (usearch instanceof Error) return undefined;
    const exactSearch = (usearch as unknown as { exactSearch?: ExactSearch }).exactSearch;
    if (typeof exactSearch !== 'function') return undefined;
    const papers: string[] = [];
    const indexes: number[] = [];
    let vectors = new Float32Array(dimensions * 1024);
    const read = await readPaged(
      driver,
      `SELECT paper_id, section_index, embedding::text AS e FROM sections
       WHERE embedding IS NOT NULL AND ($1::text IS NULL OR (paper_id, section_index) > ($1, $2)) ORDER BY paper_id, section_index`,
      { first: [null, null], keyOf: (r) => [String(r.paper_id), Number(r.section_index)], chunk: CHUNK, current },
      (r) => {
        const v = JSON.parse(String(r.e)) as number[];
        if (v.length !== dimensions || !v.some((x) => x !== 0)) return;
        const at = papers.length * dimensions;
        if (at + dimensions > vectors.length) {
          const grown = new Float32Array(vectors.length * 2);
          grown.set(vectors);
          vectors = grown;
        }
        vectors.set(v, at);
        papers.push(String(r.paper_id));
        indexes.push(Number(r.section_index));
      },
    );
    if (!read) return undefined;
    return new SectionVectors(papers, Int32Array.from(indexes), vectors.slice(0, papers.length * dimensions), dimensions, exactSearch);
  }

  /** The `k` sections nearest to `query` by cosine distance, as (paper id, section index) pairs. */
  nearest(query: Float32Array, k: number): { papers: string[]; indexes: number[] } {
    const n = Math.min(k, this.size);
    if (n <= 0) return { papers: [], indexes: [] };
    const { keys } = this.exactSearch(this.vectors, query, this.dimensions, n, 'cos', 1);
    const rows = [...keys].map(Number);
    return { papers: rows.map((r) => this.papers[r]), indexes: rows.map((r) => this.indexes[r]) };
  }
}
