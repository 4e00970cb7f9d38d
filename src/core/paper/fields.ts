// What every record of a paper says about it, whoever wrote the record (a .bib entry, a Zotero item, a search
// hit, a parsed file): one shape, so that a new source maps onto the same fields the readers, the store and
// the BibTeX writer already use. A leaf: it imports nothing.

export interface PaperFields {
  title: string | null;
  /** Display names, 'First Last' (or a single-field name as written). */
  authors: string[];
  year: number | null;
  venue: string | null;
  doi: string | null;
  arxivId: string | null;
  url: string | null;
  abstract: string | null;
}

/** Metadata a reader found (all optional). */
export interface PaperMeta extends Partial<PaperFields> {
  bibtex?: string | null;
  citationKey?: string | null;
}
