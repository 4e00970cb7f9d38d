// The quick fixes' text edits, each one replacement of the document's text (one undoable edit in the editor).
import type { CitationSite, CiteFormat, TextEdit } from './types.js';

/**
 * Adds a page locator: `\cite[p.~3]{k}` (LaTeX), `[@k, p. 3]` (Markdown), `@k [p. 3]` (Markdown in-text). Null when
 * the citation already has a locator (the author's stands).
 */
export function locatorEdit(site: CitationSite, format: CiteFormat, page: number): TextEdit | null {
  if (site.locator) return null;
  if (format === 'latex') {
    if (site.locatorInsertAt === null) return null;
    return { range: { start: site.locatorInsertAt, end: site.locatorInsertAt }, text: `[p.~${page}]` };
  }
  if (site.locatorInsertAt !== null) return { range: { start: site.locatorInsertAt, end: site.locatorInsertAt }, text: `, p. ${page}` };
  return { range: { start: site.range.end, end: site.range.end }, text: ` [p. ${page}]` };
}

/**
 * Cites `newKey` instead of `oldKey` (the key replaced where it stands), or also (added after it: `\cite{a,new}`,
 * `[@a; @new]`, in-text `@a and @new`). Null when the site does not cite `oldKey`.
 */
export function replaceKeyEdit(site: CitationSite, oldKey: string, newKey: string, mode: 'instead' | 'also'): TextEdit | null {
  const k = site.keyRanges.find((r) => r.key === oldKey);
  if (!k) return null;
  if (mode === 'instead') return { range: { start: k.start, end: k.end }, text: newKey };
  if (site.command !== 'markdown') return { range: { start: k.end, end: k.end }, text: `,${newKey}` };
  // Markdown: a bracketed group gets the key before its closing bracket (locators stay with their keys).
  if (site.range.end > k.end) {
    return { range: { start: site.range.end - 1, end: site.range.end - 1 }, text: `; @${newKey}` };
  }
  return { range: { start: site.range.end, end: site.range.end }, text: ` and @${newKey}` };
}
