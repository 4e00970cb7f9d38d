// The paper model every reader (PDF, LaTeX project, arXiv HTML, Markdown, BibTeX) produces. A later pipeline maps a
// ParsedPaper to the store's PaperInput (src/core/store/types.ts) plus embeddings: the field names match.
import type { BibIndex } from '../bib/index.js';
import type { PaperFields } from '../paper/fields.js';
import type { MadeUpFrom } from '../paper/made-up-title.js';
import type { CitedWork, ElementFields } from '../store/types.js';

/** A figure, table or equation of a paper (label, caption, content, its section and position; page and box in PDFs). */
export type ParsedElement = ElementFields;

/** A section of a paper, in reading order. */
export interface ParsedSection {
  /** Clean title ('Abstract' for the abstract, '' for text before any heading). */
  title: string;
  /** '1', '2.1', 'A' … or null for unnumbered (starred / unnumbered) headings. */
  number: string | null;
  /** 0 = part/chapter, 1 = section, 2 = subsection … (Markdown: the `#` count). */
  level: number;
}

/** A sentence of a paper. */
export interface ParsedSentence extends SentenceSource {
  /** Index into ParsedPaper.sections. */
  sectionIndex: number;
  /** Position within its section (restarts at 0 per section). */
  sentenceIndex: number;
  /** Position within the paper. */
  globalIndex: number;
  /** 1-based page where known (PDF), else null. */
  page: number | null;
  /** PDF: the lines it is printed on (SentenceLocation in src/core/store/types.ts says how they are counted). */
  lineStart?: number | null;
  lineEnd?: number | null;
  /** PDF: the page it ends on (`page` unless it runs over a page break). */
  pageEnd?: number | null;
  /** Clean text (markup removed), as embedded and stored. */
  text: string;
}

/** LaTeX: the file (relative to the main file's folder) and 1-based line a sentence starts on. */
export interface SentenceSource {
  sourceFile?: string | null;
  sourceLine?: number | null;
}

export interface ParsedPaper extends PaperFields {
  /** Stable: 'doi:10.…' (lower-cased), else 'arxiv:2503.12436', else 'sha256:<hex of normalised content>'. */
  id: string;
  bibtex: string | null;
  citationKey: string | null;
  /** The key is the user's own (their .bib entry's, their Zotero / Better BibTeX item's), not one made up here. */
  ownKey?: boolean;
  sourcePath: string | null;
  /** sha256 (hex) of the source file's bytes (for "unchanged file → no work"); for a LaTeX project, of all its files. */
  contentHash: string;
  /** Web sources: where the text came from and the licence the source states (stored with the paper). */
  source?: string | null;
  license?: string | null;
  sections: ParsedSection[];
  sentences: ParsedSentence[];
  /** Figures, tables and equations in reading order (readers that find none leave it empty or absent). */
  elements?: ParsedElement[];
  /** The works its sentences cite, linked through its reference list or .bib (ingest/references.ts). */
  citedWorks?: CitedWork[];
  /** A PDF that gave no title (and matched no .bib / Zotero entry): page 1's text, for a model to propose metadata from. */
  firstPage?: string;
  /** The model that proposed its title, authors and year (ingest/propose-metadata.ts); absent for real metadata. */
  metadataProposedBy?: string | null;
  /**
   * The title is a display name the reader made up (a LaTeX document without \title), and where from: its first
   * heading or its file name. Not the paper's: matching ignores it, and another record's real title replaces it
   * (identity.ts, stored-work.ts); stored as papers.metadata_proposed_by (paper/made-up-title.ts).
   */
  titleFallback?: MadeUpFrom | null;
}

export interface ReadError {
  file: string;
  reason: string;
}

export interface ReadResult {
  papers: ParsedPaper[];
  /** Per-file / per-entry problems. A reader never throws for bad input: it reports here and goes on. */
  errors: ReadError[];
  /** Problems that lost nothing (a .bib entry kept with an undefined macro as its text). */
  warnings?: ReadError[];
  /** Set when the file is deliberately not a paper of its own (e.g. a .tex \input by a main file). */
  skipped?: string;
}

export interface ReadOptions {
  /** Metadata from .bib files, matched by DOI or normalised title to fill in what a paper lacks. */
  bib?: BibIndex;
  signal?: AbortSignal;
}

/** The kinds of source readPaperFile understands. */
export type SourceKind = 'pdf' | 'latex' | 'html' | 'markdown' | 'bibtex';
