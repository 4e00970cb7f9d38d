// A resumable download cache. A file is fetched into `<name>.part`; an interrupted run (a body cut short, a
// stall, a killed process) continues from the bytes it has with `Range: bytes=N-` (a server that ignores the
// range and answers 200 restarts it). Only a body whose length matches what the server announced (and whose
// sha256 matches, when the caller knows it) is renamed into place, with a `<name>.json` record of its length and
// sha256; a cached file is used again only when it still matches that record. A truncated file is never complete.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BodyTooLargeError, HttpError, readBody, type HttpClient, type RequestOptions } from './http.js';

export interface DownloadOptions extends RequestOptions {
  /** The expected sha256 (hex), when known: a mismatch is an error and the file is discarded. */
  sha256?: string;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  sha256: string;
  /** True when the file came from the cache without a request. */
  cached: boolean;
  /** Bytes continued from a previous partial download (0 when it started from scratch). */
  resumedFrom: number;
  contentType: string | null;
}

interface Record {
  url: string;
  bytes: number;
  sha256: string;
  contentType: string | null;
}

/** Downloads `url` to `path` through `client` (rate limits, retries, timeouts apply), resuming a partial file. */
export async function download(client: HttpClient, url: string, path: string, options: DownloadOptions = {}): Promise<DownloadResult> {
  const cached = await verifiedCache(path, options.sha256);
  if (cached) return { path, bytes: cached.bytes, sha256: cached.sha256, cached: true, resumedFrom: 0, contentType: cached.contentType };
  await mkdir(dirname(path), { recursive: true });
  const part = `${path}.part`;
  let firstOffset: number | null = null;
  const r = await client.operation(
    url,
    options,
    async (signal) => {
      const have = (await stat(part).catch(() => null))?.size ?? 0;
      firstOffset ??= have;
      const headers = client.headers({ ...options.headers, ...(have > 0 ? { range: `bytes=${have}-` } : {}) });
      return client.send(url, { headers, signal });
    },
    async (res, signal, onIdle) => {
      const have = (await stat(part).catch(() => null))?.size ?? 0;
      const resumed = res.status === 206 && have > 0 && rangeStart(res) === have;
      if (res.status === 206 && !resumed) {
        // A range we did not ask for: start over rather than splice mismatched bytes.
        await rm(part, { force: true });
        throw new HttpError(`${url}: the server sent a range starting at ${rangeStart(res)}, not ${have}`, url, 206, true);
      }
      const total = resumed ? rangeTotal(res) : Number(res.headers.get('content-length') ?? NaN);
      const fh = await open(part, resumed ? 'a' : 'w');
      try {
        await readBody(
          res,
          signal,
          client.requestTimeoutMs,
          onIdle,
          async (chunk) => {
            await fh.write(chunk);
          },
          (options.maxBytes ?? Infinity) - (resumed ? have : 0),
        );
      } catch (e) {
        // Over the budget: nothing of it is kept, so a later run does not resume a file that can never be whole.
        if (e instanceof BodyTooLargeError) await rm(part, { force: true });
        throw e;
      } finally {
        await fh.close();
      }
      const size = (await stat(part)).size;
      if (Number.isFinite(total) && size !== total) {
        throw new HttpError(`${url}: ${size} of ${total} bytes arrived`, url, res.status, true);
      }
      return { contentType: res.headers.get('content-type') };
    },
  );
  const sha256 = await fileSha256(part);
  if (options.sha256 && sha256 !== options.sha256.toLowerCase()) {
    await rm(part, { force: true });
    throw new HttpError(`${url}: checksum mismatch (sha256 ${sha256.slice(0, 12)}…, expected ${options.sha256.slice(0, 12)}…)`, url);
  }
  const bytes = (await stat(part)).size;
  await rename(part, path);
  const record: Record = { url, bytes, sha256, contentType: r.value.contentType };
  await writeFile(`${path}.json`, JSON.stringify(record));
  return { path, bytes, sha256, cached: false, resumedFrom: firstOffset ?? 0, contentType: r.value.contentType };
}

/** The cache record when `path` is there and still matches it (and `sha256`, if given); else null. */
async function verifiedCache(path: string, sha256?: string): Promise<Record | null> {
  try {
    const record = JSON.parse(await readFile(`${path}.json`, 'utf8')) as Record;
    const size = (await stat(path)).size;
    if (size !== record.bytes) return null;
    const actual = await fileSha256(path);
    if (actual !== record.sha256 || (sha256 && actual !== sha256.toLowerCase())) return null;
    return record;
  } catch {
    return null;
  }
}

function rangeStart(res: Response): number {
  const m = /bytes\s+(\d+)-/.exec(res.headers.get('content-range') ?? '');
  return m ? Number(m[1]) : NaN;
}

function rangeTotal(res: Response): number {
  const m = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '');
  return m ? Number(m[1]) : NaN;
}

export function fileSha256(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => h.update(c))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}
