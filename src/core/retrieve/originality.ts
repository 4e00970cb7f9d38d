// The originality guard: does the author's sentence nearly copy a corpus sentence? Either the embedding
// similarity is very high, or a long run of words is shared verbatim.
import { ShingleIndex } from '../text/match.js';
import type { Hit } from '../store/types.js';

export interface NearCopy {
  hit: Hit;
  /** Cosine similarity of the author's sentence and the corpus sentence. */
  similarity: number;
  /** Length in words of the longest shared run (0 when below `minRun`). */
  sharedWords: number;
}

export interface NearCopyOptions {
  /** Similarity at or above which a sentence counts as copied (default 0.92). */
  similarity?: number;
  /** Shared consecutive words that count as copied (default 8). */
  minRun?: number;
}

/** The best hit (of the matched sentences, offset 0) that the author's sentence nearly copies, if any. */
export function findNearCopy(sentence: string, hits: readonly Hit[], options: NearCopyOptions = {}): NearCopy | null {
  const minSimilarity = options.similarity ?? 0.92;
  const minRun = options.minRun ?? 8;
  for (const hit of hits) {
    const runs = new ShingleIndex([{ text: hit.sentence.text, paperId: hit.paper.id }], minRun).find(sentence);
    const sharedWords = Math.max(0, ...runs.map((r) => r.words));
    if (hit.similarity >= minSimilarity || sharedWords >= minRun) return { hit, similarity: hit.similarity, sharedWords };
  }
  return null;
}
