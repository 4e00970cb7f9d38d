// Semantic Scholar's Graph API: `paper/search` for candidates and `paper/{DOI:…|ARXIV:…}` for one paper, with
// its open-access PDF (`openAccessPdf`). The API key (optional) goes in the `x-api-key` header; it comes from the
// caller (VS Code SecretStorage or the environment), never from a workspace setting.
import { emptyCandidate, type Candidate, type SearchOptions, type SourceContext } from './types.js';
import { normaliseArxivId, normaliseDoi } from '../paper/ids.js';

const FIELDS = 'title,authors,year,venue,externalIds,abstract,openAccessPdf,url';

interface S2Paper {
  paperId?: string;
  title?: string | null;
  authors?: { name?: string | null }[];
  year?: number | null;
  venue?: string | null;
  externalIds?: Record<string, string | number | null> | null;
  abstract?: string | null;
  url?: string | null;
  openAccessPdf?: { url?: string | null; license?: string | null; status?: string | null } | null;
}

function headers(ctx: SourceContext): Record<string, string> {
  return ctx.config.s2ApiKey ? { 'x-api-key': ctx.config.s2ApiKey } : {};
}

export function s2ToCandidate(p: S2Paper): Candidate {
  const c = emptyCandidate('s2');
  c.title = p.title?.trim() || null;
  c.authors = (p.authors ?? []).map((a) => a.name?.trim() ?? '').filter(Boolean);
  c.year = typeof p.year === 'number' ? p.year : null;
  c.venue = p.venue?.trim() || null;
  c.doi = normaliseDoi(String(p.externalIds?.DOI ?? ''));
  c.arxivId = normaliseArxivId(String(p.externalIds?.ArXiv ?? ''));
  c.abstract = p.abstract?.trim() || null;
  c.url = p.url ?? null;
  c.pdfUrl = p.openAccessPdf?.url || null;
  c.license = p.openAccessPdf?.license || null;
  return c;
}

/** Search Semantic Scholar (pages of at most 100). */
export async function searchS2(ctx: SourceContext, query: string, options: SearchOptions = {}): Promise<Candidate[]> {
  const max = options.max ?? 20;
  const out: Candidate[] = [];
  for (let offset = 0; out.length < max;) {
    const limit = Math.min(100, max - out.length);
    const params = new URLSearchParams({ query, offset: String(offset), limit: String(limit), fields: FIELDS });
    if (options.since || options.until) params.set('year', `${options.since ?? ''}-${options.until ?? ''}`);
    const page = await ctx.http.json<{ total?: number; next?: number; data?: S2Paper[] }>(`${ctx.config.s2Url}/paper/search?${params}`, {
      signal: ctx.signal,
      headers: headers(ctx),
    });
    const data = page.data ?? [];
    out.push(...data.map(s2ToCandidate));
    if (!data.length || page.next === undefined) break;
    offset = page.next;
  }
  return out.slice(0, max);
}

/** One paper by DOI or arXiv id, or null when Semantic Scholar does not know it (404). */
export async function s2Paper(ctx: SourceContext, ref: { doi?: string | null; arxivId?: string | null }): Promise<Candidate | null> {
  const id = ref.doi ? `DOI:${ref.doi}` : ref.arxivId ? `ARXIV:${ref.arxivId}` : null;
  if (!id) return null;
  const res = await ctx.http.get(`${ctx.config.s2Url}/paper/${encodeURIComponent(id)}?fields=${FIELDS}`, {
    signal: ctx.signal,
    headers: { accept: 'application/json', ...headers(ctx) },
    accept: [404],
  });
  if (res.status === 404) return null;
  return s2ToCandidate(JSON.parse(Buffer.from(res.body).toString('utf8')) as S2Paper);
}
