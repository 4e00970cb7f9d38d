/**
 * The default offline embedder: the configuration chosen by measurement on the Citation-Integrity retrieval
 * set (table in test/unit/core/embed/embed-retrieval.test.ts and the session report):
 *   - word unigrams (stemmed, stop words removed) + character 3–5-grams within `<word>`, equal total weight;
 *     word bigrams did not help;
 *   - each word's features weighted by sqrt(IDF) from general English (SUBTLEX-US counts, generated at build
 *     time by scripts/build-offline-idf.ts): a fixed table, so every corpus and every query share one
 *     embedder, and nothing is fitted on the evaluation data or on the user's corpus;
 *   - 384 dimensions, signed feature hashing, L2-normalised.
 * Changing anything here changes vectors: bump the version in the model id.
 */
import { HashEmbedder, type HashEmbedderConfig } from './offline.js';
import { OFFLINE_IDF_GROUPS, OFFLINE_IDF_MAX } from './offline-idf.generated.js';

export const OFFLINE_DIMENSIONS = 384;
export const OFFLINE_MODEL = 'corpus-lens-offline-hash-v1';

let idfTable: Map<string, number> | undefined;

/** sqrt-IDF weight of a stemmed word (general-English table; unlisted words get the maximum). */
export function offlineWordWeight(stemmed: string): number {
  if (!idfTable) {
    idfTable = new Map();
    for (const [w, words] of Object.entries(OFFLINE_IDF_GROUPS)) {
      const weight = Number(w);
      for (const s of words.split(' ')) idfTable.set(s, weight);
    }
  }
  return idfTable.get(stemmed) ?? OFFLINE_IDF_MAX;
}

export const OFFLINE_CONFIG: Omit<HashEmbedderConfig, 'dimensions' | 'model'> = {
  wordWeight: 1,
  bigramWeight: 0,
  charWeight: 1,
  charMin: 3,
  charMax: 5,
  idf: offlineWordWeight,
};

/** The offline embedder; a non-default dimension gets its own model id (`…-d<dimensions>`). */
export function createOfflineEmbedder(options: { dimensions?: number } = {}): HashEmbedder {
  const dimensions = options.dimensions ?? OFFLINE_DIMENSIONS;
  const model = dimensions === OFFLINE_DIMENSIONS ? OFFLINE_MODEL : `${OFFLINE_MODEL}-d${dimensions}`;
  return new HashEmbedder({ ...OFFLINE_CONFIG, dimensions, model });
}
