/**
 * OpenAI-compatible embedding provider (OpenAI, Voyage, Ollama `/v1`, vLLM, LM Studio, …) on the `openai`
 * package. The client's own retries are off (`maxRetries: 0`); this module batches, bounds concurrency,
 * retries the one retry policy's statuses (net/retry.ts: 429, 5xx …, as the chat client does) and timeouts with
 * exponential backoff + jitter honouring `retry-after-ms` / `retry-after` (capped), validates every response and
 * L2-normalises the vectors.
 *
 * Compatibility choices: `dimensions` is sent only when configured (many servers reject it);
 * `encoding_format: 'float'` is always sent (some servers reject base64, and the `openai` client asks for
 * base64 by default); a server that answers base64 anyway is decoded. The API key comes only from the
 * options (the caller reads env or SecretStorage); the client is kept from reading OPENAI_* variables.
 */
import OpenAI from 'openai';
import { retryAfterMs } from '../net/retry-after.js';
import { isRetryableStatus, retryWaitMs } from '../net/retry.js';
import type { Embedder } from './types.js';
import { EmbeddingError, abortError, l2normalize, sleep, throwIfAborted } from './errors.js';

export { retryAfterMs };

export interface OpenAIEmbedderOptions {
  /** Model name as the server knows it, e.g. `text-embedding-3-small`, `nomic-embed-text`, `voyage-3`. */
  model: string;
  /** Default `https://api.openai.com/v1`. For Ollama `http://localhost:11434/v1`, LM Studio `http://localhost:1234/v1`. */
  baseURL?: string;
  /** Sent as a bearer token. Local servers usually need none. */
  apiKey?: string;
  /** Requested vector length; sent as `dimensions` only when set. Otherwise learned from the first response. */
  dimensions?: number;
  /** Texts per request (default 96). */
  batchSize?: number;
  /** Requests in flight at once, across all calls on this embedder (default 4). */
  concurrency?: number;
  /** Per-request timeout in ms, answer body included (default 60 000). */
  timeoutMs?: number;
  /**
   * The whole embed() call's deadline in ms, every batch, retry and backoff included (default 120 000): a hanging
   * or trickling endpoint ends the call with one clear error instead of retries × timeout (6 × 60 s).
   */
  deadlineMs?: number;
  /** Retries after the first attempt on 429/5xx/timeout/reset (default 5). */
  maxRetries?: number;
  /** First backoff in ms (default 500); doubles each retry, with jitter. */
  retryBaseMs?: number;
  /** Cap on any single wait, including a server's retry-after (default 30 000). */
  retryMaxMs?: number;
  /** Aborts every call on this embedder (e.g. extension shutdown); per-call signals are combined with it. */
  signal?: AbortSignal;
  /**
   * Wire encoding asked for (default 'float'; vLLM/LM Studio/Ollama-style servers may reject base64). If the
   * server rejects the field (Voyage accepts only base64 or none), the provider switches to 'base64' once.
   */
  encodingFormat?: 'float' | 'base64';
  /** Recorded model id; default `openai:<model>` (plus `@<dimensions>` when dimensions is set). */
  modelId?: string;
}

/** Known native sizes, so `dimensions` is right before the first call. Others are learned from the first response. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

/** What an error status from the endpoint means, first match wins (retrying is net/retry.ts's isRetryableStatus). */
const STATUS_RULES: ReadonlyArray<{
  when: (status: number) => boolean;
  kind: EmbeddingError['kind'];
  message: (where: string, status: number, said: string, attempts: number) => string;
}> = [
  {
    when: (s) => s === 401 || s === 403,
    kind: 'auth',
    message: (where, s, said) =>
      `The embedding endpoint ${where} rejected the API key (${s}): check the key configured for it. Server said: ${said}`,
  },
  {
    when: (s) => s === 404,
    kind: 'not-found',
    message: (where, _s, said) =>
      `Not found (404) at ${where}: check the model name and that the base URL ends in /v1 (e.g. http://localhost:11434/v1 for Ollama). Server said: ${said}`,
  },
  {
    when: (s) => s === 429,
    kind: 'rate-limit',
    message: (where, _s, said, n) =>
      `The embedding endpoint ${where} is rate limiting (429) and still was after ${n} attempt(s). Server said: ${said}`,
  },
  {
    when: isRetryableStatus,
    kind: 'server',
    message: (where, s, said, n) => `The embedding endpoint ${where} failed with ${s} after ${n} attempt(s). Server said: ${said}`,
  },
  {
    when: () => true,
    kind: 'bad-request',
    message: (where, s, said) => `The embedding endpoint ${where} refused the request (${s}). Server said: ${said}`,
  },
];

/** Connection errors that no retry mends (nothing listens, the name does not resolve), as the message names them. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'EAI_AGAIN',
  EHOSTUNREACH: 'EHOSTUNREACH',
};

/** A tiny counting semaphore whose waiters can be aborted. */
class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  constructor(private readonly limit: number) {}
  async acquire(signal?: AbortSignal): Promise<() => void> {
    throwIfAborted(signal);
    if (this.active < this.limit) {
      this.active++;
      return () => this.release();
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiters.indexOf(go);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(abortError(signal));
      };
      const go = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.push(go);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    this.active++;
    return () => this.release();
  }
  private release(): void {
    this.active--;
    const next = this.waiters.shift();
    if (next) next();
  }
}

function combineSignals(a?: AbortSignal, b?: AbortSignal): AbortSignal | undefined {
  if (!a) return b;
  if (!b) return a;
  return AbortSignal.any([a, b]);
}

function errorCode(e: unknown): string | undefined {
  // undici wraps the system error: TypeError('fetch failed', { cause: Error{ code: 'ECONNREFUSED' } }),
  // and the openai client wraps that again in APIConnectionError{ cause }.
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const errors = (cur as { errors?: unknown }).errors; // AggregateError (IPv4+IPv6 attempts)
    if (Array.isArray(errors) && errors.length > 0) {
      const c = (errors[0] as { code?: unknown }).code;
      if (typeof c === 'string') return c;
    }
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

function serverMessage(e: InstanceType<typeof OpenAI.APIError>): string {
  const err = e.error as { message?: unknown } | undefined;
  if (err && typeof err.message === 'string') return err.message;
  return e.message;
}

function decodeBase64Floats(s: string): number[] | undefined {
  try {
    const buf = Buffer.from(s, 'base64');
    if (buf.length === 0 || buf.length % 4 !== 0) return undefined;
    const out = new Array<number>(buf.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
    return out;
  } catch {
    return undefined;
  }
}

export class OpenAIEmbedder implements Embedder {
  readonly model: string;
  readonly endpoint: string;
  private readonly client: OpenAI;
  private readonly opts: Required<
    Pick<OpenAIEmbedderOptions, 'batchSize' | 'concurrency' | 'timeoutMs' | 'deadlineMs' | 'maxRetries' | 'retryBaseMs' | 'retryMaxMs'>
  >;
  private readonly semaphore: Semaphore;
  private dims: number;
  private encoding: 'float' | 'base64';

  constructor(private readonly options: OpenAIEmbedderOptions) {
    if (!options.model) throw new Error('OpenAI-compatible embedder: a model name is required');
    const baseURL = (options.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
    this.endpoint = `${baseURL}/embeddings`;
    this.opts = {
      batchSize: Math.max(1, Math.floor(options.batchSize ?? 96)),
      concurrency: Math.max(1, Math.floor(options.concurrency ?? 4)),
      timeoutMs: options.timeoutMs ?? 60_000,
      deadlineMs: options.deadlineMs ?? 120_000,
      maxRetries: Math.max(0, Math.floor(options.maxRetries ?? 5)),
      retryBaseMs: options.retryBaseMs ?? 500,
      retryMaxMs: options.retryMaxMs ?? 30_000,
    };
    if (options.dimensions !== undefined && !(Number.isInteger(options.dimensions) && options.dimensions > 0)) {
      throw new Error(`OpenAI-compatible embedder: dimensions must be a positive integer, got ${options.dimensions}`);
    }
    this.dims = options.dimensions ?? KNOWN_DIMENSIONS[options.model] ?? 0;
    this.encoding = options.encodingFormat ?? 'float';
    this.model = options.modelId ?? `openai:${options.model}${options.dimensions !== undefined ? `@${options.dimensions}` : ''}`;
    this.semaphore = new Semaphore(this.opts.concurrency);
    this.client = new OpenAI({
      baseURL,
      // Never let the client fall back to OPENAI_API_KEY & co.: keys come only from the options.
      apiKey: options.apiKey ?? 'none',
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: this.opts.timeoutMs,
      maxRetries: 0,
    });
  }

  /**
   * Vector length: the configured `dimensions`, a known model's size, or the length learned from the first
   * response (0 before that; call `resolveDimensions()` to learn it up front).
   */
  get dimensions(): number {
    return this.dims;
  }

  /** Embeds a probe text if the dimension is not yet known, and returns it. */
  async resolveDimensions(options?: { signal?: AbortSignal }): Promise<number> {
    if (this.dims === 0) await this.embed(['dimension probe'], options);
    return this.dims;
  }

  async embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]> {
    const signal = combineSignals(this.options.signal, options?.signal);
    throwIfAborted(signal);
    if (texts.length === 0) return [];
    const out = new Array<Float32Array>(texts.length);
    const batches: Array<{ start: number; texts: string[] }> = [];
    for (let i = 0; i < texts.length; i += this.opts.batchSize) {
      // OpenAI rejects empty strings in `input` (400); a lone space embeds as "nothing" instead.
      batches.push({ start: i, texts: texts.slice(i, i + this.opts.batchSize).map((t) => (t === '' ? ' ' : t)) });
    }
    // On the first failure, stop the other batches of this call at once; the deadline stops all of it.
    const local = new AbortController();
    const deadline = AbortSignal.timeout(this.opts.deadlineMs);
    const inner = AbortSignal.any([local.signal, deadline, ...(signal ? [signal] : [])]);
    try {
      await Promise.all(
        batches.map(async (b) => {
          const release = await this.semaphore.acquire(inner);
          try {
            const vecs = await this.embedBatchWithRetry(b.texts, inner);
            for (let j = 0; j < vecs.length; j++) out[b.start + j] = vecs[j];
          } finally {
            release();
          }
        }),
      );
    } catch (e) {
      local.abort();
      if (signal?.aborted) throw abortError(signal);
      if (deadline.aborted) {
        throw new EmbeddingError(
          `Embedding endpoint ${this.describe()} gave no complete answer within ${this.opts.deadlineMs / 1000} s (the deadline for the whole call, retries included)`,
          'timeout',
          undefined,
          { cause: e },
        );
      }
      throw e;
    }
    return out;
  }

  private describe(): string {
    return `${this.endpoint} (model ${this.options.model})`;
  }

  private async embedBatchWithRetry(texts: string[], signal: AbortSignal): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal);
      try {
        return await this.embedBatch(texts, signal);
      } catch (first) {
        if (signal.aborted) throw abortError(signal);
        let e = first;
        if (this.rejectsEncoding(e)) {
          this.encoding = this.encoding === 'float' ? 'base64' : 'float';
          try {
            return await this.embedBatch(texts, signal);
          } catch (e2) {
            if (signal.aborted) throw abortError(signal);
            e = e2;
          }
        }
        const { error, retryable, waitMs } = this.classify(e, attempt);
        if (!retryable || attempt >= this.opts.maxRetries) throw error;
        await sleep(waitMs, signal);
      }
    }
  }

  /** A 400/422 that blames `encoding_format`, answered only once per embedder (the switch is remembered). */
  private encodingSwitched = false;
  private rejectsEncoding(e: unknown): boolean {
    if (this.encodingSwitched || !(e instanceof OpenAI.APIError) || (e.status !== 400 && e.status !== 422)) return false;
    if (!/encoding_format|encoding format/i.test(`${serverMessage(e)} ${JSON.stringify(e.error ?? '')}`)) return false;
    this.encodingSwitched = true;
    return true;
  }

  private retryWait(attempt: number, headers?: Headers): number {
    return retryWaitMs(attempt, { baseMs: this.opts.retryBaseMs, maxMs: this.opts.retryMaxMs }, headers);
  }

  /** What a failed attempt means: the error to report, and whether (and after how long) to try again. */
  private classify(e: unknown, attempt: number): { error: Error; retryable: boolean; waitMs: number } {
    const where = this.describe();
    const attempts = attempt + 1;
    const fail = (error: Error) => ({ error, retryable: false, waitMs: 0 });
    const retry = (error: Error, headers?: Headers) => ({ error, retryable: true, waitMs: this.retryWait(attempt, headers) });
    if (e instanceof EmbeddingError) return fail(e);
    if (e instanceof OpenAI.APIUserAbortError) return fail(abortError());
    if (e instanceof OpenAI.APIConnectionTimeoutError) {
      return retry(
        new EmbeddingError(
          `Embedding endpoint ${where} did not answer within ${this.opts.timeoutMs} ms (after ${attempts} attempt(s))`,
          'timeout',
          undefined,
          { cause: e },
        ),
      );
    }
    if (e instanceof OpenAI.APIConnectionError) {
      const code = errorCode(e);
      const unreachable = code !== undefined ? UNREACHABLE[code] : undefined;
      if (unreachable) {
        return fail(
          new EmbeddingError(
            `Cannot reach the embedding endpoint ${where}: ${unreachable}. Is the server running and the base URL right?`,
            'unreachable',
            undefined,
            { cause: e },
          ),
        );
      }
      return retry(
        new EmbeddingError(
          `Connection to the embedding endpoint ${where} failed${code ? ` (${code})` : ''}: ${e.message}`,
          'unreachable',
          undefined,
          { cause: e },
        ),
      );
    }
    if (e instanceof OpenAI.APIError && typeof e.status === 'number') {
      const status = e.status;
      const rule = STATUS_RULES.find((r) => r.when(status))!;
      const error = new EmbeddingError(rule.message(where, status, serverMessage(e), attempts), rule.kind, status, { cause: e });
      // Whether to try again is the one retry policy's call (net/retry.ts), the same as the chat client's.
      return isRetryableStatus(status) ? retry(error, e.headers) : fail(error);
    }
    if (e instanceof SyntaxError) {
      return fail(
        new EmbeddingError(
          `The embedding endpoint ${where} sent a response that is not valid JSON: ${e.message}`,
          'bad-response',
          undefined,
          { cause: e },
        ),
      );
    }
    const message = e instanceof Error ? e.message : String(e);
    return fail(new EmbeddingError(`Embedding request to ${where} failed: ${message}`, 'bad-response', undefined, { cause: e }));
  }

  private async embedBatch(texts: string[], signal: AbortSignal): Promise<Float32Array[]> {
    const body: OpenAI.EmbeddingCreateParams = {
      model: this.options.model,
      input: texts,
      encoding_format: this.encoding,
    };
    if (this.options.dimensions !== undefined) body.dimensions = this.options.dimensions;
    // The client's timeout ends when the headers arrive; this one also bounds reading the body (a trickling server).
    const attempt = AbortSignal.timeout(this.opts.timeoutMs);
    let res: unknown;
    try {
      res = await this.client.embeddings.create(body, { signal: AbortSignal.any([signal, attempt]) });
    } catch (e) {
      if (attempt.aborted && !signal.aborted)
        throw new OpenAI.APIConnectionTimeoutError({ message: `no complete answer within ${this.opts.timeoutMs} ms` });
      throw e;
    }
    return this.validate(res, texts.length);
  }

  private bad(what: string): EmbeddingError {
    return new EmbeddingError(`Invalid response from the embedding endpoint ${this.describe()}: ${what}`, 'bad-response');
  }

  private validate(res: unknown, n: number): Float32Array[] {
    if (typeof res === 'string') {
      throw this.bad(`expected JSON, got ${JSON.stringify(res.slice(0, 80))}${res.length > 80 ? '…' : ''}`);
    }
    if (!res || typeof res !== 'object') throw this.bad('empty body');
    const data = (res as { data?: unknown }).data;
    if (!Array.isArray(data)) throw this.bad('no "data" array');
    if (data.length !== n) throw this.bad(`${data.length} embeddings for ${n} inputs`);
    const out = new Array<Float32Array | undefined>(n);
    const expected = this.dims;
    let dim = expected;
    for (let k = 0; k < data.length; k++) {
      const item = data[k] as { index?: unknown; embedding?: unknown } | null;
      if (!item || typeof item !== 'object') throw this.bad(`data[${k}] is not an object`);
      const index = item.index === undefined ? k : item.index;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= n) {
        throw this.bad(`data[${k}].index ${JSON.stringify(item.index)} is out of range 0..${n - 1}`);
      }
      if (out[index]) throw this.bad(`index ${index} appears twice`);
      let emb = item.embedding;
      if (typeof emb === 'string') emb = decodeBase64Floats(emb);
      if (!Array.isArray(emb)) throw this.bad(`data[${k}].embedding is not an array of numbers`);
      if (dim === 0) dim = emb.length;
      if (emb.length !== dim || dim === 0) {
        throw this.bad(`vector of length ${emb.length} where ${dim} was expected${expected ? '' : ' (the first vector’s length)'}`);
      }
      const v = new Float32Array(dim);
      for (let i = 0; i < dim; i++) {
        const x = emb[i];
        if (typeof x !== 'number' || !Number.isFinite(x)) throw this.bad(`data[${k}].embedding[${i}] is not a finite number`);
        v[i] = x;
      }
      out[index] = l2normalize(v);
    }
    if (this.dims === 0) this.dims = dim;
    return out as Float32Array[];
  }
}
