// Which corpus paper a cited key names. A citation is written with the author's .bib key; the corpus knows a paper
// by its id (doi:…, arxiv:…, sha256:…), the key it was indexed under (the .bib's or Zotero's, when ingest had one),
// its DOI and its title. The project's .bib entry for the key bridges the two: its DOI, arXiv id or title finds
// the paper even when the corpus was built from PDFs under other keys (the one-paper-per-work identity of ingest
// uses the same normalisers, core/paper/ids).
import type { BibIndex } from '../bib/bib-index.js';
import { idsOfPaperId, normaliseArxivId, normaliseDoi, normaliseTitle } from '../paper/ids.js';
import type { CorpusStore, PaperRef } from '../store/types.js';
import type { PaperCatalogLike } from './types.js';

/** Titles shorter than this (normalised) are too generic to identify a paper. */
const MIN_TITLE_CHARS = 8;

export class PaperCatalog implements PaperCatalogLike {
  private readonly byId = new Map<string, PaperRef>();
  private readonly byKey = new Map<string, PaperRef>();
  private readonly byDoi = new Map<string, PaperRef>();
  private readonly byArxiv = new Map<string, PaperRef>();
  private readonly byTitle = new Map<string, PaperRef>();

  constructor(
    private readonly all: readonly PaperRef[],
    private readonly bib: BibIndex | null = null,
  ) {
    for (const p of all) {
      this.byId.set(p.id, p);
      if (p.citationKey && !this.byKey.has(p.citationKey.toLowerCase())) this.byKey.set(p.citationKey.toLowerCase(), p);
      const ids = idsOfPaperId(p.id);
      const doi = normaliseDoi(p.doi) ?? ids.doi;
      if (doi && !this.byDoi.has(doi)) this.byDoi.set(doi, p);
      if (ids.arxivId && !this.byArxiv.has(ids.arxivId)) this.byArxiv.set(ids.arxivId, p);
      const t = p.title ? normaliseTitle(p.title) : '';
      if (t.length >= MIN_TITLE_CHARS && !this.byTitle.has(t)) this.byTitle.set(t, p);
    }
  }

  /**
   * The corpus's papers (the store's listPapers; a store without it yields an empty catalog, where only paper ids
   * resolve, through the store's own lookups) with the project's .bib to bridge keys.
   */
  static async load(store: CorpusStore, bib: BibIndex | null = null): Promise<PaperCatalog> {
    return new PaperCatalog(store.listPapers ? await store.listPapers() : [], bib);
  }

  papers(): readonly PaperRef[] {
    return this.all;
  }

  resolve(cite: string): PaperRef | null {
    const c = cite.trim();
    if (!c) return null;
    const direct = this.byId.get(c) ?? this.byKey.get(c.toLowerCase());
    if (direct) return direct;
    // A DOI or arXiv id written as the key (doi:…, 10.…, arXiv:…).
    const doi = normaliseDoi(c.replace(/^doi:/i, ''));
    if (doi && this.byDoi.has(doi)) return this.byDoi.get(doi)!;
    const ax = /^arxiv:/i.test(c) ? normaliseArxivId(c.replace(/^arxiv:/i, '')) : null;
    if (ax && this.byArxiv.has(ax)) return this.byArxiv.get(ax)!;
    const entry = this.bib?.entry(c);
    if (!entry) return null;
    const eDoi = normaliseDoi(entry.doi);
    const eAx = normaliseArxivId(entry.arxivId);
    const eTitle = entry.title ? normaliseTitle(entry.title) : '';
    return (
      (eDoi && this.byDoi.get(eDoi)) ||
      (eAx && this.byArxiv.get(eAx)) ||
      (eTitle.length >= MIN_TITLE_CHARS && this.byTitle.get(eTitle)) ||
      null
    );
  }
}
