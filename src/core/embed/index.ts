/**
 * Embedder factory. `createEmbedder({ provider: 'offline' })` needs nothing; `provider: 'neural'` runs Universal
 * Sentence Encoder Lite in a worker thread (neural.ts, no server); `provider: 'openai'` talks to any
 * OpenAI-compatible `/v1/embeddings` endpoint. Both come wrapped in the LRU cache (model + text keyed), and with
 * `cache.disk` in a per-model cache on disk (disk-cache.ts).
 * API keys come only from `options.apiKey`: the caller reads env / SecretStorage.
 */
import type { Embedder } from './types.js';
import { CachedEmbedder, type CacheOptions } from './cache.js';
import { OpenAIEmbedder } from './openai.js';
import { createOfflineEmbedder, OFFLINE_MODEL, OFFLINE_DIMENSIONS } from './offline-default.js';
import { PrefixedEmbedder, resolvePrefixes, type PrefixSetting } from './prefix.js';
import { NeuralEmbedder, NEURAL_MODEL } from './neural.js';

export { PrefixedEmbedder, PREFIX_PRESETS, resolvePrefixes, type PrefixSetting } from './prefix.js';
export { CachedEmbedder } from './cache.js';
export { OpenAIEmbedder } from './openai.js';
export { createOfflineEmbedder, OFFLINE_MODEL, OFFLINE_DIMENSIONS } from './offline-default.js';
export { NeuralEmbedder, NEURAL_MODEL, NEURAL_DIMENSIONS } from './neural.js';
export { contextualize } from './context.js';

export interface CreateEmbedderOptions {
  provider: 'offline' | 'openai' | 'neural';
  /** openai: the server's model name (required). offline, neural: optional, must be that embedder's model id. */
  model?: string;
  baseURL?: string;
  apiKey?: string;
  /** openai: sent as `dimensions`. offline: vector length (default 384; another value changes the model id). */
  dimensions?: number;
  timeoutMs?: number;
  /** Aborts every call of this embedder (e.g. on extension shutdown). */
  signal?: AbortSignal;
  /** openai: texts per request / requests in flight / retries. */
  batchSize?: number;
  concurrency?: number;
  maxRetries?: number;
  /** The in-memory LRU's budget, and (`disk`) a folder to keep openai and neural vectors in between runs. */
  cache?: CacheOptions;
  /** openai: query/document prefixes (default `auto`: the preset of a known model family, see prefix.ts). */
  prefixes?: PrefixSetting;
}

export function createEmbedder(options: CreateEmbedderOptions): CachedEmbedder | PrefixedEmbedder {
  let inner: Embedder;
  if (options.provider === 'offline') {
    inner = createOfflineEmbedder({ dimensions: options.dimensions });
    if (options.model !== undefined && options.model !== inner.model) {
      throw new Error(
        `Unknown offline embedding model "${options.model}": this version provides "${inner.model}" ` +
          `(default "${OFFLINE_MODEL}", ${OFFLINE_DIMENSIONS} dimensions). A corpus built with another offline model must be re-embedded.`,
      );
    }
  } else if (options.provider === 'neural') {
    if (options.model !== undefined && options.model !== NEURAL_MODEL) {
      throw new Error(
        `Unknown neural embedding model "${options.model}": this version provides "${NEURAL_MODEL}". A corpus built with another model must be re-embedded.`,
      );
    }
    inner = new NeuralEmbedder({ signal: options.signal, batchSize: options.batchSize });
  } else if (options.provider === 'openai') {
    if (!options.model) throw new Error('The OpenAI-compatible embedder needs a model name (e.g. text-embedding-3-small).');
    inner = new OpenAIEmbedder({
      model: options.model,
      baseURL: options.baseURL,
      apiKey: options.apiKey,
      dimensions: options.dimensions,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      batchSize: options.batchSize,
      concurrency: options.concurrency,
      maxRetries: options.maxRetries,
    });
  } else {
    throw new Error(`Unknown embedding provider "${String((options as { provider: unknown }).provider)}" (use offline, neural or openai)`);
  }
  // Offline vectors are computed faster than they are read back: only the others go to disk.
  const cached = new CachedEmbedder(inner, options.provider === 'offline' ? { ...options.cache, disk: undefined } : options.cache);
  if (options.provider !== 'openai') return cached;
  const prefixes = resolvePrefixes(options.prefixes, options.model!);
  return prefixes.query || prefixes.document ? new PrefixedEmbedder(cached, prefixes) : cached;
}
