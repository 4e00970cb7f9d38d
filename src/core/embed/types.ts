/** Which side of a search texts are on: models trained for retrieval may want a prefix for each (prefix.ts). */
export type EmbedRole = 'query' | 'document';

/** Turns texts into vectors. Every provider (offline, OpenAI-compatible) and the cache implement it. */
export interface Embedder {
  /** Model identity recorded in the corpus (`corpus_meta.embedding_model`), e.g. `openai:text-embedding-3-small`. */
  readonly model: string;
  /**
   * Vector length; recorded in the corpus and checked on every query. 0 while unknown: an OpenAI-compatible model
   * of no known size learns it from its first answer (see `resolveDimensions`).
   */
  readonly dimensions: number;
  /** Learns `dimensions` from the endpoint (one probe) when it is not known yet; absent where it is always known. */
  resolveDimensions?(options?: { signal?: AbortSignal }): Promise<number>;
  /**
   * One vector per text, in order. Rejects with an AbortError when `signal` aborts. `role` (default `document`):
   * `query` for a search's text, `document` for what is stored; only a PrefixedEmbedder tells them apart.
   */
  embed(texts: readonly string[], options?: { signal?: AbortSignal; role?: EmbedRole }): Promise<Float32Array[]>;
}
