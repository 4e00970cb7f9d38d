// PDF assembly: the layout's lines (pdf-layout.ts) → a paper. The title is the largest text at the top of the first
// page, headings are detected from numbering, font size and known titles, front matter (pdf-metadata.ts) gives authors, year, DOI
// and arXiv id, hyphenation at line ends is joined, captions and footnotes become their own sentences, display
// equations and figure fragments are left out, and every sentence keeps its page.
import { sentences as splitSentences } from '../text/index.js';
import { buildPaper, PaperAssembler } from './paper.js';
import { median, type PdfLayout, type PdfLine } from './pdf-layout.js';
import { displayLike, PdfElements, type LineKind } from './pdf-elements.js';
import { cellCount } from './pdf-table.js';
import type { ReadOptions, ReadResult } from './types.js';
import { bodySize, pdfMetadata, titleLines as findTitleLines } from './pdf-metadata.js';

// Thresholds. Sizes are relative to the body font (the size of most characters), distances to the line's font
// size, widths to the column's width: the same numbers hold for 9 pt two-column and 12 pt one-column papers.
/** Headings are short: a longer line is prose, a shorter one a fragment. */
const HEADING_MAX_CHARS = 110;
const HEADING_MIN_CHARS = 3;
/** A numbered heading's title has at most this many words (longer: a numbered list item or an equation line). */
const NUMBERED_HEADING_MAX_WORDS = 14;
/** A font this much larger than the body (× body) marks a heading, numbered or a heading's continuation line. */
const HEADING_SIZE = 1.08;
/** A line this much larger than the body (× body) with no number is a heading if it is short and unpunctuated. */
const UNNUMBERED_HEADING_SIZE = 1.15;
/** ... at most this many words ... */
const UNNUMBERED_HEADING_MAX_WORDS = 12;
/** ... and a top-level one when it is this much larger (× body); smaller, a subsection. */
const TOP_HEADING_SIZE = 1.3;
/** A body-size numbered heading needs white space above it wider than this (× its size): a paragraph break. */
const HEADING_GAP_ABOVE = 1.45;
/** A heading does not fill its column: narrower than this fraction of it. */
const HEADING_MAX_WIDTH = 0.85;
/** Lines of one block (a wrapped heading, a caption) follow closer than this (× font size); more is a new block. */
const BLOCK_LINE_GAP = 1.6;
/** Font sizes within this many points are one font (PDF sizes wobble by rounding). */
const SAME_SIZE = 0.6;
/** A heading's continuation line keeps the heading's size to within this many points. */
const HEADING_WRAP_SIZE = 0.3;
/** An equation number `(3)` counts only on a line indented by more than this (× font size) from the column's edge. */
const EQUATION_INDENT = 1.5;
/** A line whose letters are under this share of its characters is mathematics, not prose. */
const MIN_LETTER_SHARE = 0.35;
/** A short line (under this fraction of the column) ... */
const CENTRED_MAX_WIDTH = 0.5;
/** ... indented by more than this fraction of the column, not ending a sentence, is display math or figure text. */
const CENTRED_INDENT = 0.15;
/** Text smaller than this (× body) below the column's last body line is a footnote. */
const FOOTNOTE_SIZE = 0.92;
/** Lines whose left edges differ by at most this many points start at one edge. */
const SAME_EDGE = 1.5;
/** A line wider than this fraction of its column is full: a paragraph's line that the next one continues. */
const FULL_LINE = 0.85;
/** Rows of a table follow closer than this (× font size): a rule and its padding between them at most. */
const TABLE_ROW_GAP = 2.5;
/** Lines of two columns whose baselines differ by at most this many points are one printed row (line numbers). */
const SAME_ROW_Y = 1;

const KNOWN_HEADINGS =
  /^(abstract|introduction|related work|background|preliminaries|conclusions?|concluding remarks|discussion|acknowledge?ments?|references|bibliography|works cited|literature cited|reference list|appendix|appendices|methods?|materials and methods|results|results and discussion|experiments|evaluation|limitations|future work|ethics statement|broader impacts?|summary|supplementary material|data availability|author contributions|competing interests)$/i;
const NUMBERED = /^((?:\d{1,2}(?:\.\d{1,2}){0,3})|(?:[A-H](?:\.\d{1,2}){0,3})|(?:[IVX]{1,5}))\.?\s+(\S.{0,110})$/;
// IEEE's table label stands alone on its line ("TABLE II"), its caption on the next in a smaller size.
const CAPTION = /^(?:(?:Figure|Fig\.|Table|Algorithm|Listing|Scheme)\s*[0-9IVXS]+[a-z]?\s*[.:|]|TABLE\s+(?:[IVX]+|\d+)$)/;

interface Heading {
  title: string;
  number: string | null;
  level: number;
}

/** A heading line: numbered ('1 Introduction', '2.1 Setup', 'A Proofs', 'IV. RESULTS') or a known / larger title. */
function headingOf(line: PdfLine, body: number, gapAbove: number, colWidth: number, inBody = true): Heading | null {
  const text = line.text.trim();
  if (text.length > HEADING_MAX_CHARS || text.length < HEADING_MIN_CHARS || /[,;]$/.test(text)) return null;
  const larger = line.size >= body * HEADING_SIZE;
  const isolated = gapAbove > line.size * HEADING_GAP_ABOVE;
  const short = line.x1 - line.x0 < colWidth * HEADING_MAX_WIDTH;
  const m = NUMBERED.exec(text);
  if (m) {
    const number = m[1];
    const title = m[2].trim();
    const upper = title === title.toUpperCase();
    const roman = /^[IVX]+$/.test(number) && (upper || !/^[A-H]$/.test(number));
    const letter = /^[A-Z]$/.test(number) && !roman;
    if (/[.:]$/.test(title) && !larger) return null;
    if (!/^[A-Z\d]/.test(title) || title.split(/\s+/).length > NUMBERED_HEADING_MAX_WORDS) return null;
    if (/^\d+(\.\d+)*$/.test(title)) return null;
    const depth = number.split('.').length;
    const plausible = larger || (isolated && short && (depth >= 2 || roman || title === title.toUpperCase()));
    if (!plausible) return null;
    if (letter && !larger) return null;
    if (roman && !(title === title.toUpperCase() || larger)) return null;
    return { title, number, level: roman || letter ? depth : depth };
  }
  const bare = text.replace(/[.:]$/, '');
  if (KNOWN_HEADINGS.test(bare) || (/^[A-Z][A-Z\s]+$/.test(bare) && KNOWN_HEADINGS.test(bare.toLowerCase()))) {
    if (line.parts.length === 1) return { title: bare.charAt(0).toUpperCase() + bare.slice(1).toLowerCase(), number: null, level: 1 };
  }
  if (
    inBody &&
    line.size >= body * UNNUMBERED_HEADING_SIZE &&
    short &&
    /^[A-Z]/.test(text) &&
    !/[.!?]$/.test(text) &&
    text.split(/\s+/).length <= UNNUMBERED_HEADING_MAX_WORDS
  ) {
    return { title: text, number: null, level: line.size >= body * TOP_HEADING_SIZE ? 1 : 2 };
  }
  return null;
}

/** Page and line lookup for a text buffer built line by line. */
class PagedBuffer {
  text = '';
  /** Where each appended line starts in `text`, its page and its number on the page (0 when it has none). */
  private marks: Array<[number, number, number]> = [];

  /** `compounds`: hyphenated words written mid-line elsewhere in the document (lower case), kept when broken. */
  constructor(private readonly compounds: ReadonlySet<string> = new Set()) {}

  append(line: string, page: number, lineNo = 0): void {
    const t = line.trim();
    if (!t) return;
    if (!this.text) {
      this.marks.push([0, page, lineNo]);
      this.text = t;
      return;
    }
    const hy = /([A-Za-z\u00C0-\u024F][A-Za-z\u00C0-\u024F'’-]*)-$/.exec(this.text);
    let sep = ' ';
    if (hy && /^[a-z\u00DF-\u00FF]/.test(t)) {
      // A hyphen at the line end: a word broken by hyphenation is joined; a compound (state-of-the-) keeps it.
      const head = hy[1].replace(/-$/, '');
      const next = /^[\p{L}]+/u.exec(t)?.[0] ?? '';
      const lastPart = head.split('-').pop() ?? head;
      if (head.includes('-') || this.compounds.has(`${lastPart}-${next}`.toLowerCase())) sep = '';
      else {
        this.text = this.text.slice(0, -1);
        sep = '';
      }
    }
    this.marks.push([this.text.length + sep.length, page, lineNo]);
    this.text += sep + t;
  }

  /** The page and line number of the line holding this offset. */
  at(offset: number): { page: number; line: number } {
    let lo = 0;
    let hi = this.marks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.marks[mid][0] <= offset) lo = mid;
      else hi = mid - 1;
    }
    const m = this.marks[lo];
    return { page: m?.[1] ?? 1, line: m?.[2] ?? 0 };
  }
}

/** Emits the buffer's sentences; returns where each starts in the buffer. */
function emitBuffer(asm: PaperAssembler, buf: PagedBuffer): number[] {
  if (!buf.text.trim()) return [];
  const starts: number[] = [];
  for (const s of splitSentences(buf.text, 'text')) {
    const first = buf.at(s.start);
    let end = s.end - 1;
    while (end > s.start && /\s/.test(buf.text[end])) end--;
    const last = buf.at(end);
    // A sentence runs from its first character's line to its last one's (on the next page when it runs over).
    const lines = first.line && last.line ? { lineStart: first.line, lineEnd: last.line, pageEnd: last.page } : undefined;
    asm.sentence(s.clean, first.page, lines);
    starts.push(s.start);
  }
  return starts;
}

/** Turn a layout into a paper. */
export function paperFromLayout(layout: PdfLayout, path: string | null, contentHash: string, options: ReadOptions = {}): ReadResult {
  const lines = layout.lines;
  if (!lines.length) return { papers: [], errors: [{ file: path ?? '<pdf>', reason: 'no text layer (a scanned PDF needs OCR first)' }] };

  const body = bodySize(lines);

  // Column widths and left edges per page and column (for headings and equations).
  const edges = new Map<string, number[]>();
  for (const l of lines) {
    const k = `${l.page}:${l.col}`;
    if (!edges.has(k)) edges.set(k, []);
    edges.get(k)!.push(l.x0, l.x1);
  }
  const colBox = (l: PdfLine) => {
    const xs = edges.get(`${l.page}:${l.col}`) ?? [l.x0, l.x1];
    const lefts = xs.filter((_, i) => i % 2 === 0);
    const rights = xs.filter((_, i) => i % 2 === 1);
    return { left: median(lefts), width: Math.max(...rights) - Math.min(...lefts) };
  };
  const colExtent = (l: PdfLine) => {
    const xs = edges.get(`${l.page}:${l.col}`) ?? [l.x0, l.x1];
    return { x0: Math.min(...xs.filter((_, i) => i % 2 === 0)), x1: Math.max(...xs.filter((_, i) => i % 2 === 1)) };
  };
  // Lowest body-size line per page and column: smaller text below it is footnotes.
  const lowestBody = new Map<string, number>();
  for (const l of lines) {
    if (Math.abs(l.size - body) > SAME_SIZE) continue;
    const k = `${l.page}:${l.col}`;
    lowestBody.set(k, Math.max(lowestBody.get(k) ?? 0, l.y));
  }

  // Title: the largest line(s) at the top of the first page (pdf-metadata.ts), kept out of the text.
  const titleLines = findTitleLines(layout, body);
  const titleSet = new Set(titleLines);

  const compounds = new Set<string>();
  for (const l of lines) for (const m of l.text.matchAll(/(\p{L}+)-(\p{L}+)/gu)) compounds.add(m[0].toLowerCase());

  const asm = new PaperAssembler();
  const front: PdfLine[] = [];
  let buf = new PagedBuffer(compounds);
  let side: PagedBuffer[] = [];
  let caption: { buf: PagedBuffer; last: PdfLine; table: boolean } | null = null;
  let seenHeading = false;
  const elements = new PdfElements(colExtent);
  const flushSection = () => {
    const base = asm.sentences.length;
    const starts = emitBuffer(asm, buf);
    elements.flush(asm, (offset) => base + starts.filter((s) => s < offset).length - 1);
    for (const s of side) emitBuffer(asm, s);
    buf = new PagedBuffer(compounds);
    side = [];
    caption = null;
  };

  // Line numbers on each page, in reading order, over the lines a reader counts: not display mathematics nor the text
  // inside figures and tables (the lines the loop below skips); running headers and page numbers are gone already.
  // A row the layout split at the gutter (authors side by side above the columns) is one printed line: the next line
  // in reading order on the same baseline in the other column keeps its number.
  const lineNo = new Map<PdfLine, number>();
  const perPage = new Map<number, number>();
  let lastNumbered: PdfLine | null = null;
  const numberLine = (l: PdfLine) => {
    const p = lastNumbered;
    const sameRow = p && p.page === l.page && p.col !== l.col && Math.abs(p.y - l.y) <= SAME_ROW_Y;
    const n = sameRow ? perPage.get(l.page)! : (perPage.get(l.page) ?? 0) + 1;
    perPage.set(l.page, n);
    lineNo.set(l, n);
    lastNumbered = l;
  };
  const note = (l: PdfLine, kind: LineKind) => {
    if (kind !== 'skipped') numberLine(l);
    elements.note(l, kind);
  };

  // A row of table cells: three or more runs of text apart by more than a word space (prose leaves no such gap, or one
  // at most in a loose line), or two beside another such row or a table caption just above or below it.
  const near = (a: PdfLine, b: PdfLine | undefined) =>
    !!b && b.page === a.page && b.col === a.col && Math.abs(b.y - a.y) < a.size * TABLE_ROW_GAP;
  const tableRow = (i: number): boolean => {
    const l = lines[i];
    const n = cellCount(l);
    if (n >= 3) return true;
    if (n < 2) return false;
    return [lines[i - 1], lines[i + 1]].some((m) => near(l, m) && (cellCount(m!) >= 2 || /^Table\s/i.test(m!.text)));
  };

  let prev: PdfLine | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const gapAbove = prev && prev.page === l.page && prev.col === l.col ? l.y - prev.y : Infinity;
    prev = l;
    if (titleSet.has(l)) {
      note(l, 'other');
      continue;
    }
    const box = colBox(l);
    // Captions run on while the lines stay close together. A table's caption set above it ends where its first row
    // begins: a row of cells, or a line that neither starts where the caption's last line did nor follows a full one
    // (a one-line caption is centred; a longer one is a paragraph) unless that line was the label alone (IEEE).
    if (caption) {
      const c: { buf: PagedBuffer; last: PdfLine; table: boolean } = caption;
      if (
        l.page === c.last.page &&
        l.col === c.last.col &&
        l.y - c.last.y < l.size * BLOCK_LINE_GAP &&
        (Math.abs(l.size - c.last.size) < SAME_SIZE || !c.buf.text) &&
        cellCount(l) < 2 &&
        (!c.table || !c.buf.text || Math.abs(l.x0 - c.last.x0) < SAME_EDGE || c.last.x1 - c.last.x0 > box.width * FULL_LINE)
      ) {
        note(l, 'caption');
        c.buf.append(l.text, l.page, lineNo.get(l));
        c.last = l;
        continue;
      }
      caption = null;
    }
    let h = headingOf(l, body, gapAbove, box.width, seenHeading);
    if (h) {
      note(l, 'other');
      // A heading that wraps: the next line in the same (larger) font, close below.
      let title = h.title;
      while (i + 1 < lines.length) {
        const n = lines[i + 1];
        if (
          n.page !== l.page ||
          n.col !== l.col ||
          Math.abs(n.size - l.size) > HEADING_WRAP_SIZE ||
          n.size < body * HEADING_SIZE ||
          n.y - lines[i].y > l.size * BLOCK_LINE_GAP
        )
          break;
        if (headingOf(n, body, n.y - lines[i].y, box.width)?.number) break;
        title += ' ' + n.text;
        numberLine(n);
        i++;
        prev = lines[i];
      }
      h = { ...h, title };
      flushSection();
      seenHeading = true;
      asm.section(h.title, h.number, h.level);
      continue;
    }
    if (!seenHeading || asm.inReferences) {
      note(l, 'other');
      // The reference list's lines, whole: the works the paper's sentences cite are read from them.
      if (asm.inReferences) asm.referenceLines.push(l.text);
      if (!seenHeading) front.push(l);
      continue;
    }
    if (CAPTION.test(l.text)) {
      note(l, 'caption');
      const b = new PagedBuffer(compounds);
      b.append(l.text.replace(CAPTION, '').trim(), l.page, lineNo.get(l));
      side.push(b);
      caption = { buf: b, last: l, table: /^table/i.test(l.text) };
      elements.caption(l, b, buf.text.length);
      continue;
    }
    // Display equations: an indented line ending in an equation number, or hardly any letters.
    const letters = (l.text.match(/\p{L}/gu) ?? []).length;
    if (
      (/\(\s*\d+[a-z]?\s*\)$/.test(l.text) && l.x0 > box.left + l.size * EQUATION_INDENT) ||
      (l.text.length > 2 && letters / l.text.length < MIN_LETTER_SHARE)
    ) {
      note(l, 'skipped');
      elements.equation(l, buf.text.length);
      continue;
    }
    // Short centred lines (pieces of display math, figure content) are not prose; nor is a line split by wide gaps
    // (table cells: justified prose never leaves one).
    // Indented from the column's own left edge, not the median of its lines' starts: on a page of mostly display math
    // the median is itself indented, and a sum's subscript line read as prose.
    if (
      (l.x1 - l.x0 < box.width * CENTRED_MAX_WIDTH && l.x0 > colExtent(l).x0 + box.width * CENTRED_INDENT && !/[.!?:]$/.test(l.text)) ||
      l.parts.length > 1 ||
      tableRow(i)
    ) {
      note(l, 'skipped');
      elements.equation(l, buf.text.length);
      continue;
    }
    // An unnumbered display equation set like a line of text (centred, set off, with a mathematical sign): not prose.
    const next = lines[i + 1];
    if (
      displayLike(
        [l],
        colExtent,
        gapAbove === Infinity ? undefined : lines[i - 1],
        next && next.page === l.page && next.col === l.col ? next : undefined,
      )
    ) {
      note(l, 'skipped');
      elements.equation(l, buf.text.length);
      continue;
    }
    // Footnotes: smaller text below the column's last body line.
    if (l.size < body * FOOTNOTE_SIZE && l.y > (lowestBody.get(`${l.page}:${l.col}`) ?? Infinity)) {
      note(l, 'other');
      const last = side[side.length - 1];
      if (/^\d{1,2}\s|^[*†‡§]/.test(l.text) || !last) {
        const b = new PagedBuffer(compounds);
        b.append(l.text.replace(/^(\d{1,2}|[*†‡§])\s*/, ''), l.page, lineNo.get(l));
        side.push(b);
      } else last.append(l.text, l.page, lineNo.get(l));
      continue;
    }
    note(l, 'prose');
    buf.append(l.text, l.page, lineNo.get(l));
  }
  if (!seenHeading) {
    // No headings at all: the whole text is one section.
    for (const l of front) if (!titleSet.has(l)) buf.append(l.text, l.page, lineNo.get(l));
    front.length = 0;
  }
  flushSection();

  const { meta } = pdfMetadata(layout, body, titleLines);
  const paper = buildPaper(meta, asm.finish(), { path, contentHash }, options.bib, asm.abstractParts);
  if (!paper.title)
    paper.firstPage = layout.lines
      .filter((l) => l.page === 1)
      .map((l) => l.text)
      .join('\n');
  return { papers: [paper], errors: [] };
}
