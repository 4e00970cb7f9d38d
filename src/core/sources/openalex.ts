// OpenAlex: `/works?search=` for candidates, `/works/doi:…` for one work, and a title search for a bibliography
// entry without identifiers. A work's open full text is its `best_oa_location` (PDF URL and licence); an arXiv copy
// shows as a location on arxiv.org. `mailto` (the contact setting) puts requests in OpenAlex's polite pool.
import { emptyCandidate, type Candidate, type SearchOptions, type SourceContext } from './types.js';
import { normaliseArxivId, normaliseDoi, normaliseTitle } from '../paper/ids.js';

interface Location {
  landing_page_url?: string | null;
  pdf_url?: string | null;
  license?: string | null;
  source?: { display_name?: string | null } | null;
}

interface Work {
  id?: string;
  doi?: string | null;
  title?: string | null;
  display_name?: string | null;
  publication_year?: number | null;
  authorships?: { author?: { display_name?: string | null } }[];
  primary_location?: Location | null;
  best_oa_location?: Location | null;
  locations?: Location[];
  abstract_inverted_index?: Record<string, number[]> | null;
}

/** The abstract from OpenAlex's inverted index (word → positions). */
export function invertedAbstract(index: Record<string, number[]> | null | undefined): string | null {
  if (!index) return null;
  const words: string[] = [];
  for (const [w, positions] of Object.entries(index))
    for (const p of positions) if (Number.isInteger(p) && p >= 0 && p < 100_000) words[p] = w;
  const text = words
    .filter((w) => w !== undefined)
    .join(' ')
    .trim();
  return text || null;
}

export function workToCandidate(w: Work): Candidate {
  const c = emptyCandidate('openalex');
  c.title = (w.title ?? w.display_name)?.trim() || null;
  c.authors = (w.authorships ?? []).map((a) => a.author?.display_name?.trim() ?? '').filter(Boolean);
  c.year = typeof w.publication_year === 'number' ? w.publication_year : null;
  c.venue = w.primary_location?.source?.display_name?.trim() || null;
  c.doi = normaliseDoi(w.doi);
  const locations = [w.best_oa_location, w.primary_location, ...(w.locations ?? [])].filter((l): l is Location => !!l);
  const onArxiv = locations.find((l) => /arxiv\.org\/(abs|pdf)\//i.test(l.landing_page_url ?? l.pdf_url ?? ''));
  c.arxivId =
    normaliseArxivId(onArxiv?.landing_page_url ?? onArxiv?.pdf_url) ??
    (c.doi?.startsWith('10.48550/arxiv.') ? normaliseArxivId(c.doi.slice(15)) : null);
  c.url = w.primary_location?.landing_page_url ?? (c.doi ? `https://doi.org/${c.doi}` : (w.id ?? null));
  c.abstract = invertedAbstract(w.abstract_inverted_index);
  c.pdfUrl = w.best_oa_location?.pdf_url ?? null;
  c.license = w.best_oa_location?.license ?? null;
  return c;
}

function params(ctx: SourceContext, extra: Record<string, string>): URLSearchParams {
  const p = new URLSearchParams(extra);
  if (ctx.config.contact) p.set('mailto', ctx.config.contact);
  if (ctx.config.openalexApiKey) p.set('api_key', ctx.config.openalexApiKey);
  return p;
}

/** Search OpenAlex works (pages of at most 200). */
export async function searchOpenAlex(ctx: SourceContext, query: string, options: SearchOptions = {}): Promise<Candidate[]> {
  const max = options.max ?? 20;
  const out: Candidate[] = [];
  const filters: string[] = [];
  if (options.since) filters.push(`from_publication_date:${options.since}-01-01`);
  if (options.until) filters.push(`to_publication_date:${options.until}-12-31`);
  for (let page = 1; out.length < max; page++) {
    const perPage = Math.min(200, max);
    const extra: Record<string, string> = { search: query, 'per-page': String(perPage), page: String(page) };
    if (filters.length) extra.filter = filters.join(',');
    const body = await ctx.http.json<{ results?: Work[] }>(`${ctx.config.openalexUrl}/works?${params(ctx, extra)}`, { signal: ctx.signal });
    const results = body.results ?? [];
    out.push(...results.map(workToCandidate));
    if (results.length < perPage) break;
  }
  return out.slice(0, max);
}

/** One work by DOI, or null when OpenAlex does not know it. */
export async function openAlexByDoi(ctx: SourceContext, doi: string): Promise<Candidate | null> {
  const res = await ctx.http.get(`${ctx.config.openalexUrl}/works/doi:${encodeURIComponent(doi)}?${params(ctx, {})}`, {
    signal: ctx.signal,
    accept: [404],
  });
  if (res.status === 404) return null;
  return workToCandidate(JSON.parse(Buffer.from(res.body).toString('utf8')) as Work);
}

/** The work whose normalised title equals `title` (among the first few search hits), or null. */
export async function openAlexByTitle(ctx: SourceContext, title: string, year?: number | null): Promise<Candidate | null> {
  const body = await ctx.http.json<{ results?: Work[] }>(
    `${ctx.config.openalexUrl}/works?${params(ctx, { search: title, 'per-page': '5' })}`,
    { signal: ctx.signal },
  );
  const want = normaliseTitle(title);
  const hits = (body.results ?? []).map(workToCandidate).filter((c) => c.title && normaliseTitle(c.title) === want);
  return hits.find((c) => !year || !c.year || Math.abs(c.year - year) <= 1) ?? null;
}
