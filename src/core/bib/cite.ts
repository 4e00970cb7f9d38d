// What the Cite action inserts: the citation command for the document's format, and the BibTeX entry to
// add — or the key of the entry already in the project's .bib for the paper (BibIndex.find: the same DOI, arXiv
// id, title or own key; then nothing is added).
import { formatBibtexEntry, makeCitationKey, type CitablePaper } from './format.js';
import { BibIndex } from './bib-index.js';

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
 * The key to cite `paper` with: that of the entry the .bib already has for it (BibIndex.find, as related work
 * asks), else the paper's own key and entry (a Zotero item's `own`, a corpus paper's indexed key) where the .bib
 * does not give that key to another paper, else a fresh key. Never throws for a malformed .bib.
 */
export async function planCitation(
  bibText: string,
  /** `id`: a corpus paper's id, whose DOI or arXiv id the .bib may hold it by. */
  paper: CitablePaper & { id?: string | null },
  own?: { key: string; entry: string },
): Promise<CitationPlan> {
  const index = await BibIndex.read(bibText);
  const ownKey = own?.key ?? paper.citationKey ?? null;
  const existing = index.find({ ...paper, citationKey: ownKey });
  if (existing) return { key: existing.key, entry: null };
  if (own && !index.hasKey(own.key)) return own;
  const key = makeCitationKey({ ...paper, citationKey: ownKey }, index.keys);
  return { key, entry: (own && rekey(own.entry, key)) ?? formatBibtexEntry(paper, key) };
}

/** `own`'s entry under another key (its key names another paper in the .bib), or null if it has no readable key. */
function rekey(entry: string, key: string): string | null {
  const head = /^(\s*@\w+\s*[{(]\s*)[^,\s]+(\s*,)/.exec(entry);
  return head ? head[1] + key + head[2] + entry.slice(head[0].length) : null;
}

/**
 * The .bib files a document names: `\bibliography{a,b}` / `\addbibresource{x.bib}` in LaTeX, `bibliography:`
 * in Markdown front matter. Paths are as written (relative to the document), with `.bib` added where missing.
 */
export function bibFilesNamedBy(text: string, format: 'latex' | 'markdown'): string[] {
  const names: string[] = [];
  if (format === 'latex') {
    for (const m of text.matchAll(/^[^%\n]*?\\(?:bibliography|addbibresource)\s*(?:\[[^\]]*\])?\s*\{([^}]+)\}/gm)) {
      names.push(
        ...m[1]
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      );
    }
  } else {
    const front = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\s*(?:\r?\n|$)/.exec(text);
    const m = front && /^bibliography:\s*(?:\[([^\]]*)\]|(.+))$/m.exec(front[1]);
    if (m)
      names.push(
        ...(m[1] ?? m[2])
          .split(',')
          .map((s) => s.trim().replace(/^["']|["']$/g, ''))
          .filter(Boolean),
      );
  }
  return names.map((n) => (n.endsWith('.bib') ? n : `${n}.bib`));
}
