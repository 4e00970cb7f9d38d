// Which citation a page locator belongs to. Pandoc gives each key of `[@a; @b]` its own locator (`[@a; @b, p. 3]`),
// so for Markdown the citation is narrowed to the one key and its own locator; a LaTeX note is the whole
// citation's, so a citation of several keys gets none (p. 3 of one paper is not p. 3 of the others). Pure.
import type { CitationSite } from '../../core/cite-check/types.js';

export function siteForLocator(text: string, site: CitationSite, key: string): CitationSite | null {
  const kr = site.keyRanges.find((k) => k.key === key);
  if (!kr) return null;
  if (site.command !== 'markdown') return site.keyRanges.length === 1 ? site : null;
  if (site.keyRanges.length === 1) return site;
  // What follows this key up to the next key or the bracket's end: its own locator, if any.
  const rest = /^[^;\]]*/.exec(text.slice(kr.end))![0];
  const locator = /^\s*,\s*(\S[\s\S]*?)\s*$/.exec(rest)?.[1] ?? null;
  return { ...site, keys: [key], keyRanges: [kr], locator, locatorInsertAt: kr.end };
}
