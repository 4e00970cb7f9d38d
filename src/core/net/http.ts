// One polite HTTP client for every web source (arXiv, Semantic Scholar, OpenAlex, open-access PDF hosts):
// - per-host spacing and one request at a time per host (arXiv asks for one request per 3 s on one connection);
// - retries with exponential backoff + jitter on the statuses of the one retry policy (net/retry.ts: 429, 5xx …),
//   connection resets and timeouts, honouring `Retry-After` (seconds or an HTTP date), never waiting past the
//   operation's deadline;
// - a timeout per request that also covers a body that stops arriving (idle timeout, reset by every chunk),
//   and an overall deadline per operation (all attempts and waits included);
// - a User-Agent naming Corpus Lens and the user's contact address;
// - cancellation through the caller's AbortSignal (rejects with an AbortError at once);
// - a byte budget per body (counted after any Content-Encoding is undone, so a compressed bomb stops at the
//   budget, never in memory), a failure that is not retried;
// - redirects followed by hand: at most `maxRedirects`, only to http(s), and never from a public host to a
//   loopback / link-local / private address (address.ts) unless the URL asked for is itself on one (a local
//   mirror or stand-in); credentials headers are not carried to another origin.
// Built on Node's own fetch (undici) rather than p-retry/got: the retry loop needs the response (Retry-After,
// status) and the deadline, which makes a generic retry wrapper no shorter, and fetch adds no dependency.
import { abortError, sleep } from '../abort.js';
import { isInternalHost, systemLookup, type HostLookup } from './address.js';
import { retryAfterMs } from './retry-after.js';
import { backoffMs, isRetryableStatus } from './retry.js';

export const USER_AGENT_BASE = 'CorpusLens/0.1 (+https://github.com/corpus-lens/corpus-lens)';

export interface HostRule {
  /** Minimum milliseconds between the starts of two requests to this host. */
  minIntervalMs: number;
}

export interface HttpClientOptions {
  /** An e-mail address sent in the User-Agent (`mailto:`) so that services can reach the user. */
  contact?: string;
  /** Per host (`host:port` as in URL.host): spacing between requests. Hosts not listed: no spacing. */
  hosts?: Record<string, HostRule>;
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** First backoff (default 1 000 ms); doubles per retry, with jitter. */
  retryBaseMs?: number;
  /** Cap on a single wait, including a server's Retry-After (default 60 000 ms). */
  retryMaxMs?: number;
  /** Per-request timeout: until the headers, then between two body chunks (default 30 000 ms). */
  requestTimeoutMs?: number;
  /** Overall deadline of one operation, all attempts and waits included (default 300 000 ms). */
  deadlineMs?: number;
  /** Largest body get()/json()/text() read, in bytes, unless a request says otherwise (default 64 MiB). */
  maxBodyBytes?: number;
  /** Redirects followed per request (default 5). */
  maxRedirects?: number;
  /** Resolves a host name for the redirect rule (default: the system resolver; tests map names to addresses). */
  lookup?: HostLookup;
  /** For tests: the fetch to use. */
  fetch?: typeof fetch;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Overrides the client's deadline for this operation. */
  deadlineMs?: number;
  /** Statuses returned to the caller instead of thrown (e.g. 404 for "not there"). */
  accept?: number[];
  /** Largest body accepted, in bytes: a larger one fails the request (not retried). */
  maxBytes?: number;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  url: string;
  body: Uint8Array;
  /** HTTP attempts made (1 = no retry). */
  attempts: number;
}

/** A failed HTTP operation: the URL, what went wrong and whether retrying later could help. */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly status?: number,
    readonly retryable = false,
    /** The server's Retry-After, in ms, where it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * A host that cannot be reached at all: its name does not resolve or no route leads to it (typically: no network).
 * Not retried: offline, every try would fail the same way, and a run over many papers would wait on each.
 */
export class UnreachableError extends HttpError {
  constructor(
    url: string,
    readonly code: string,
  ) {
    super(`${url}: ${code}`, url, undefined, false);
    this.name = 'UnreachableError';
  }

  /** The host (`host:port` as in URL.host) that could not be reached. */
  get host(): string {
    return new URL(this.url).host;
  }
}

const UNREACHABLE_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN']);

/** A body over its byte budget: not retried (the same server would send the same body). */
export class BodyTooLargeError extends HttpError {
  constructor(
    url: string,
    status: number,
    readonly maxBytes: number,
  ) {
    super(`${url}: the body is larger than the ${megabytes(maxBytes)} limit`, url, status, false);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Spacing and one request at a time per host: each request starts when the previous one has finished and the
 * interval has passed since then (counted from the end, so network latency never squeezes two starts closer).
 * Shared by every client of the process that has a rule for the host (HOST_QUEUES).
 */
class HostQueue {
  private tail: Promise<void> = Promise.resolve();
  private lastEnd = 0;

  constructor(public rule: HostRule) {}

  run<T>(job: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const turn = this.tail.then(async () => {
      const wait = this.lastEnd + this.rule.minIntervalMs - Date.now();
      if (wait > 0) await sleep(wait, signal);
      signal.throwIfAborted();
      try {
        return await job();
      } finally {
        this.lastEnd = Date.now();
      }
    });
    this.tail = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }
}

/**
 * One queue per host for the whole process: two clients (two runs, one after the other or side by side) still keep
 * a host's spacing between them.
 */
const HOST_QUEUES = new Map<string, HostQueue>();

export class HttpClient {
  readonly userAgent: string;
  private readonly queues = new Map<string, HostQueue>();
  private readonly opts: Required<Omit<HttpClientOptions, 'contact' | 'hosts' | 'fetch' | 'lookup'>>;
  private readonly lookup: HostLookup;
  /** The fetch every request goes through (Node's own unless a test passes one). */
  readonly fetchImpl: typeof fetch;

  constructor(options: HttpClientOptions = {}) {
    this.userAgent = options.contact ? `${USER_AGENT_BASE} mailto:${options.contact}` : USER_AGENT_BASE;
    this.opts = {
      maxRetries: options.maxRetries ?? 4,
      retryBaseMs: options.retryBaseMs ?? 1000,
      retryMaxMs: options.retryMaxMs ?? 60_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      deadlineMs: options.deadlineMs ?? 300_000,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      maxRedirects: options.maxRedirects ?? 5,
    };
    this.lookup = options.lookup ?? systemLookup;
    this.fetchImpl = options.fetch ?? fetch;
    for (const [host, rule] of Object.entries(options.hosts ?? {})) this.setHostRule(host, rule);
  }

  /** Spacing for a host (`host:port` as in URL.host), e.g. 3 000 ms for arXiv. */
  setHostRule(host: string, rule: HostRule): void {
    const key = host.toLowerCase();
    let queue = HOST_QUEUES.get(key);
    if (!queue) HOST_QUEUES.set(key, (queue = new HostQueue(rule)));
    queue.rule = rule;
    this.queues.set(key, queue);
  }

  /** GET `url`, retried as described above; the whole body is read (with the idle timeout). */
  async get(url: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const r = await this.operation(
      url,
      options,
      (signal) => this.send(url, { headers: this.headers(options.headers), signal }),
      (res, signal, onIdle) =>
        readBody(res, signal, this.opts.requestTimeoutMs, onIdle, undefined, options.maxBytes ?? this.opts.maxBodyBytes),
    );
    return { status: r.status, headers: r.headers, url: r.url, body: r.value, attempts: r.attempts };
  }

  async json<T = unknown>(url: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.get(url, { ...options, headers: { accept: 'application/json', ...options.headers } });
    try {
      return JSON.parse(Buffer.from(res.body).toString('utf8')) as T;
    } catch {
      throw new HttpError(`${url}: the answer is not JSON`, url, res.status);
    }
  }

  async text(url: string, options: RequestOptions = {}): Promise<string> {
    return Buffer.from((await this.get(url, options)).body).toString('utf8');
  }

  /**
   * The retry loop shared by get() and downloads: `send` makes one request (spaced for its host), `consume` reads
   * its body, calling `onIdle` (which aborts the attempt) when the body stalls. Throws HttpError, or an AbortError
   * when the caller cancels.
   */
  async operation<T>(
    url: string,
    options: RequestOptions,
    send: (signal: AbortSignal, attempt: number) => Promise<Response>,
    consume: (res: Response, signal: AbortSignal, onIdle: () => void) => Promise<T>,
  ): Promise<{ value: T; status: number; headers: Headers; url: string; attempts: number }> {
    const caller = options.signal;
    const deadlineMs = options.deadlineMs ?? this.opts.deadlineMs;
    const deadline = Date.now() + deadlineMs;
    const queue = this.queues.get(new URL(url).host.toLowerCase());
    for (let attempt = 0; ; attempt++) {
      if (caller?.aborted) throw abortError(caller);
      const ac = new AbortController();
      const onAbort = () => ac.abort(caller?.reason);
      caller?.addEventListener('abort', onAbort, { once: true });
      let timeout: string | undefined;
      let timer: NodeJS.Timeout | undefined;
      const expire = (why: string) => {
        timeout = why;
        ac.abort(new DOMException(why, 'TimeoutError'));
      };
      const arm = (ms: number, why: string) => {
        clearTimeout(timer);
        timer = setTimeout(() => expire(why), Math.max(1, ms));
      };
      try {
        const run = async () => {
          // Until the headers: the request timeout (capped by the deadline); then the deadline, while the body's
          // own idle timer (armed by `consume`) catches a body that stops arriving.
          const left = deadline - Date.now();
          if (left < this.opts.requestTimeoutMs) arm(left, `the ${Math.round(deadlineMs / 1000)} s deadline passed`);
          else arm(this.opts.requestTimeoutMs, `no answer within ${this.opts.requestTimeoutMs} ms`);
          const res = await send(ac.signal, attempt);
          arm(deadline - Date.now(), `the ${Math.round(deadlineMs / 1000)} s deadline passed`);
          if (res.ok || (options.accept ?? []).includes(res.status)) {
            const value = await consume(res, ac.signal, () =>
              expire(`the body stopped arriving (${this.opts.requestTimeoutMs} ms without data)`),
            );
            return { value, res };
          }
          await res.body?.cancel().catch(() => undefined);
          throw statusError(url, res);
        };
        const { value, res } = queue ? await queue.run(run, ac.signal) : await run();
        return { value, status: res.status, headers: res.headers, url: res.url || url, attempts: attempt + 1 };
      } catch (e) {
        if (caller?.aborted) throw abortError(caller);
        const err = classify(e, url, timeout);
        if (!err.retryable || attempt >= this.opts.maxRetries) throw annotate(err, attempt);
        const wait = Math.min(
          this.opts.retryMaxMs,
          err.retryAfterMs ?? backoffMs(attempt, { baseMs: this.opts.retryBaseMs, maxMs: this.opts.retryMaxMs }),
        );
        if (Date.now() + wait >= deadline) {
          throw new HttpError(
            `${err.message}; gave up: the next try (in ${Math.ceil(wait / 1000)} s) would pass the ${Math.round(deadlineMs / 1000)} s deadline`,
            url,
            err.status,
            true,
          );
        }
        await sleep(wait, caller);
      } finally {
        clearTimeout(timer);
        caller?.removeEventListener('abort', onAbort);
      }
    }
  }

  /**
   * One request, following redirects under the rule at the top of this file. The answer is the first response
   * that is not a redirect; a refused redirect throws an HttpError that is not retried.
   */
  async send(url: string, init: { headers: Record<string, string>; signal: AbortSignal }): Promise<Response> {
    const first = new URL(url);
    let trustedInternal: boolean | undefined;
    let current = first;
    let headers = init.headers;
    for (let hop = 0; ; hop++) {
      const res = await this.fetchImpl(current.href, { headers, signal: init.signal, redirect: 'manual' });
      if (![301, 302, 303, 307, 308].includes(res.status)) return res;
      await res.body?.cancel().catch(() => undefined);
      const location = res.headers.get('location');
      if (!location) throw new HttpError(`${current.href}: HTTP ${res.status} without a Location`, url, res.status);
      if (hop >= this.opts.maxRedirects) throw new HttpError(`${url}: more than ${this.opts.maxRedirects} redirects`, url, res.status);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new HttpError(`${url}: redirected to an invalid URL`, url, res.status);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        throw new HttpError(`${url}: refused a redirect to a ${next.protocol} URL`, url, res.status);
      trustedInternal ??= await isInternalHost(first.hostname, this.lookup);
      if (!trustedInternal && (await isInternalHost(next.hostname, this.lookup))) {
        throw new HttpError(`${url}: refused a redirect to ${next.host}, a local or private address`, url, res.status);
      }
      if (next.origin !== current.origin) headers = withoutCredentials(headers);
      current = next;
    }
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { 'user-agent': this.userAgent, ...extra };
  }

  get requestTimeoutMs(): number {
    return this.opts.requestTimeoutMs;
  }
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !/^(authorization|cookie|x-api-key|api-key)$/i.test(k)));
}

/** "100 MB" for a byte budget. */
export function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
}

function statusError(url: string, res: Response): HttpError {
  const status = `HTTP ${res.status}${res.statusText ? ' ' + res.statusText : ''}`;
  return new HttpError(`${url}: ${status}`, url, res.status, isRetryableStatus(res.status), retryAfterMs(res.headers));
}

function classify(e: unknown, url: string, timeout: string | undefined): HttpError {
  if (e instanceof HttpError) return e;
  if (timeout) return new HttpError(`${url}: ${timeout}`, url, undefined, true);
  const msg = e instanceof Error ? e.message : String(e);
  const code = errorCode(e);
  if (code && UNREACHABLE_CODES.has(code)) return new UnreachableError(url, code);
  // A name that does not resolve or a bad certificate will not get better in a few seconds.
  const permanent = (code ?? '').startsWith('ERR_TLS') || /CERT|SELF_SIGNED/.test(code ?? '');
  return new HttpError(`${url}: ${code ?? msg}`, url, undefined, !permanent);
}

function annotate(err: HttpError, attempt: number): HttpError {
  if (attempt === 0 || !err.retryable) return err;
  return new HttpError(`${err.message} (after ${attempt + 1} attempts)`, err.url, err.status, err.retryable);
}

function errorCode(e: unknown): string | undefined {
  // undici wraps the system error: TypeError('fetch failed', { cause: Error{ code: 'ECONNRESET' } }).
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Reads the body chunk by chunk (to `sink`, else into memory). `onIdle` is called when no chunk arrives within
 * `idleMs` (it aborts the attempt, which fails the read). Fewer bytes than Content-Length announced is an error
 * (retryable): a truncated body is never taken for a whole one. More than `maxBytes` (decoded) is an error that
 * is not retried, raised as soon as the budget is passed (or at once when Content-Length announces more).
 */
export async function readBody(
  res: Response,
  signal: AbortSignal,
  idleMs: number,
  onIdle: () => void,
  sink?: (chunk: Uint8Array) => Promise<void>,
  maxBytes = Infinity,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const tooLarge = () => new BodyTooLargeError(res.url, res.status, maxBytes);
  const announced = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(announced) && announced > maxBytes && (res.headers.get('content-encoding') ?? 'identity') === 'identity') {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (res.body) {
    const reader = res.body.getReader();
    let idle: NodeJS.Timeout | undefined;
    // Aborting the fetch errors the stream in undici; the race makes sure a read never outlives the abort.
    const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    aborted.catch(() => undefined);
    try {
      for (;;) {
        clearTimeout(idle);
        idle = setTimeout(onIdle, idleMs);
        const { done, value } = await Promise.race([reader.read(), aborted]);
        if (done) break;
        if (!value?.byteLength) continue;
        total += value.byteLength;
        if (total > maxBytes) throw tooLarge();
        if (sink) await sink(value);
        else chunks.push(value);
      }
    } finally {
      clearTimeout(idle);
      reader.cancel().catch(() => undefined);
    }
  }
  const expected = Number(res.headers.get('content-length') ?? NaN);
  const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
  if (Number.isFinite(expected) && !encoded && total !== expected) {
    throw new HttpError(`${res.url}: the body ended after ${total} of ${expected} bytes`, res.url, res.status, true);
  }
  return sink ? new Uint8Array() : Buffer.concat(chunks);
}
