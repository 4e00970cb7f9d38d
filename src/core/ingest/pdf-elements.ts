// Figures, tables and numbered equations of a PDF, from the lines pdf-assemble.ts sorts: a
// caption line ("Figure 3:", "Fig. 2.", "Table 2.") starts a figure or table; its region is the caption plus the
// non-prose lines right above it (a figure's labels, a table whose caption is below) or right below it (a table
// whose caption is above), or, for a figure drawn without text, the blank space between the text above and the
// caption. A display line ending in "(3)" is Equation (3). An unnumbered display equation is a short block of display
// lines set off from the text by white space above and below, centred in its column, with a mathematical sign, and
// touching neither a caption (a figure's or table's own text) nor a numbered equation (an align's \nonumber line, a
// sum's limits): an equation without a label. Each element keeps its page and that box.
import type { PaperAssembler } from './paper.js';
import type { PdfLine } from './pdf-layout.js';
import type { ElementType } from '../store/types.js';
import { pdfTableRows } from './pdf-table.js';

/** What pdf-assemble.ts did with a line. */
export type LineKind = 'prose' | 'skipped' | 'caption' | 'other';

const CAPTION_LABEL = /^(Figure|Fig\.|Table|TABLE)\s*([0-9]+[a-z]?|[IVX]+|S\d+)\s*(?:[.:|]|$)/;
const EQUATION_NUMBER = /\(\s*(\d+[a-z]?)\s*\)$/;
/** A text line's box reaches this far below its baseline and above it (× font size): descenders and ascenders. */
const DESCENT = 0.25;
const ASCENT = 0.8;
/**
 * An unnumbered display is set off by more white space than a line break: its first line's baseline lies this far
 * (× font size) below the line before it, and the line after it as far below its last (LaTeX's display skips add
 * ~1 line to the ~1.2 of a line break; measured 2.2 on the fixtures).
 */
const DISPLAY_GAP = 1.6;
/** ... its lines are centred in their column: their middle within this fraction of the column's width of its middle ... */
const DISPLAY_CENTRE = 0.08;
/** ... and narrower than this fraction of it (a justified line of prose is centred too, but fills its column) ... */
const DISPLAY_MAX_WIDTH = 0.8;
/** ... it has at most this many lines (a stacked fraction is three) ... */
const DISPLAY_MAX_LINES = 3;
/** ... and at least one mathematical sign: relations, operators, big operators, Greek letters. */
const MATH_SIGN = /[=<>≤≥≈≠≡∼∝∑∏∫∮√±∓×÷·∂∇∞∈∉∋⊂⊆⊃⊇∪∩∧∨¬→←↦⇒⇔∀∃∥]|[\u0370-\u03FF]/u;

interface Pending {
  type: ElementType;
  label: string | null;
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
  const type: ElementType = /^table$/i.test(m[1]) ? 'table' : 'figure';
  return { type, label: `${type === 'table' ? 'Table' : 'Figure'} ${m[2]}` };
}

/** The left and right edges of the text of a line's column on its page (its widest lines'). */
export type ColumnExtent = (l: PdfLine) => { x0: number; x1: number };

/**
 * Whether lines (in reading order, one page) look like an unnumbered display: a mathematical sign, every line centred
 * in its column and narrower than it, table cells excepted, and set off by white space from the lines before and
 * after it in the same column (`before`/`after`: those lines, if any).
 */
export function displayLike(run: readonly PdfLine[], column: ColumnExtent, before?: PdfLine, after?: PdfLine): boolean {
  if (!run.length || run.length > DISPLAY_MAX_LINES || !run.some((l) => MATH_SIGN.test(l.text)) || run.some((l) => l.parts.length > 1))
    return false;
  const centred = run.every((l) => {
    const { x0, x1 } = column(l);
    return l.x1 - l.x0 < (x1 - x0) * DISPLAY_MAX_WIDTH && Math.abs((l.x0 + l.x1) / 2 - (x0 + x1) / 2) <= (x1 - x0) * DISPLAY_CENTRE;
  });
  const first = run[0];
  const last = run[run.length - 1];
  const apart = (near: PdfLine | undefined, gap: number) =>
    !near || near.page !== first.page || near.col !== first.col || gap > first.size * DISPLAY_GAP;
  return centred && apart(before, first.y - (before?.y ?? 0)) && apart(after, (after?.y ?? 0) - last.y);
}

export class PdfElements {
  private readonly lines: { line: PdfLine; kind: LineKind }[] = [];
  private pending: Pending[] = [];
  /** Display lines without an equation number (by index in `lines`): the section's prose offset where each was met. */
  private readonly displays = new Map<number, number>();
  /** Index in `lines` of the first line of the section being read (the last flush's end). */
  private sectionStart = 0;

  /** `extent(line)`: the outermost left and right edges of the line's column (also the box of a figure without text). */
  constructor(private readonly extent: ColumnExtent) {}

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
    const i = this.lines.length - 1;
    if (!m) {
      this.displays.set(i, bufferOffset);
      return;
    }
    const content = line.text.slice(0, m.index).trim() || null;
    this.pending.push({ type: 'equation', label: `Equation (${m[1]})`, first: i, last: i, caption: null, content, bufferOffset });
  }

  /**
   * Hands the section's elements to the assembler (before the section's captions and footnotes are emitted as
   * sentences): `sentenceBefore(offset)` is the global index of the last sentence starting before that offset of the
   * section's prose.
   */
  flush(asm: PaperAssembler, sentenceBefore: (offset: number) => number): void {
    const all = [...this.pending, ...this.unnumbered()].sort((a, b) => a.first - b.first);
    for (const p of all) {
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
    this.displays.clear();
    this.sectionStart = this.lines.length;
  }

  /** The section's unnumbered display equations (see the header): blocks of display lines that pass every test. */
  private unnumbered(): Pending[] {
    const out: Pending[] = [];
    const { lines } = this;
    for (let a = this.sectionStart; a < lines.length; a++) {
      if (lines[a].kind !== 'skipped') continue;
      let b = a;
      while (b + 1 < lines.length && lines[b + 1].kind === 'skipped' && lines[b + 1].line.page === lines[a].line.page) b++;
      const run = lines.slice(a, b + 1).map((x) => x.line);
      const before = lines[a - 1];
      const after = lines[b + 1];
      const start = a;
      a = b;
      if (!this.displays.has(start)) continue;
      if (before?.kind === 'caption' || after?.kind === 'caption' || run.some((l) => EQUATION_NUMBER.test(l.text))) continue;
      if (!displayLike(run, this.extent, before?.line, after?.line)) continue;
      const content = run.map((l) => l.text).join('\n');
      out.push({ type: 'equation', label: null, first: start, last: b, caption: null, content, bufferOffset: this.displays.get(start)! });
    }
    return out;
  }

  private region(p: Pending): { box: Box; content: string | null } {
    const own = this.lines.slice(p.first, p.last + 1).map((x) => x.line);
    if (p.type === 'equation') return { box: boxOf(own), content: null };
    const page = own[0].page;
    const run = (from: number, step: number) => {
      const out: PdfLine[] = [];
      let i = from;
      for (; i >= 0 && i < this.lines.length; i += step) {
        const { line, kind } = this.lines[i];
        if (line.page !== page || kind !== 'skipped') break;
        out.push(line);
      }
      if (step < 0) out.reverse();
      // Two floats stacked with no text between them (a table whose caption is above it, then one whose caption is
      // below): the lines between the two captions are split where the white space between two lines is widest. When
      // the other is a figure's caption, the space next to it counts too (a figure drawn without text, below the
      // table's last row: no split). A caption of several lines is met by its last line from below: its label is on
      // its first.
      let other: ElementType | null = null;
      for (let j = i; j >= 0 && j < this.lines.length && this.lines[j].kind === 'caption' && !other; j += step)
        if (this.lines[j].line.page === page) other = captionLabel(this.lines[j].line.text)?.type ?? null;
      if (out.length < 2 || !other) return out;
      const seq = step > 0 ? [...out, this.lines[i].line] : [this.lines[i].line, ...out];
      const gap = (j: number) => seq[j].y - seq[j - 1].y;
      const [lo, hi] = other === 'figure' ? [1, seq.length - 1] : step > 0 ? [1, seq.length - 2] : [2, seq.length - 1];
      let cut = lo;
      for (let j = lo + 1; j <= hi; j++) if (gap(j) > gap(cut)) cut = j;
      if (other === 'figure' && cut === (step > 0 ? seq.length - 1 : 1)) return out;
      return step > 0 ? out.slice(0, cut) : out.slice(cut - 1);
    };
    const above = run(p.first - 1, -1);
    const below = run(p.last + 1, 1);
    // A figure's text sits above its caption; a table's caption is above it by convention, but LaTeX puts it
    // where the author wrote \caption: take the side that has lines, below first for a table.
    const body = p.type === 'table' ? (below.length ? below : above) : above.length ? above : below;
    if (body.length) {
      const content =
        p.type === 'table' ? pdfTableRows(body) : body.map((l) => (l.parts.length > 1 ? l.parts.join(' | ') : l.text)).join('\n');
      return { box: boxOf([...body, ...own]), content };
    }
    // No text: the figure is the blank between the line above (on this page) and the caption, across its column.
    const prev = [...this.lines.slice(0, p.first)].reverse().find((x) => x.line.page === page)?.line;
    // The column's outermost edges: its lines' median left edge plus its width overshoots the page's right edge
    // where many lines are centred.
    const col = this.extent(own[0]);
    const top = prev ? prev.y + prev.size * DESCENT : 0;
    const caption = boxOf(own);
    return {
      box: [round(Math.min(col.x0, caption[0])), round(top), round(Math.max(col.x1, caption[2])), caption[3]],
      content: null,
    };
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
