// arXiv: the Atom API (`search_query` / `id_list`) for metadata and licence, the e-print (the authors' LaTeX
// source: a gzipped tar, a single gzipped .tex, or a PDF) and the HTML rendering. Every request goes through the
// shared client, whose arXiv hosts are spaced 3 s apart on one connection (arXiv's terms of use).
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import { download } from '../net/download.js';
import { HttpError, megabytes } from '../net/http.js';
import { isLatexMain } from '../ingest/index.js';
import { emptyCandidate, type Candidate, type SearchOptions, type SourceContext } from './types.js';
import { normaliseArxivId, normaliseDoi, parseYear } from '../paper/ids.js';

const ATOM = 'http://www.w3.org/2005/Atom';
const ARXIV_NS = 'http://arxiv.org/schemas/atom';
const OPENSEARCH = 'http://a9.com/-/spec/opensearch/1.1/';

export interface AtomFeed {
  total: number | null;
  entries: Candidate[];
}

/** The namespace prefixes a feed binds (fast-xml-parser keeps prefixes as written, so they are looked up). */
function prefixes(root: Record<string, unknown>): { atom: string; arxiv: string; os: string } {
  const out = { atom: '', arxiv: 'arxiv:', os: 'opensearch:' };
  for (const [k, v] of Object.entries(root)) {
    if (!k.startsWith('@_xmlns')) continue;
    const p = k === '@_xmlns' ? '' : k.slice('@_xmlns:'.length) + ':';
    if (v === ATOM) out.atom = p;
    if (v === ARXIV_NS) out.arxiv = p;
    if (v === OPENSEARCH) out.os = p;
  }
  return out;
}

const text = (v: unknown): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v === 'object') return text((v as Record<string, unknown>)['#text']);
  const s = String(v).replace(/\s+/g, ' ').trim();
  return s || null;
};
const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Parses an arXiv Atom feed; an error feed (arXiv answers bad queries with one entry titled "Error") throws. */
export function parseArxivAtom(xml: string): AtomFeed {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    trimValues: true,
    processEntities: true,
  });
  const doc = parser.parse(xml) as Record<string, unknown>;
  const rootKey = Object.keys(doc).find((k) => /(^|:)feed$/.test(k));
  if (!rootKey) throw new Error('not an Atom feed');
  const feed = doc[rootKey] as Record<string, unknown>;
  const ns = prefixes(feed);
  const entries: Candidate[] = [];
  for (const e of list(feed[`${ns.atom}entry`] as Record<string, unknown> | Record<string, unknown>[])) {
    const id = text(e[`${ns.atom}id`]) ?? '';
    if (/arxiv\.org\/api\/errors/.test(id)) throw new Error(`arXiv: ${text(e[`${ns.atom}summary`]) ?? 'error'}`);
    const links = list(e[`${ns.atom}link`] as Record<string, string> | Record<string, string>[]);
    const c = emptyCandidate('arxiv');
    c.arxivId = normaliseArxivId(id);
    c.title = text(e[`${ns.atom}title`]);
    c.abstract = text(e[`${ns.atom}summary`]);
    c.authors = list(e[`${ns.atom}author`] as Record<string, unknown>[])
      .map((a) => text(a[`${ns.atom}name`]))
      .filter((n): n is string => !!n);
    c.year = parseYear(text(e[`${ns.atom}published`]));
    c.doi = normaliseDoi(text(e[`${ns.arxiv}doi`]));
    c.venue = text(e[`${ns.arxiv}journal_ref`]);
    c.url = links.find((l) => l['@_rel'] === 'alternate')?.['@_href'] ?? (c.arxivId ? `https://arxiv.org/abs/${c.arxivId}` : null);
    // The licence: arxiv:license where the feed gives it, else an Atom licence link (RFC 4946).
    c.license = text(e[`${ns.arxiv}license`]) ?? links.find((l) => l['@_rel'] === 'license')?.['@_href'] ?? null;
    if (c.arxivId) entries.push(c);
  }
  const total = Number(text(feed[`${ns.os}totalResults`]));
  return { total: Number.isFinite(total) ? total : null, entries };
}

/** The arXiv query for free text: each word as `all:word`, ANDed; a query using arXiv's field prefixes is kept. */
export function arxivQuery(query: string, options: SearchOptions = {}): string {
  const q = query.trim();
  let out = /\b(?:ti|au|abs|co|jr|cat|rn|id|all|submittedDate):/.test(q)
    ? q
    : q
        .split(/\s+/)
        .filter(Boolean)
        .map((w) => `all:${w.replace(/[():"]/g, '')}`)
        .join(' AND ');
  if (options.since || options.until) {
    const from = `${options.since ?? 1991}01010000`;
    const to = `${options.until ?? 2999}12312359`;
    out = `(${out}) AND submittedDate:[${from} TO ${to}]`;
  }
  return out;
}

/** Search arXiv: up to `max` candidates, most relevant first (pages of at most 100). */
export async function searchArxiv(ctx: SourceContext, query: string, options: SearchOptions = {}): Promise<Candidate[]> {
  const max = options.max ?? 20;
  const out: Candidate[] = [];
  for (let start = 0; out.length < max;) {
    const size = Math.min(100, max - out.length);
    const url = `${ctx.config.arxivApiUrl}?${new URLSearchParams({ search_query: arxivQuery(query, options), start: String(start), max_results: String(size), sortBy: 'relevance' })}`;
    const feed = parseArxivAtom(await ctx.http.text(url, { signal: ctx.signal }));
    out.push(...feed.entries);
    start += size;
    if (feed.entries.length < size || (feed.total !== null && start >= feed.total)) break;
  }
  return out.slice(0, max);
}

/** Metadata (abstract, licence, DOI) of arXiv ids, 100 per request. Ids arXiv does not know are left out. */
export async function arxivByIds(ctx: SourceContext, ids: readonly string[]): Promise<Map<string, Candidate>> {
  const out = new Map<string, Candidate>();
  const unique = [...new Set(ids.map((i) => normaliseArxivId(i)).filter((i): i is string => !!i))];
  for (let i = 0; i < unique.length; i += 100) {
    const chunk = unique.slice(i, i + 100);
    const url = `${ctx.config.arxivApiUrl}?${new URLSearchParams({ id_list: chunk.join(','), max_results: String(chunk.length) })}`;
    for (const c of parseArxivAtom(await ctx.http.text(url, { signal: ctx.signal })).entries) out.set(c.arxivId!, c);
  }
  return out;
}

export type EprintContent = { kind: 'latex'; main: string; dir: string } | { kind: 'pdf'; path: string } | { kind: 'none'; reason: string };

/** Files an e-print's tar may hold: real sources have tens to hundreds; a tar of countless empty files is refused. */
const MAX_TAR_ENTRIES = 10_000;

/** An e-print over its budget (packed, unpacked or extracted): the entry fails with this reason. */
export class EprintTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EprintTooLargeError';
  }
}

/**
 * Downloads arXiv's e-print of `id` into the cache and unpacks it: a gzipped tar (extracted; its main .tex is the
 * one with \documentclass, the largest when several), a single gzipped .tex, or a PDF. Everything streams through
 * files under one byte budget (`maxEprintBytes`: the download, the decompressed e-print and the extracted tar
 * each), so a small compressed bomb stops at the budget instead of filling memory.
 */
export async function fetchArxivEprint(ctx: SourceContext, id: string): Promise<EprintContent> {
  const budget = ctx.config.maxEprintBytes;
  const safe = id.replace(/[^\w.-]+/g, '_');
  const file = join(ctx.config.cacheDir, 'arxiv', `${safe}.eprint`);
  const got = await download(ctx.http, `${ctx.config.arxivUrl}/e-print/${id}`, file, { signal: ctx.signal, maxBytes: budget });
  const dir = join(ctx.config.cacheDir, 'arxiv', `${safe}.src`);
  const unpacked = `${dir}.unpacked`;
  try {
    const gz = await readHead(got.path, 2);
    if (gz[0] === 0x1f && gz[1] === 0x8b) await gunzipFile(got.path, unpacked, budget, ctx.signal);
    const data = gz[0] === 0x1f && gz[1] === 0x8b ? unpacked : got.path;
    const head = await readHead(data, 512);
    if (Buffer.from(head.subarray(0, 5)).toString('latin1') === '%PDF-') {
      const path = `${dir}.pdf`;
      if (data === unpacked) await rename(unpacked, path);
      else await writeFile(path, await readFile(data));
      return { kind: 'pdf', path };
    }
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    if (Buffer.from(head.subarray(257, 262)).toString('latin1') === 'ustar') {
      await extractTar(data, dir, budget);
    } else {
      const tex = await readFile(data, 'utf8');
      if (!isLatexMain(tex)) return { kind: 'none', reason: 'the e-print is neither a tar, a LaTeX file nor a PDF' };
      await writeFile(join(dir, 'main.tex'), tex);
    }
  } catch (e) {
    if (e instanceof EprintTooLargeError) await rm(dir, { recursive: true, force: true });
    throw e;
  } finally {
    await rm(unpacked, { force: true });
  }
  const main = await findMainTex(dir);
  return main ? { kind: 'latex', main, dir } : { kind: 'none', reason: 'the e-print has no main LaTeX file' };
}

async function readHead(path: string, bytes: number): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Gunzips `from` into `to`, stopping with EprintTooLargeError as soon as the output passes `budget` bytes. */
async function gunzipFile(from: string, to: string, budget: number, signal?: AbortSignal): Promise<void> {
  let out = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, next) {
      out += chunk.length;
      if (out > budget) next(new EprintTooLargeError(`the e-print unpacks to more than the ${megabytes(budget)} limit (maxEprintBytes)`));
      else next(null, chunk);
    },
  });
  try {
    await pipeline(createReadStream(from), createGunzip(), count, createWriteStream(to), { signal });
  } catch (e) {
    await rm(to, { force: true });
    if (e instanceof EprintTooLargeError || signal?.aborted) throw e;
    throw new Error(`the e-print is not a readable gzip file (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
}

/**
 * Extracts the tar at `file` into `dir` with node-tar, which drops absolute paths and `..`; links are skipped.
 * The files' sizes add up to at most `budget` bytes and their number to MAX_TAR_ENTRIES.
 */
async function extractTar(file: string, dir: string, budget: number): Promise<void> {
  const tar = await import('tar');
  let bytes = 0;
  let entries = 0;
  let over: string | null = null;
  await tar.x({
    file,
    cwd: dir,
    strict: false,
    filter: (_p, entry) => {
      if (over || !('type' in entry) || (entry.type !== 'File' && entry.type !== 'Directory')) return false;
      bytes += entry.size ?? 0;
      entries++;
      if (bytes > budget) over = `the e-print's files add up to more than the ${megabytes(budget)} limit (maxEprintBytes)`;
      else if (entries > MAX_TAR_ENTRIES) over = `the e-print holds more than ${MAX_TAR_ENTRIES} files`;
      return !over;
    },
  });
  if (over) throw new EprintTooLargeError(over);
}

/** The main .tex of an unpacked e-print: has \documentclass; the largest (with what it includes) when several. */
async function findMainTex(dir: string): Promise<string | null> {
  const found: { path: string; size: number }[] = [];
  const walk = async (d: string, depth: number): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory() && depth < 4) await walk(p, depth + 1);
      else if (e.isFile() && /\.tex$/i.test(e.name)) {
        const t = await readFile(p, 'utf8');
        if (isLatexMain(t)) found.push({ path: p, size: (await stat(p)).size + (/\\begin\s*\{document\}/.test(t) ? 1e9 : 0) });
      }
    }
  };
  await walk(dir, 0);
  found.sort((a, b) => b.size - a.size || a.path.localeCompare(b.path));
  return found[0]?.path ?? null;
}

/** arXiv's HTML rendering of `id`, or null when arXiv has none (404). */
export async function fetchArxivHtml(ctx: SourceContext, id: string): Promise<string | null> {
  const res = await ctx.http.get(`${ctx.config.arxivUrl}/html/${id}`, {
    signal: ctx.signal,
    accept: [404],
    maxBytes: ctx.config.maxEprintBytes,
  });
  if (res.status === 404) return null;
  const html = Buffer.from(res.body).toString('utf8');
  if (!/<html|<article/i.test(html)) throw new HttpError(`${res.url}: not an HTML page`, res.url, res.status);
  return html;
}
