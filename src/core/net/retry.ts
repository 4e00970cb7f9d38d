// One retry policy for every HTTP client: the embedding and chat clients (on the openai package) and the web
// sources' fetch client. Which statuses are worth another try, and how long to wait before it: the server's
// Retry-After where it sends one, else exponential backoff with jitter, never longer than the client's cap.
import { retryAfterMs } from './retry-after.js';

/**
 * Statuses after which the same request may succeed later, each for its reason: 408 (the server timed the request
 * out), 409 (OpenAI answers it for a conflicting concurrent request), 425 (too early), 429 (rate limit), and 5xx,
 * server trouble, including Cloudflare's 52x and the 529 "overloaded" of LLM APIs; except 501 (not implemented)
 * and 505 (HTTP version), which no retry changes. Everything else (400, 401, 403, 404, 422 …) is the request's
 * fault: retrying only repeats it.
 */
const RETRY_4XX = new Set([408, 409, 425, 429]);
const NEVER_5XX = new Set([501, 505]);

export function isRetryableStatus(status: number | undefined): boolean {
  if (status === undefined) return false;
  return RETRY_4XX.has(status) || (status >= 500 && status <= 599 && !NEVER_5XX.has(status));
}

export interface Backoff {
  /** First wait (ms); doubles per retry. */
  baseMs: number;
  /** Cap on any single wait, a server's Retry-After included (ms). */
  maxMs: number;
}

/** Exponential backoff with "equal jitter" for retry `attempt` (0 = the first retry): never shorter than half the step. */
export function backoffMs(attempt: number, b: Backoff, random: () => number = Math.random): number {
  const exp = Math.min(b.maxMs, b.baseMs * 2 ** attempt);
  return exp / 2 + random() * (exp / 2);
}

/** The wait before retry `attempt`: the server's Retry-After (retry-after-ms / retry-after) if sent, else backoff; capped. */
export function retryWaitMs(attempt: number, b: Backoff, headers?: Headers): number {
  return Math.min(b.maxMs, retryAfterMs(headers) ?? backoffMs(attempt, b));
}
