// Cancellation, one way for every part that can be stopped (readers, embedding and chat clients, the review):
// an aborted signal always surfaces as an error named AbortError, the signal's own reason when it is one.

/** The signal's own AbortError reason, or a new AbortError. */
export function abortError(signal?: AbortSignal, message = 'The operation was aborted'): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const err = new DOMException(message, 'AbortError');
  // Another reason (abort('closing'), a TimeoutError) stays readable as the cause.
  if (reason !== undefined) Object.defineProperty(err, 'cause', { value: reason, configurable: true, writable: true });
  return err;
}

/** Throws {@link abortError} when `signal` has aborted. */
export function throwIfAborted(signal?: AbortSignal, message?: string): void {
  if (signal?.aborted) throw abortError(signal, message);
}

/** True for the error a stopped operation ends with (ours, fetch's, Node's). */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
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
