// A paper's identifiers and the values matched between records of it (a .bib entry, a Zotero item, a search hit, a
// parsed file), normalised one way everywhere so that the records agree on what is the same paper. A leaf.

/** Lower case, accents folded, punctuation and white space collapsed: for matching titles. */
export function normaliseTitle(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** '10.1000/XYZ' from a DOI, a doi: prefix or a doi.org URL; null when there is none. */
export function normaliseDoi(value: string | null | undefined): string | null {
  if (!value) return null;
  const m = /(10\.\d{4,9}\/[^\s"'<>{}]+)/.exec(value);
  if (!m) return null;
  return m[1].replace(/[.,;)\]]+$/, '').toLowerCase();
}

/** '2503.12436' or 'hep-th/9901001' (version dropped) from an arXiv id, 'arXiv:…' or an arxiv.org URL. */
export function normaliseArxivId(value: string | null | undefined): string | null {
  if (!value) return null;
  const m = /(?:arxiv\.org\/(?:abs|pdf|html)\/|arxiv:\s*|^\s*)(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?\/\d{7})(?:v\d+)?/i.exec(value);
  return m ? m[1] : null;
}

/** A year from a date-ish string ('2020', '2020-05-01', 'May 2020'), or null. */
export function parseYear(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value >= 1000 && value <= 2999 ? value : null;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.getUTCFullYear();
  if (typeof value !== 'string') return null;
  const m = /\b(1[5-9]\d\d|2[0-9]\d\d)\b/.exec(value);
  return m ? Number(m[1]) : null;
}

/**
 * The DOI or arXiv id a corpus paper id carries ('doi:10.1/x', 'arxiv:2503.12436'; ingest's paperId makes them):
 * the store's paper rows keep no arXiv id of their own, so this is how a stored paper is matched by it.
 */
export function idsOfPaperId(id: string | null | undefined): { doi: string | null; arxivId: string | null } {
  const m = /^(doi|arxiv):(.+)$/.exec(id ?? '');
  return { doi: m?.[1] === 'doi' ? normaliseDoi(m[2]) : null, arxivId: m?.[1] === 'arxiv' ? normaliseArxivId(m[2]) : null };
}
