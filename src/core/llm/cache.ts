// The response cache: a chat model in front of which identical requests (same endpoint, model, messages and
// parameters) are answered from disk, so that re-running a review or a question after an edit pays only for the
// steps whose prompts changed. The records live in the shared on-disk record cache (../disk-cache.ts), one file per
// endpoint and model, bounded and least-recently-used first, as the embedding cache's do.
//
// Kept: complete answers only. Errors are never answers; a reply cut at max_tokens (`finish_reason: length`), an
// empty one, or one the caller will not use (`cacheable`, e.g. JSON that does not parse, which the caller repairs) is
// not stored, so a re-run asks again instead of replaying it. A cached answer costs zero tokens and says so
// (`usage.cached`); a streamed step receives the cached text as one delta.
import { DiskRecordCache, type DiskCacheOptions, type RecordKind } from '../disk-cache.js';
import type { ChatModel, ChatRequest, ChatResult, TokenUsage } from './chat.js';

/** UTF-8 JSON records of at most 16 MiB; 128 MiB for the folder unless told. */
const ANSWERS: RecordKind = { suffix: '.llm', unit: 1, maxLength: 16 * 1024 * 1024, defaultMaxBytes: 128 * 1024 * 1024 };

interface Stored {
  text: string;
  /** The usage of the call that answered, for the record (a cached answer reports zero). */
  usage: TokenUsage;
  finishReason?: string;
}

export interface CachedChatOptions extends DiskCacheOptions {
  /**
   * What else the answer depends on besides the request: the endpoint's host (two servers may name different models
   * alike) and the client's fixed parameters (default temperature, JSON mode).
   */
  scope: string;
}

export class CachedChat implements ChatModel {
  private readonly records: DiskRecordCache;
  private readonly namespace: string;
  readonly stats = { hits: 0, misses: 0, stored: 0 };

  constructor(
    private readonly inner: ChatModel,
    private readonly options: CachedChatOptions,
  ) {
    this.records = new DiskRecordCache(options, ANSWERS);
    this.namespace = `${options.scope} ${inner.model}`;
  }

  get model(): string {
    return this.inner.model;
  }

  async complete(req: ChatRequest): Promise<ChatResult> {
    const key = requestKey(this.options.scope, this.inner.model, req);
    const hit = this.read(key);
    if (hit) {
      this.stats.hits++;
      if (hit.text) req.onToken?.(hit.text);
      return {
        text: hit.text,
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, cached: true },
        attempts: 0,
        finishReason: hit.finishReason,
      };
    }
    this.stats.misses++;
    const r = await this.inner.complete(req);
    // Only the model asked answers under its name: a reply another model gave (a fallback inside) is not stored here.
    const complete = r.text.trim() !== '' && r.finishReason !== 'length' && !r.usage.cached && !r.usage.model;
    if (complete && (req.cacheable?.(r.text) ?? true)) {
      const stored: Stored = { text: r.text, usage: r.usage, ...(r.finishReason ? { finishReason: r.finishReason } : {}) };
      this.records.put(this.namespace, [[key, Buffer.from(JSON.stringify(stored), 'utf8')]]);
      this.stats.stored++;
    }
    return r;
  }

  private read(key: string): Stored | undefined {
    let b: Buffer | undefined;
    try {
      b = this.records.get(this.namespace, key);
    } catch {
      return undefined; // an unreadable cache folder: ask the model
    }
    if (!b) return undefined;
    try {
      const v = JSON.parse(b.toString('utf8')) as Stored;
      return typeof v.text === 'string' ? v : undefined;
    } catch {
      return undefined;
    }
  }
}

/** The exact request as a canonical string: what must be equal for an answer to be reused. */
function requestKey(scope: string, model: string, req: ChatRequest): string {
  return JSON.stringify([
    scope,
    model,
    req.messages.map((m) => [m.role, m.content]),
    req.json ?? false,
    req.maxTokens ?? null,
    req.temperature ?? null,
  ]);
}
