// The Retry-After family of headers, shared by the embedding client and the web sources' HTTP client.

/** Parses `retry-after-ms` (ms) or `retry-after` (seconds, possibly fractional, or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const v = Number(ms);
    if (Number.isFinite(v) && v >= 0) return v;
  }
  const ra = headers.get('retry-after');
  if (ra !== null && ra.trim() !== '') {
    const s = Number(ra);
    if (Number.isFinite(s) && s >= 0) return s * 1000;
    const date = Date.parse(ra);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return undefined;
}
