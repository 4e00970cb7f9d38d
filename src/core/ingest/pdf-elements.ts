// Figures, tables and numbered equations of a PDF (seed 003's elements), from the lines pdf-assemble.ts sorts: a
// caption line ("Figure 3:", "Fig. 2.", "Table 2.") starts a figure or table; its region is the caption plus the
// non-prose lines right above it (a figure's labels, a table whose caption is below) or right below it (a table
// whose caption is above), or, for a figure drawn without text, the blank space between the text above and the
// caption. A display line ending in "(3)" is Equation (3). Each element keeps its page and that box.
import type { PaperAssembler } from './paper.js';
import type { PdfLine } from './pdf-layout.js';
import type { ElementType } from '../store/types.js';

/** What pdf-assemble.ts did with a line. */
export type LineKind = 'prose' | 'skipped' | 'caption' | 'other';

const CAPTION_LABEL = /^(Figure|Fig\.|Table)\s*([0-9]+[a-z]?|[IVX]+|S\d+)\s*[.:|]/;
const EQUATION_NUMBER = /\(\s*(\d+[a-z]?)\s*\)$/;
/** A text line's box reaches this far below its baseline and above it (× font size): descenders and ascenders. */
const DESCENT = 0.25;
const ASCENT = 0.8;

interface Pending {
  type: ElementType;
  label: string;
  /** Index of its first line in `lines`, and of its last (a caption's continuation lines). */
  first: number;
  last: number;
  /** The caption's text, read when the section is flushed (its continuation lines are appended until then). */
  caption: { text: string } | null;
  content: string | null;
  /** Offset in the section's prose buffer when the element was met: it follows the sentences before it. */
  bufferOffset: number;
}

type Box = [number, number, number, number];

/** Whether a line starts a figure or table caption; the element's type and label ("Fig. 2" → "Figure 2"). */
export function captionLabel(text: string): { type: ElementType; label: string } | null {
  const m = CAPTION_LABEL.exec(text);
  if (!m) return null;
  const type: ElementType = m[1] === 'Table' ? 'table' : 'figure';
  return { type, label: `${type === 'table' ? 'Table' : 'Figure'} ${m[2]}` };
}

export class PdfElements {
  private readonly lines: { line: PdfLine; kind: LineKind }[] = [];
  private pending: Pending[] = [];

  /**
   * `column(line)`: the left edge and width of the line's column, for the box of a figure without text.
   */
  constructor(private readonly column: (l: PdfLine) => { left: number; width: number }) {}

  /** Every line, in reading order, with what the assembler made of it. */
  note(line: PdfLine, kind: LineKind): void {
    this.lines.push({ line, kind });
    if (kind === 'caption' && this.pending.length) {
      // A caption's continuation line extends the last caption.
      const p = this.pending[this.pending.length - 1];
      if (p.caption && p.last === this.lines.length - 2) p.last = this.lines.length - 1;
    }
  }

  /** A caption line just noted: a figure or table whose caption text `caption` fills in as its lines are read. */
  caption(line: PdfLine, caption: { text: string }, bufferOffset: number): void {
    const c = captionLabel(line.text);
    if (!c) return;
    const i = this.lines.length - 1;
    this.pending.push({ ...c, first: i, last: i, caption, content: null, bufferOffset });
  }

  /** A display line just noted as skipped: Equation (n) when it ends in an equation number. */
  equation(line: PdfLine, bufferOffset: number): void {
    const m = EQUATION_NUMBER.exec(line.text);
    if (!m) return;
    const i = this.lines.length - 1;
    const content = line.text.slice(0, m.index).trim() || null;
    this.pending.push({ type: 'equation', label: `Equation (${m[1]})`, first: i, last: i, caption: null, content, bufferOffset });
  }

  /**
   * Hands the section's elements to the assembler (before the section's captions and footnotes are emitted as
   * sentences): `sentenceBefore(offset)` is the global index of the last sentence starting before that offset of the
   * section's prose.
   */
  flush(asm: PaperAssembler, sentenceBefore: (offset: number) => number): void {
    for (const p of this.pending) {
      const { box, content } = this.region(p);
      asm.element({
        type: p.type,
        label: p.label,
        caption: p.caption ? p.caption.text.trim() || null : null,
        content: p.type === 'table' ? content : p.content,
        page: this.lines[p.first].line.page,
        bbox: box,
        afterSentence: sentenceBefore(p.bufferOffset),
      });
    }
    this.pending = [];
  }

  private region(p: Pending): { box: Box; content: string | null } {
    const own = this.lines.slice(p.first, p.last + 1).map((x) => x.line);
    if (p.type === 'equation') return { box: boxOf(own), content: null };
    const page = own[0].page;
    const run = (from: number, step: number) => {
      const out: PdfLine[] = [];
      for (let i = from; i >= 0 && i < this.lines.length; i += step) {
        const { line, kind } = this.lines[i];
        if (line.page !== page || kind !== 'skipped') break;
        out.push(line);
      }
      return step < 0 ? out.reverse() : out;
    };
    const above = run(p.first - 1, -1);
    const below = run(p.last + 1, 1);
    // A figure's text sits above its caption; a table's caption is above it by convention, but LaTeX puts it
    // where the author wrote \caption: take the side that has lines, below first for a table.
    const body = p.type === 'table' ? (below.length ? below : above) : above.length ? above : below;
    if (body.length) {
      const content = body.map((l) => (l.parts.length > 1 ? l.parts.join(' | ') : l.text)).join('\n');
      return { box: boxOf([...body, ...own]), content };
    }
    // No text: the figure is the blank between the line above (on this page) and the caption, across its column.
    const prev = [...this.lines.slice(0, p.first)].reverse().find((x) => x.line.page === page)?.line;
    const col = this.column(own[0]);
    const top = prev ? prev.y + prev.size * DESCENT : 0;
    const caption = boxOf(own);
    return { box: [round(Math.min(col.left, caption[0])), round(top), round(Math.max(col.left + col.width, caption[2])), caption[3]], content: null };
  }
}

function boxOf(lines: readonly PdfLine[]): Box {
  return [
    round(Math.min(...lines.map((l) => l.x0))),
    round(Math.min(...lines.map((l) => l.y - l.size * ASCENT))),
    round(Math.max(...lines.map((l) => l.x1))),
    round(Math.max(...lines.map((l) => l.y + l.size * DESCENT))),
  ];
}

const round = (v: number) => Math.round(v * 10) / 10;
