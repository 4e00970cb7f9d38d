/** Turns texts into vectors. Every provider (offline, OpenAI-compatible) and the cache implement it. */
export interface Embedder {
  /** Model identity recorded in the corpus (`corpus_meta.embedding_model`), e.g. `openai:text-embedding-3-small`. */
  readonly model: string;
  /** Vector length; recorded in the corpus and checked on every query. */
  readonly dimensions: number;
  /** One vector per text, in order. Rejects with an AbortError when `signal` aborts. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}
