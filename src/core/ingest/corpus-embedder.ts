/**
 * The one place where an embedder meets a corpus: its vector length is learned from the endpoint (one probe) when
 * no size is known for the model, then checked against what the corpus recorded, before anything is created or
 * written. Every path that creates or fills a corpus (ingest, import, Add Papers' fetch) starts here, so any
 * OpenAI-compatible model (Ollama's nomic-embed-text, bge-m3, a vLLM or LM Studio name) creates a corpus, and a
 * model of another size is refused with a message that names both sides.
 */
import type { Embedder } from '../embed/types.js';
import { CorpusMismatchError, type CorpusMeta, type CorpusStore, type InitOptions } from '../store/types.js';

/** An embedder whose model or vector size is not the corpus's: nothing was written. */
export class EmbedderMismatchError extends CorpusMismatchError {
  constructor(corpus: { model: string; dimensions: number }, query: { model: string; dimensions: number }) {
    super(corpus, query);
    const gives =
      corpus.dimensions !== query.dimensions
        ? `this model (${query.model}) gives ${query.dimensions}-d vectors`
        : `this model (${query.model}) is another model: its vectors do not compare with the corpus's`;
    if (!corpus.model) return; // migrated, not yet filled: the store's message (migratedSizeMessage) says it
    this.message =
      `the corpus holds ${corpus.dimensions}-d vectors from ${corpus.model}; ${gives}. ` +
      "Use the corpus's model (and the same dimensions), or another corpus for this model";
  }
}

/**
 * The embedder's vector length, probed from the endpoint if not yet known, and checked against `corpus` (the
 * corpus's recorded meta; null for a corpus yet to be created). Throws EmbedderMismatchError on another model or
 * size, and a plain Error when the endpoint answers no usable size.
 */
export async function embedderDimensions(
  embedder: Embedder,
  corpus: Pick<CorpusMeta, 'model' | 'dimensions'> | null | undefined,
  options: { signal?: AbortSignal; sample?: string } = {},
): Promise<number> {
  const dimensions = embedder.dimensions || (await probe(embedder, options));
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new Error(`the embedding model ${embedder.model} answered no vectors to learn their size from`);
  }
  if (corpus) {
    // A CorpusStudio corpus records no model ('*'): only its size is checked.
    const sameModel = !corpus.model || corpus.model === '*' || corpus.model === embedder.model;
    const sameSize = !(corpus.dimensions > 0) || corpus.dimensions === dimensions;
    if (!sameModel || !sameSize) throw new EmbedderMismatchError(corpus, { model: embedder.model, dimensions });
  }
  return dimensions;
}

/**
 * The size an endpoint answers: `sample` (a text about to be stored) is embedded as a document, so the probe's
 * answer is cached and reused; without one, the embedder's own probe.
 */
async function probe(embedder: Embedder, options: { signal?: AbortSignal; sample?: string }): Promise<number> {
  if (options.sample !== undefined) return (await embedder.embed([options.sample], { signal: options.signal }))[0]?.length ?? 0;
  return (await embedder.resolveDimensions?.({ signal: options.signal })) ?? 0;
}

/**
 * `store.init` with the embedder's model and its learned, checked size: creates a new corpus recording both
 * (corpus_meta), or returns the existing corpus's meta once the embedder is known to fit it.
 */
export async function initCorpus(
  store: CorpusStore,
  embedder: Embedder,
  options: Omit<InitOptions, 'model' | 'dimensions'> & { signal?: AbortSignal; sample?: string } = {},
): Promise<CorpusMeta> {
  const { signal, sample, ...init } = options;
  const dimensions = await embedderDimensions(embedder, await store.meta(), { signal, sample });
  return store.init({ ...init, model: embedder.model, dimensions });
}
