/** The document formats the text engine understands. */
export type Format = 'latex' | 'markdown' | 'text';

export const FORMATS: readonly Format[] = ['latex', 'markdown', 'text'];

/** A sentence of a document: where it is in the source, and what the embedder sees. */
export interface Sentence {
  /** Start offset in UTF-16 code units, as `TextDocument.offsetAt` counts them. */
  start: number;
  /** End offset (exclusive). */
  end: number;
  /** The source slice `text.slice(start, end)`, markup included. */
  text: string;
  /** Markup removed, white space collapsed: the text to embed. */
  clean: string;
  /** Title of the section the sentence is in (clean text), or null before the first heading. */
  section: string | null;
}

/** A heading of the document outline. */
export interface Heading {
  /** Offset of the heading's first character. */
  start: number;
  /** Offset just after the heading (its closing brace or line end). */
  end: number;
  /** 0 = part/chapter … 5 = subparagraph for LaTeX; 1–6 for Markdown. */
  level: number;
  /** Clean title. */
  title: string;
}
