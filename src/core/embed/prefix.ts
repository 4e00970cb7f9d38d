/**
 * Query and document prefixes. Retrieval-trained embedding models expect to be told which side of a search a text
 * is on (nomic-embed-text: `search_query: ` / `search_document: `; E5: `query: ` / `passage: `; BGE, mxbai and
 * Arctic: an instruction before queries only); without it their similarities drop. OpenAI-compatible servers
 * (Ollama, LM Studio, vLLM) pass text through as it is, so the client adds the prefix: to sentences at ingest
 * (`document`) and to the sentence under the cursor or a search (`query`).
 */
import type { EmbedRole, Embedder } from './types.js';

export interface Prefixes {
  query: string;
  document: string;
}

/** `auto`: the preset of the model's family (none for unknown models); `none`; or explicit prefixes. */
export type PrefixSetting = 'auto' | 'none' | Prefixes;

const SEARCH_INSTRUCTION = 'Represent this sentence for searching relevant passages: ';

/** Known families, matched on the model name at the server (`nomic-embed-text:latest`, `intfloat/e5-large-v2`). */
export const PREFIX_PRESETS: ReadonlyArray<{ family: string; match: RegExp; prefixes: Prefixes }> = [
  { family: 'nomic-embed-text', match: /nomic-embed-text/i, prefixes: { query: 'search_query: ', document: 'search_document: ' } },
  // E5 (not the instruction-tuned e5-mistral, which takes a task description instead).
  { family: 'e5', match: /(^|[/:_-])(multilingual-)?e5-(small|base|large)/i, prefixes: { query: 'query: ', document: 'passage: ' } },
  { family: 'bge-en-v1.5', match: /bge-(small|base|large)-en-v1\.5/i, prefixes: { query: SEARCH_INSTRUCTION, document: '' } },
  { family: 'mxbai-embed-large', match: /mxbai-embed-large/i, prefixes: { query: SEARCH_INSTRUCTION, document: '' } },
  { family: 'snowflake-arctic-embed', match: /snowflake-arctic-embed/i, prefixes: { query: SEARCH_INSTRUCTION, document: '' } },
];

/** The prefixes a setting gives for a model name (empty strings: none). */
export function resolvePrefixes(setting: PrefixSetting | undefined, model: string): Prefixes {
  if (setting === undefined || setting === 'auto') {
    return PREFIX_PRESETS.find((p) => p.match.test(model))?.prefixes ?? { query: '', document: '' };
  }
  if (setting === 'none') return { query: '', document: '' };
  return { query: setting.query ?? '', document: setting.document ?? '' };
}

/**
 * Adds the role's prefix to every text before the inner embedder (and its cache) sees it. The corpus records the
 * model alone: a corpus is queried with the prefixes it was built with as long as the setting stays the same.
 */
export class PrefixedEmbedder implements Embedder {
  constructor(
    readonly inner: Embedder,
    readonly prefixes: Prefixes,
  ) {}

  get model(): string {
    return this.inner.model;
  }

  get dimensions(): number {
    return this.inner.dimensions;
  }

  resolveDimensions(options?: { signal?: AbortSignal }): Promise<number> {
    return this.inner.resolveDimensions?.(options) ?? Promise.resolve(this.inner.dimensions);
  }

  embed(texts: readonly string[], options: { signal?: AbortSignal; role?: EmbedRole } = {}): Promise<Float32Array[]> {
    const prefix = options.role === 'query' ? this.prefixes.query : this.prefixes.document;
    return this.inner.embed(prefix ? texts.map((t) => prefix + t) : texts, { signal: options.signal });
  }
}
