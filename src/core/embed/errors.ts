/** Errors shared by the embedding providers. No 'vscode' import: this runs in the CLI and in tests. */

/** An error from an embedding endpoint, with a message that names the endpoint and the model. */
export class EmbeddingError extends Error {
  override readonly name = 'EmbeddingError';
  constructor(
    message: string,
    readonly kind:
      | 'auth'
      | 'not-found'
      | 'unreachable'
      | 'timeout'
      | 'rate-limit'
      | 'server'
      | 'bad-request'
      | 'bad-response',
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The error `embed` rejects with when its signal aborts (name 'AbortError', like fetch). */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const e = new DOMException('The embedding request was aborted', 'AbortError');
  return e;
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal);
}

/** Resolves after `ms`, or rejects with an AbortError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

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
