// The text engine's public face: the sentence under the cursor and all sentences of a document, for
// LaTeX, Markdown and plain text. Lookups reuse a per-document outline, so one costs the same in a
// 200-line and a 20,000-line paper.
import { latexOutline, latexSentenceAt, latexSentences, type LatexOutline } from './latex.js';
import { markdownOutline, markdownSentenceAt, markdownSentences, type MarkdownOutline } from './markdown.js';
import { plainSentenceAt, plainSentences } from './plaintext.js';
import { FORMATS, type Format, type Heading, type Sentence } from './types.js';

export { FORMATS, type Format, type Heading, type Sentence };

type Outline = { format: 'latex'; outline: LatexOutline } | { format: 'markdown'; outline: MarkdownOutline } | { format: 'text' };

/**
 * A document's text and its outline, built once on first use. The extension keeps one per document
 * version; the free functions below keep the last one.
 */
export class TextModel {
  private built: Outline | undefined;

  constructor(
    readonly text: string,
    readonly format: Format,
  ) {
    if (!FORMATS.includes(format)) throw new Error(`unknown format '${format}' (expected ${FORMATS.join(', ')})`);
  }

  /** The sentence holding offset (start ≤ offset ≤ end), or null when the cursor is not in prose. */
  sentenceAt(offset: number): Sentence | null {
    if (!Number.isInteger(offset) || offset < 0 || offset > this.text.length) {
      throw new RangeError(`offset ${offset} is outside the document (0–${this.text.length})`);
    }
    const o = this.outline();
    if (o.format === 'latex') return latexSentenceAt(this.text, o.outline, offset);
    if (o.format === 'markdown') return markdownSentenceAt(this.text, o.outline, offset);
    return plainSentenceAt(this.text, offset);
  }

  /** Every sentence of the document, in order. */
  sentences(): Sentence[] {
    const o = this.outline();
    if (o.format === 'latex') return latexSentences(this.text, o.outline);
    if (o.format === 'markdown') return markdownSentences(this.text, o.outline);
    return plainSentences(this.text);
  }

  /** The paper's title (`\title{}`, front matter `title:` or the first `#` heading), or null. */
  title(): string | null {
    const o = this.outline();
    return o.format === 'text' ? null : o.outline.title;
  }

  /** The document's headings in order. */
  headings(): Heading[] {
    const o = this.outline();
    return o.format === 'text' ? [] : o.outline.headings;
  }

  private outline(): Outline {
    if (!this.built) {
      if (this.format === 'latex') this.built = { format: 'latex', outline: latexOutline(this.text) };
      else if (this.format === 'markdown') this.built = { format: 'markdown', outline: markdownOutline(this.text) };
      else this.built = { format: 'text' };
    }
    return this.built;
  }
}

let last: TextModel | undefined;

function modelFor(text: string, format: Format): TextModel {
  if (!last || last.text !== text || last.format !== format) last = new TextModel(text, format);
  return last;
}

/** The sentence holding the cursor offset, or null outside prose. Throws RangeError for a bad offset. */
export function sentenceAt(text: string, format: Format, offset: number): Sentence | null {
  return modelFor(text, format).sentenceAt(offset);
}

/** All sentences of a document in order. */
export function sentences(text: string, format: Format): Sentence[] {
  return modelFor(text, format).sentences();
}
