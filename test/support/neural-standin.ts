/**
 * An OpenAI-compatible `/v1/embeddings` stand-in whose vectors carry meaning: openai-standin.ts's server (same
 * wire format, logging and faults) answering with the neural embedder (Universal Sentence Encoder Lite, run
 * locally from npm), so the OpenAI path — the client, batching, prefixes, the store — is tested with vectors
 * in which a paraphrase outranks a word-overlap decoy.
 *
 * How it stands in for a real model, and its limits:
 * - A retrieval model is trained with its prefixes (nomic `search_query: ` / `search_document: `, E5 `query: ` /
 *   `passage: `); USE-lite is not, so the stand-in removes a known prefix before embedding, as the real model
 *   would read past it, and logs the text as sent (tests check the prefixes there). A model sent NO prefix is
 *   answered the same way: the stand-in cannot tell that a real model would then embed worse.
 * - Vectors are USE-lite's 512 values; a model announced at another size (`dimensions` sent, or `size` given
 *   for a model whose size the client knows, e.g. text-embedding-3-small's 1536) gets them zero-padded or cut,
 *   which keeps cosine similarities exactly (padding) but is no real model of that size.
 * - One request at a time through one worker: slow (~20–50 sentences/s on a loaded machine); small corpora only.
 */
import { NeuralEmbedder } from '../../src/core/embed/neural.js';
import { PREFIX_PRESETS } from '../../src/core/embed/prefix.js';
import { startStandin, type Standin, type StandinOptions } from './openai-standin.ts';

export interface NeuralStandin extends Standin {
  readonly embedder: NeuralEmbedder;
}

const PREFIXES = [...new Set(PREFIX_PRESETS.flatMap((p) => [p.prefixes.query, p.prefixes.document]).filter(Boolean))].sort(
  (a, b) => b.length - a.length,
);

/** The text as the model reads it: without a known query/document prefix. */
export function withoutPrefix(text: string): string {
  const p = PREFIXES.find((x) => text.startsWith(x));
  return p ? text.slice(p.length) : text;
}

export async function startNeuralStandin(options: Omit<StandinOptions, 'vectors'> & { size?: number } = {}): Promise<NeuralStandin> {
  const embedder = new NeuralEmbedder();
  const standin = await startStandin({
    ...options,
    vectors: async (inputs, _model, dimensions) => {
      const size = dimensions ?? options.size ?? embedder.dimensions;
      const vectors = await embedder.embed(inputs.map(withoutPrefix));
      return vectors.map((v) => Array.from({ length: size }, (_, i) => (i < v.length ? v[i] : 0)));
    },
  });
  const closeServer = standin.close.bind(standin);
  return Object.assign(standin, {
    embedder,
    async close() {
      await closeServer();
      await embedder.close();
    },
  });
}
