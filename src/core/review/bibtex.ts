// Citation keys and BibTeX entries for cited papers: the formatter and key maker of src/core/bib (the Cite
// action's), plus the minimal reading of an existing .bib that reuse by DOI/title and the check need.
import { formatBibtexEntry, makeCitationKey } from '../bib/format.js';
import type { PaperRef } from '../store/types.js';
import type { ExistingBibEntry } from './types.js';

export { formatBibtexEntry, makeCitationKey };

function ascii(s: string): string {
  return s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
}

function cleanDoi(doi: string | null | undefined): string | null {
  if (!doi) return null;
  return doi.replace(/^\s*(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:)/i, '').trim() || null;
}

function titleKey(t: string | null | undefined): string {
  return ascii(t ?? '').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/** The existing entry for the same DOI or title, if any. */
export function findExisting(paper: PaperRef, existing: readonly ExistingBibEntry[]): ExistingBibEntry | undefined {
  const doi = cleanDoi(paper.doi)?.toLowerCase();
  const title = titleKey(paper.title);
  return existing.find(
    (e) => (doi && cleanDoi(e.doi ?? null)?.toLowerCase() === doi) || (title.length > 8 && titleKey(e.title) === title),
  );
}

/** Keys of the entries of a .bib text (for the check). */
export function bibKeys(bib: string): string[] {
  return [...bib.matchAll(/@\s*(?!comment|string|preamble)\w+\s*[{(]\s*([^,\s]+)\s*,/gi)].map((m) => m[1]);
}

/** Minimal .bib reader: key, doi and title of each entry (for reusing keys). */
export function parseBibEntries(bib: string): ExistingBibEntry[] {
  const out: ExistingBibEntry[] = [];
  const re = /@\s*(\w+)\s*[{(]\s*([^,\s]+)\s*,/g;
  const starts = [...bib.matchAll(re)].filter((m) => !/^(comment|string|preamble)$/i.test(m[1]));
  starts.forEach((m, i) => {
    const body = bib.slice(m.index!, i + 1 < starts.length ? starts[i + 1].index : bib.length);
    const field = (name: string) => {
      const f = new RegExp(`\\b${name}\\s*=\\s*(?:\\{((?:[^{}]|\\{[^{}]*\\})*)\\}|"([^"]*)")`, 'i').exec(body);
      return f ? (f[1] ?? f[2] ?? '').replace(/[{}]/g, '').trim() : null;
    };
    out.push({ key: m[2], doi: field('doi'), title: field('title') });
  });
  return out;
}
