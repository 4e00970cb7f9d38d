// A chat client for any OpenAI-compatible `/v1/chat/completions` endpoint, through the `openai` package.
// - Every call names the pipeline step it serves; every error says which step failed and why, in one line.
// - Retries the statuses of the one retry policy (net/retry.ts: 429, 5xx …) and connection resets, with backoff,
//   honouring `retry-after` / `retry-after-ms`: the same as the embedding client.
// - A timeout per request (for streams: an idle timeout, reset by every chunk), not retried: a model that
//   hangs should fail fast with a clear message rather than hang three times.
// - Cancellation: the caller's AbortSignal aborts the request at once and rejects with an AbortError.
// - Streaming (`onToken`) with usage counts (`stream_options.include_usage`); when a server sends no usage,
//   tokens are estimated (≈ 4 characters a token) and flagged as estimated.
import { abortError, isAbortError as isStopped, sleep } from '../abort.js';
import { isRetryableStatus, retryWaitMs } from '../net/retry.js';
import OpenAI from 'openai';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** True when the server reported no usage and the counts are estimates. */
  estimated?: boolean;
  /** Answered from the response cache (llm/cache.ts): no call was made, the counts are zero. */
  cached?: boolean;
  /** The model that answered, when it is not the one asked (a fallback, llm/fallback.ts). */
  model?: string;
}

export interface ChatRequest {
  /** The pipeline step this call serves (named in errors and traces). */
  step: string;
  messages: readonly ChatMessage[];
  signal?: AbortSignal;
  /** Streams the reply: called with each text delta as it arrives. */
  onToken?: (delta: string) => void;
  /** Ask for a JSON object (`response_format: json_object`) when the client has `jsonMode` on. */
  json?: boolean;
  maxTokens?: number;
  temperature?: number;
  /** Whether a reply may be kept in the response cache (e.g. only JSON that parses); default: any complete reply. */
  cacheable?: (text: string) => boolean;
}

export interface ChatResult {
  text: string;
  usage: TokenUsage;
  /** HTTP attempts made (1 = no retry; 0 = answered from the cache). */
  attempts: number;
  /** The server's `finish_reason` (`length`: cut at max_tokens), when it sent one. */
  finishReason?: string;
}

/** What the review pipeline needs from a chat model; tests may pass any implementation. */
export interface ChatModel {
  readonly model: string;
  complete(request: ChatRequest): Promise<ChatResult>;
}

export type LlmErrorKind = 'timeout' | 'http' | 'connection' | 'invalid-output' | 'empty';

/** An LLM failure, naming the step: `step "plan": …`. */
export class LlmError extends Error {
  constructor(
    readonly step: string,
    readonly kind: LlmErrorKind,
    detail: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`step "${step}": ${detail}`, options);
    this.name = 'LlmError';
  }
}

export interface OpenAIChatOptions {
  /** e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseURL: string;
  model: string;
  apiKey?: string;
  /** Per request; for streams the longest silence between chunks (default 120 s). */
  timeoutMs?: number;
  /**
   * The whole complete() call's deadline, retries, backoff and a slow stream included (default 600 s): a stream that
   * trickles one byte a second never trips the idle timer, and retries multiply waits.
   */
  deadlineMs?: number;
  /** Retries on 429/5xx/connection errors (default 3). */
  maxRetries?: number;
  /** Upper bound for one wait between retries, whatever retry-after says (default 60 s). */
  maxRetryDelayMs?: number;
  /** First backoff when no retry-after is given (default 500 ms, doubled per retry, jittered). */
  baseRetryDelayMs?: number;
  /** Send `response_format: {type: 'json_object'}` on JSON steps (not every compatible server supports it). */
  jsonMode?: boolean;
  /** Send `stream_options: {include_usage: true}` when streaming (default true). */
  streamUsage?: boolean;
  temperature?: number;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
  /** Replaces global fetch (tests, proxies). */
  fetch?: typeof fetch;
}

const TIMEOUT = Symbol('timeout');

/** {@link isStopped}, and the `openai` package's own abort error. */
export function isAbortError(err: unknown): boolean {
  return isStopped(err) || err instanceof OpenAI.APIUserAbortError;
}

export { sleep };

/** Rough token estimate for servers that report no usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The `openai` package against any OpenAI-compatible endpoint. */
export class OpenAIChat implements ChatModel {
  readonly model: string;
  private readonly client: OpenAI;
  private streamUsage: boolean;
  private readonly o: Required<
    Pick<OpenAIChatOptions, 'timeoutMs' | 'deadlineMs' | 'maxRetries' | 'maxRetryDelayMs' | 'baseRetryDelayMs' | 'jsonMode' | 'streamUsage'>
  > &
    OpenAIChatOptions;

  constructor(options: OpenAIChatOptions) {
    if (!options.baseURL) throw new Error('the chat client needs a base URL (e.g. https://api.openai.com/v1)');
    if (!options.model) throw new Error('the chat client needs a model name');
    this.model = options.model;
    this.o = {
      timeoutMs: 120_000,
      deadlineMs: 600_000,
      maxRetries: 3,
      maxRetryDelayMs: 60_000,
      baseRetryDelayMs: 500,
      jsonMode: false,
      streamUsage: true,
      ...(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as OpenAIChatOptions),
    };
    this.streamUsage = this.o.streamUsage;
    this.client = new OpenAI({
      baseURL: options.baseURL,
      // Local servers (Ollama, llama.cpp, vLLM) accept any key; the package insists on a non-empty one.
      apiKey: options.apiKey || 'no-key',
      maxRetries: 0, // our own loop: we name the step and never retry a timeout
      timeout: 24 * 3600_000, // our own (idle) timer below
      defaultHeaders: options.headers,
      fetch: options.fetch,
    });
  }

  async complete(request: ChatRequest): Promise<ChatResult> {
    // One deadline for the whole call: every attempt and wait below runs under it (as if the caller had cancelled),
    // and it is reported as the timeout it is.
    const deadline = AbortSignal.timeout(this.o.deadlineMs);
    const caller = request.signal;
    const req: ChatRequest = { ...request, signal: caller ? AbortSignal.any([caller, deadline]) : deadline };
    try {
      return await this.attempts(req);
    } catch (err) {
      if (deadline.aborted && !caller?.aborted) {
        throw new LlmError(
          req.step,
          'timeout',
          `the LLM gave no complete answer within ${this.o.deadlineMs / 1000} s (the whole call, retries included; ${this.model} at ${this.o.baseURL})`,
          undefined,
          { cause: err },
        );
      }
      throw err;
    }
  }

  private async attempts(req: ChatRequest): Promise<ChatResult> {
    for (let attempt = 1; ; attempt++) {
      if (req.signal?.aborted) throw abortError(req.signal);
      try {
        const r = await this.once(req);
        return { ...r, attempts: attempt };
      } catch (err) {
        if (req.signal?.aborted) throw abortError(req.signal);
        if (err === TIMEOUT) {
          throw new LlmError(
            req.step,
            'timeout',
            `the LLM did not answer within ${this.o.timeoutMs} ms (${this.model} at ${this.o.baseURL})`,
          );
        }
        const status = err instanceof OpenAI.APIError ? err.status : undefined;
        if (status === 400 && req.onToken && this.streamUsage && /stream_options|include_usage/i.test(String((err as Error).message))) {
          this.streamUsage = false; // an older server: stream without usage (tokens are then estimated)
          attempt--;
          continue;
        }
        const connection = err instanceof OpenAI.APIConnectionError && !(err instanceof OpenAI.APIConnectionTimeoutError);
        if ((isRetryableStatus(status) || connection) && attempt <= this.o.maxRetries) {
          const headers = err instanceof OpenAI.APIError ? err.headers : undefined;
          await sleep(retryWaitMs(attempt - 1, { baseMs: this.o.baseRetryDelayMs, maxMs: this.o.maxRetryDelayMs }, headers), req.signal);
          continue;
        }
        if (err instanceof LlmError) throw err;
        if (status !== undefined) {
          const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
          const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
          throw new LlmError(req.step, 'http', `the LLM endpoint answered HTTP ${status}${tries}: ${msg}`, status, { cause: err });
        }
        if (connection) {
          throw new LlmError(
            req.step,
            'connection',
            `cannot reach the LLM endpoint ${this.o.baseURL} (after ${attempt} attempts)`,
            undefined,
            { cause: err },
          );
        }
        throw new LlmError(req.step, 'connection', err instanceof Error ? err.message.split('\n')[0] : String(err), undefined, {
          cause: err,
        });
      }
    }
  }

  /** One HTTP attempt under our own timer; rejects with TIMEOUT when it fires. */
  private async once(req: ChatRequest): Promise<Omit<ChatResult, 'attempts'>> {
    const ctl = new AbortController();
    let timedOut = false;
    let emitted = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        ctl.abort();
      }, this.o.timeoutMs);
    };
    const onAbort = () => ctl.abort(req.signal?.reason);
    req.signal?.addEventListener('abort', onAbort, { once: true });
    arm();
    const base = {
      model: this.model,
      messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
      temperature: req.temperature ?? this.o.temperature,
      max_tokens: req.maxTokens,
      ...(req.json && this.o.jsonMode ? { response_format: { type: 'json_object' as const } } : {}),
    };
    try {
      if (!req.onToken) {
        const res = await this.client.chat.completions.create({ ...base, stream: false }, { signal: ctl.signal });
        const text = res.choices?.[0]?.message?.content ?? '';
        return { text, usage: usageOf(res.usage, req.messages, text), finishReason: res.choices?.[0]?.finish_reason ?? undefined };
      }
      const stream = await this.client.chat.completions.create(
        { ...base, stream: true, ...(this.streamUsage ? { stream_options: { include_usage: true } } : {}) },
        { signal: ctl.signal },
      );
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined | null;
      let finishReason: string | undefined;
      const emit = req.onToken;
      for await (const chunk of stream) {
        arm();
        if (chunk.usage) usage = chunk.usage;
        finishReason = chunk.choices?.[0]?.finish_reason ?? finishReason;
        const delta = chunk.choices?.[0]?.delta?.content;
        if (delta) {
          text += delta;
          emitted += delta.length;
          emit(delta);
        }
      }
      // The package ends a stream quietly when its signal aborts: tell a timeout or a cancel from the end.
      if (req.signal?.aborted) throw abortError(req.signal);
      if (timedOut) throw new Error('stream aborted by the idle timer');
      return { text, usage: usageOf(usage, req.messages, text), finishReason };
    } catch (err) {
      if (timedOut && !emitted) throw TIMEOUT;
      if (emitted && !req.signal?.aborted) {
        // Tokens already went to the caller: a retry would repeat them. Fail, naming the step.
        const why = timedOut ? `no data for ${this.o.timeoutMs} ms` : err instanceof Error ? err.message.split('\n')[0] : String(err);
        throw new LlmError(
          req.step,
          timedOut ? 'timeout' : 'connection',
          `the LLM stream broke off after ${emitted} characters (${why})`,
          undefined,
          { cause: err },
        );
      }
      throw err;
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }
}

function usageOf(u: OpenAI.CompletionUsage | undefined | null, messages: readonly ChatMessage[], text: string): TokenUsage {
  if (u && Number.isFinite(u.prompt_tokens) && Number.isFinite(u.completion_tokens)) {
    return {
      promptTokens: u.prompt_tokens,
      completionTokens: u.completion_tokens,
      totalTokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
    };
  }
  const promptTokens = messages.reduce((n, m) => n + estimateTokens(m.content) + 4, 0);
  const completionTokens = estimateTokens(text);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}
