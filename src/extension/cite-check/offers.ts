// Which papers citation completion offers, and under which key, before ranking: every entry of the project's .bib
// (its key), then Zotero items the .bib lacks (their Zotero key), then corpus papers neither holds (Cite plans their
// key when offered). One paper is offered once: a corpus paper the .bib or Zotero has goes under that key, and the
// ranking resolves it to the corpus paper. Pure (no `vscode`), so its rules are tested directly.
import type { BibIndex } from '../../core/bib/bib-index.js';
import type { CompletionCandidate, PaperCatalogLike, RankedCandidate } from '../../core/cite-check/types.js';
import type { ZoteroItem } from '../../core/sources/zotero/index.js';
import type { PaperRef } from '../../core/store/types.js';

export interface Offered extends CompletionCandidate {
  /** A Zotero item the .bib lacks: its entry is added when chosen. */
  zotero?: ZoteroItem;
  /** A corpus paper neither the .bib nor Zotero has: Cite's entry for it is added when chosen. */
  corpusPaper?: PaperRef;
}

export function offeredPapers(
  bib: BibIndex,
  catalog: PaperCatalogLike | null,
  zotero: readonly ZoteroItem[],
  exclude: readonly string[] = [],
): Offered[] {
  const out: Offered[] = [];
  const keys = new Set(exclude);
  const offer = (c: Offered) => {
    if (keys.has(c.key)) return;
    keys.add(c.key);
    out.push(c);
  };
  for (const r of bib.records) offer({ key: r.key, title: r.title, authors: r.authors, year: r.year, source: 'bib' });
  const covered = new Set<string>();
  for (const p of catalog?.papers() ?? []) {
    if (bib.find({ id: p.id, doi: p.doi, title: p.title, citationKey: p.citationKey })) covered.add(p.id);
  }
  for (const item of zotero) {
    if (bib.find({ doi: item.doi, arxivId: item.arxivId, title: item.title, citationKey: item.citationKey })) continue;
    const paper = catalog?.resolve(item.citationKey) ?? (item.doi ? catalog?.resolve(`doi:${item.doi.toLowerCase()}`) : null) ?? null;
    if (paper && covered.has(paper.id)) continue;
    if (paper) covered.add(paper.id);
    offer({
      key: item.citationKey,
      paperId: paper?.id ?? null,
      title: item.title,
      authors: item.authors,
      year: item.year,
      source: 'zotero',
      zotero: item,
    });
  }
  for (const p of catalog?.papers() ?? []) {
    if (covered.has(p.id) || (p.citationKey && keys.has(p.citationKey))) continue;
    // Its key is planned later (as Cite plans it); the paper id stands in until then.
    offer({ key: p.id, paperId: p.id, title: p.title, authors: p.authors, year: p.year, source: 'corpus', corpusPaper: p });
  }
  return out;
}

/** Candidates in the order completion lists them: the ranking's (best support first); unranked, as offered. */
export function unranked(candidates: readonly CompletionCandidate[]): RankedCandidate[] {
  return candidates.map((c) => ({ ...c, paper: null, score: null, best: null }));
}
