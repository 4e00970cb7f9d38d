// "My bibliography as a corpus": the entries of a .bib, or a list of DOIs / arXiv ids, become candidates that keep
// the .bib's own citation key and entry; resolveIdentifiers then finds each one's arXiv id, DOI, open-access PDF,
// licence and abstract (OpenAlex by DOI or title, Semantic Scholar where OpenAlex has no open copy, arXiv's Atom
// API for arXiv ids, 100 ids a request) before the full text is fetched.
import { parseBibtex } from '../bib/parse.js';
import { arxivByIds } from './arxiv.js';
import { openAlexByDoi, openAlexByTitle } from './openalex.js';
import { s2Paper } from './semantic-scholar.js';
import { describeSourceError } from './errors.js';
import { emptyCandidate, type Candidate, type SourceContext } from './types.js';
import { normaliseArxivId, normaliseDoi } from '../paper/ids.js';

/** The arXiv id behind an arXiv DOI (10.48550/arXiv.2101.00001), else null. */
function arxivFromDoi(doi: string | null): string | null {
  return doi && /^10\.48550\/arxiv\./i.test(doi) ? normaliseArxivId(doi.slice('10.48550/arxiv.'.length)) : null;
}

/** One candidate per entry of a .bib text (malformed entries in `errors`). */
export async function candidatesFromBib(
  text: string,
  file: string | null = null,
): Promise<{ candidates: Candidate[]; errors: { file: string; reason: string }[] }> {
  const { records, errors } = await parseBibtex(text, file);
  const candidates = records.map((r) => {
    const c = emptyCandidate('bib');
    Object.assign(c, {
      title: r.title,
      authors: r.authors,
      year: r.year,
      venue: r.venue,
      doi: r.doi,
      url: r.url,
      abstract: r.abstract,
      citationKey: r.key,
      bibtex: r.bibtex,
    });
    c.arxivId = r.arxivId ?? arxivFromDoi(r.doi);
    return c;
  });
  return { candidates, errors };
}

/** Candidates for DOIs and arXiv ids (also as URLs or with an arXiv: prefix); anything else is reported. */
export function candidatesFromIds(ids: readonly string[]): { candidates: Candidate[]; errors: { file: string; reason: string }[] } {
  const candidates: Candidate[] = [];
  const errors: { file: string; reason: string }[] = [];
  for (const raw of ids.flatMap((i) => i.split(/[\s,]+/)).filter(Boolean)) {
    const c = emptyCandidate('id');
    c.doi = normaliseDoi(raw);
    c.arxivId = (c.doi ? arxivFromDoi(c.doi) : null) ?? (/10\.\d{4,9}\//.test(raw) ? null : normaliseArxivId(raw));
    if (!c.doi && !c.arxivId) errors.push({ file: raw, reason: 'neither a DOI nor an arXiv id' });
    else candidates.push(c);
  }
  return { candidates, errors };
}

/** Fills what `c` lacks from `found` (identifiers, open copy, licence, abstract); the candidate's own values win. */
export function fillFrom(c: Candidate, found: Candidate | null | undefined): void {
  if (!found) return;
  c.title ??= found.title;
  if (!c.authors.length) c.authors = found.authors;
  c.year ??= found.year;
  c.venue ??= found.venue;
  c.doi ??= found.doi;
  c.arxivId ??= found.arxivId;
  c.url ??= found.url;
  c.abstract ??= found.abstract;
  if (!c.pdfUrl && found.pdfUrl) {
    c.pdfUrl = found.pdfUrl;
    c.license ??= found.license;
  }
  if (found.origin === 'arxiv' && found.license) c.license = found.license;
}

export interface ResolveOptions {
  /** Ask Semantic Scholar for entries OpenAlex gave no open copy of (default true). */
  useS2?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** Lookups that failed (network) are reported here; the entry goes on with what it has. */
  onError?: (c: Candidate, reason: string) => void;
}

/** Looks up identifiers, open copies, licences and abstracts for the candidates, in place. */
export async function resolveIdentifiers(ctx: SourceContext, candidates: Candidate[], options: ResolveOptions = {}): Promise<void> {
  const lookups = candidates.filter((c) => c.origin !== 'arxiv' && !c.pdfUrl && !(c.arxivId && c.abstract));
  let done = 0;
  for (const c of lookups) {
    try {
      if (!c.arxivId) {
        const found = c.doi ? await openAlexByDoi(ctx, c.doi) : c.title ? await openAlexByTitle(ctx, c.title, c.year) : null;
        fillFrom(c, found);
      }
      if (options.useS2 !== false && !c.arxivId && !c.pdfUrl && c.doi) fillFrom(c, await s2Paper(ctx, { doi: c.doi }));
    } catch (e) {
      if (ctx.signal?.aborted) throw e;
      options.onError?.(c, describeSourceError(e, ctx.config));
    }
    options.onProgress?.(++done, lookups.length);
  }
  const arxiv = candidates.filter((c) => c.arxivId && c.origin !== 'arxiv');
  if (!arxiv.length) return;
  try {
    const byId = await arxivByIds(
      ctx,
      arxiv.map((c) => c.arxivId!),
    );
    for (const c of arxiv) fillFrom(c, byId.get(c.arxivId!));
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    for (const c of arxiv) options.onError?.(c, `arXiv metadata: ${describeSourceError(e, ctx.config)}`);
  }
}
