// What the Cite action inserts: the citation command for the document's format, and the BibTeX entry to
// add — or the key of an entry already in the project's .bib for the same DOI or title (then nothing is added).
import { formatBibtexEntry, makeCitationKey, type CitablePaper } from './format.js';
import { BibIndex, parseBibtex } from './parse.js';

export type CitationCommand = 'cite' | 'citep' | 'citet' | 'autocite' | 'parencite';

/** `\cite{key}` (or the configured command) in LaTeX, `[@key]` in Markdown. */
export function citationText(format: 'latex' | 'markdown', key: string, command: CitationCommand = 'cite'): string {
  return format === 'markdown' ? `[@${key}]` : `\\${command}{${key}}`;
}

export interface CitationPlan {
  key: string;
  /** The entry to append to the .bib, or null when one for this paper is already there. */
  entry: string | null;
}

/**
 * The key to cite `paper` with, reusing an existing entry with the same DOI or normalised title. A paper that comes
 * with its own key and entry (a Zotero item) keeps them, and an entry already there under that key is reused.
 */
export async function planCitation(bibText: string, paper: CitablePaper, own?: { key: string; entry: string }): Promise<CitationPlan> {
  const { records } = await parseBibtex(bibText);
  const existing = new BibIndex(records).match({ doi: paper.doi, arxivId: paper.arxivId, title: paper.title });
  if (existing) return { key: existing.key, entry: null };
  const keys = new Set([...records.map((r) => r.key), ...rawKeys(bibText)]);
  if (own) return { key: own.key, entry: keys.has(own.key) ? null : own.entry };
  const key = makeCitationKey(paper, keys);
  return { key, entry: formatBibtexEntry(paper, key) };
}

/** Keys as written, also those of entries the parser could not read (a new key must not collide with them). */
function rawKeys(bibText: string): string[] {
  return [...bibText.matchAll(/@\w+\s*[{(]\s*([^,\s]+)\s*,/g)].map((m) => m[1]);
}

/**
 * The .bib files a document names: `\bibliography{a,b}` / `\addbibresource{x.bib}` in LaTeX, `bibliography:`
 * in Markdown front matter. Paths are as written (relative to the document), with `.bib` added where missing.
 */
export function bibFilesNamedBy(text: string, format: 'latex' | 'markdown'): string[] {
  const names: string[] = [];
  if (format === 'latex') {
    for (const m of text.matchAll(/^[^%\n]*?\\(?:bibliography|addbibresource)\s*(?:\[[^\]]*\])?\s*\{([^}]+)\}/gm)) {
      names.push(...m[1].split(',').map((s) => s.trim()).filter(Boolean));
    }
  } else {
    const front = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\s*(?:\r?\n|$)/.exec(text);
    const m = front && /^bibliography:\s*(?:\[([^\]]*)\]|(.+))$/m.exec(front[1]);
    if (m) names.push(...(m[1] ?? m[2]).split(',').map((s) => s.trim().replace(/^["']|["']$/g, '')).filter(Boolean));
  }
  return names.map((n) => (n.endsWith('.bib') ? n : `${n}.bib`));
}
