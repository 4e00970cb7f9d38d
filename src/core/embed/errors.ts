/** Errors shared by the embedding providers. No 'vscode' import: this runs in the CLI and in tests. */
import { abortError as baseAbortError, throwIfAborted as baseThrowIfAborted, sleep } from '../abort.js';

/** An error from an embedding endpoint, with a message that names the endpoint and the model. */
export class EmbeddingError extends Error {
  override readonly name = 'EmbeddingError';
  constructor(
    message: string,
    readonly kind: 'auth' | 'not-found' | 'unreachable' | 'timeout' | 'rate-limit' | 'server' | 'bad-request' | 'bad-response',
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The error `embed` rejects with when its signal aborts (name 'AbortError', like fetch). */
/** An AbortError for an embedding request (the signal's own reason when it is one). */
export function abortError(signal?: AbortSignal): Error {
  return baseAbortError(signal, 'The embedding request was aborted');
}

export function throwIfAborted(signal?: AbortSignal): void {
  baseThrowIfAborted(signal, 'The embedding request was aborted');
}

export { sleep };

/** Scales `v` to unit length in place (a zero vector stays zero) and returns it. */
export function l2normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}
