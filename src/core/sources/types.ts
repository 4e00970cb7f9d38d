// What the web sources share: a candidate paper (a search hit or a bibliography entry), the configuration (base
// URLs for mirrors and tests, contact, keys) and the context every source call receives.
import type { HttpClient } from '../net/http.js';
import type { PaperFields } from '../paper/fields.js';

export type SearchSource = 'arxiv' | 's2' | 'openalex';

/** A paper found by a search or named by a bibliography entry, before its full text is fetched. */
export interface Candidate extends PaperFields {
  /** Where the record came from ('bib' for an entry of the user's .bib, 'id' for a DOI / arXiv id given). */
  origin: SearchSource | 'bib' | 'id';
  /** An open-access PDF (OpenAlex best_oa_location.pdf_url / Semantic Scholar openAccessPdf.url). */
  pdfUrl: string | null;
  /** The licence as the source states it (a URL or a short name such as 'cc-by'), null when unknown. */
  license: string | null;
  /** The .bib's own key and entry, kept as they are. */
  citationKey: string | null;
  bibtex: string | null;
}

export interface SourcesConfig {
  /** arXiv's API (Atom): default https://export.arxiv.org/api/query */
  arxivApiUrl: string;
  /** arXiv's site, for /e-print/ID and /html/ID: default https://arxiv.org */
  arxivUrl: string;
  /** Semantic Scholar Graph API: default https://api.semanticscholar.org/graph/v1 */
  s2Url: string;
  /** OpenAlex API: default https://api.openalex.org */
  openalexUrl: string;
  /** E-mail sent in the User-Agent and as OpenAlex's `mailto`. */
  contact?: string;
  s2ApiKey?: string;
  openalexApiKey?: string;
  /** Milliseconds between two requests to arXiv (its terms of use: 3 000, one connection). */
  arxivIntervalMs: number;
  /** Between two Semantic Scholar requests (unauthenticated: 1 000). */
  s2IntervalMs: number;
  /** Between two OpenAlex requests (its polite pool allows 10 a second). */
  openalexIntervalMs: number;
  /** Store only metadata and abstract for papers without an open licence. */
  openLicenseOnly: boolean;
  /** Where downloads are cached (resumable). */
  cacheDir: string;
  /** Byte budget of one arXiv e-print: its download, its decompressed size and its extracted files (default 100 MiB). */
  maxEprintBytes: number;
  /** Byte budget of one downloaded PDF (default 200 MiB). */
  maxPdfBytes: number;
}

export const DEFAULT_URLS = {
  arxivApiUrl: 'https://export.arxiv.org/api/query',
  arxivUrl: 'https://arxiv.org',
  s2Url: 'https://api.semanticscholar.org/graph/v1',
  openalexUrl: 'https://api.openalex.org',
} as const;

export const DEFAULT_BUDGETS = { maxEprintBytes: 100 * 1024 * 1024, maxPdfBytes: 200 * 1024 * 1024 } as const;

export const DEFAULT_INTERVALS = { arxivIntervalMs: 3000, s2IntervalMs: 1000, openalexIntervalMs: 100 } as const;

/** What every source call receives. */
export interface SourceContext {
  http: HttpClient;
  config: SourcesConfig;
  signal?: AbortSignal;
}

export interface SearchOptions {
  /** At most this many candidates (default 20). */
  max?: number;
  /** Published in or after this year. */
  since?: number;
  /** Published in or before this year. */
  until?: number;
}

/** An empty candidate of `origin`, to fill in. */
export function emptyCandidate(origin: Candidate['origin']): Candidate {
  return {
    origin,
    title: null,
    authors: [],
    year: null,
    venue: null,
    doi: null,
    arxivId: null,
    url: null,
    abstract: null,
    pdfUrl: null,
    license: null,
    citationKey: null,
    bibtex: null,
  };
}

/** True for licences that let a shared corpus keep the full text: Creative Commons without NoDerivatives, CC0, public domain. */
export function isOpenLicense(license: string | null | undefined): boolean {
  if (!license) return false;
  const l = license.toLowerCase().replace(/[\s_]+/g, '-');
  if (/publicdomain|public-domain|\bpd\b|cc0|zero\/1\.0/.test(l)) return true;
  if (/-nd\b|by-nc-nd|by-nd|ccbyncnd|ccbynd/.test(l)) return false;
  return /creativecommons\.org\/licenses\/by|^cc-?by|^ccby/.test(l);
}
