// PDF: text items with positions (PDF.js via unpdf, no canvas), laid out into lines and columns per page.
// Reading order is right on two-column pages (the left column before the right one, full-width blocks in their
// place), running headers/footers and page numbers are dropped, hyphenation at line ends is joined, headings are
// detected from numbering, font size and known titles, and every sentence keeps its page.
import { sentences as splitSentences } from '../text/index.js';
import { throwIfAborted } from '../abort.js';
import { buildPaper, PaperAssembler, sha256Hex } from './paper.js';
import type { ReadOptions, ReadResult } from './types.js';
import type { PaperMeta } from '../paper/fields.js';
import { normaliseArxivId, normaliseDoi, parseYear } from '../paper/ids.js';

/** One text run on a page (top-down coordinates, points). */
interface Item {
  str: string;
  x0: number;
  x1: number;
  /** Baseline, measured from the top of the page. */
  y: number;
  size: number;
}

/** A line of one column (or a full-width line) on a page. */
export interface PdfLine {
  page: number;
  text: string;
  /** The line's text split at wide gaps (author lists, table cells). */
  parts: string[];
  x0: number;
  x1: number;
  y: number;
  /** Dominant font size. */
  size: number;
  /** 0 = left column, 1 = right column, -1 = full width / single-column page. */
  col: number;
}

export interface PdfLayout {
  pages: number;
  /** Lines in reading order, running headers/footers and page numbers removed. */
  lines: PdfLine[];
  pageHeights: number[];
  info: Record<string, unknown>;
  /** Text of rotated runs (e.g. an arXiv stamp in the margin), for metadata only. */
  rotated: string[];
}

const importUnpdf = () => import('unpdf');
let unpdfPromise: ReturnType<typeof importUnpdf> | undefined;
/** unpdf is loaded on first use (it carries PDF.js). */
function loadUnpdf(): ReturnType<typeof importUnpdf> {
  unpdfPromise ??= importUnpdf();
  return unpdfPromise;
}

const median = (xs: number[]): number => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

function joinItems(items: Item[], size: number): { text: string; parts: string[] } {
  const parts: string[] = [];
  let cur = '';
  let prev: Item | undefined;
  for (const it of items) {
    if (prev) {
      const gap = it.x0 - prev.x1;
      if (gap > 2.2 * size) {
        parts.push(cur.trim());
        cur = '';
      } else if (gap > 0.12 * size && !/\s$/.test(cur) && !/^\s/.test(it.str)) cur += ' ';
    }
    cur += it.str;
    prev = it;
  }
  parts.push(cur.trim());
  const clean = parts.map((p) => p.replace(/\s+/g, ' ').trim()).filter(Boolean);
  return { text: clean.join(' '), parts: clean };
}

/** Rows of items sharing a baseline (superscripts join the row they sit on). */
function rows(items: Item[]): Item[][] {
  const sorted = [...items].sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const out: Array<{ y: number; size: number; items: Item[] }> = [];
  for (const it of sorted) {
    const last = out[out.length - 1];
    if (last && Math.abs(it.y - last.y) <= 0.5 * Math.max(it.size, last.size)) {
      last.items.push(it);
      if (it.size > last.size) {
        last.size = it.size;
        last.y = it.y;
      }
    } else out.push({ y: it.y, size: it.size, items: [it] });
  }
  return out.map((r) => r.items.sort((a, b) => a.x0 - b.x0));
}

/** The x of the gutter between two columns, or null for a single-column page. */
function findGutter(rowList: Item[][], width: number): number | null {
  const chunks: Array<[number, number]> = [];
  for (const r of rowList) {
    let start = r[0].x0;
    let end = r[0].x1;
    for (let i = 1; i < r.length; i++) {
      const gap = r[i].x0 - end;
      if (gap > 0.9 * Math.max(r[i].size, r[i - 1].size)) {
        chunks.push([start, end]);
        start = r[i].x0;
      }
      end = Math.max(end, r[i].x1);
    }
    chunks.push([start, end]);
  }
  if (chunks.length < 8) return null;
  const lo = Math.floor(width * 0.3);
  const hi = Math.ceil(width * 0.7);
  const cover = new Array<number>(hi - lo + 1).fill(0);
  for (const [a, b] of chunks) {
    for (let x = Math.max(lo, Math.ceil(a)); x <= Math.min(hi, Math.floor(b)); x++) cover[x - lo]++;
  }
  const min = Math.min(...cover);
  if (min > Math.max(2, chunks.length * 0.12)) return null;
  // The longest run at the minimum, its centre.
  let best: [number, number] = [0, -1];
  for (let i = 0; i < cover.length; ) {
    if (cover[i] !== min) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < cover.length && cover[j + 1] === min) j++;
    if (j - i > best[1] - best[0]) best = [i, j];
    i = j + 1;
  }
  if (best[1] < 0) return null;
  const gutter = lo + (best[0] + best[1]) / 2;
  const wide = width * 0.22;
  const left = chunks.filter(([a, b]) => b <= gutter && b - a > wide).length;
  const right = chunks.filter(([a, b]) => a >= gutter && b - a > wide).length;
  return left >= 3 && right >= 3 ? gutter : null;
}

function makeLine(items: Item[], page: number, col: number): PdfLine {
  // Size and baseline of the line: those of most of its characters (superscripts aside).
  const weights = new Map<number, number>();
  for (const it of items) weights.set(Math.round(it.size * 2) / 2, (weights.get(Math.round(it.size * 2) / 2) ?? 0) + it.str.length);
  const size = [...weights.entries()].sort((a, b) => b[1] - a[1])[0][0];
  const main = items.filter((it) => Math.abs(it.size - size) < 0.6);
  const y = median(main.map((it) => it.y));
  // Raised small digits / marks are footnote marks or superscript citations: drop them.
  const kept = items.filter((it) => !(it.size < size * 0.8 && y - it.y > size * 0.2 && /^[\d*†‡§¶,\s]+$/.test(it.str)));
  const { text, parts } = joinItems(kept, size);
  return { page, text, parts, x0: Math.min(...kept.map((i) => i.x0)), x1: Math.max(...kept.map((i) => i.x1)), y, size, col };
}

/** Lay out one page's items into lines in reading order. */
function pageLines(items: Item[], page: number, width: number): PdfLine[] {
  if (!items.length) return [];
  const rowList = rows(items);
  const gutter = findGutter(rowList, width);
  if (gutter === null) return rowList.map((r) => makeLine(r, page, -1));
  // Rows with a run across the gutter are full width; the other items go to their column, where rows are built
  // again (the two columns' baselines need not line up).
  const spanning: Array<{ y: number; line: PdfLine }> = [];
  const leftItems: Item[] = [];
  const rightItems: Item[] = [];
  for (const r of rowList) {
    if (r.some((it) => it.x0 < gutter - 1 && it.x1 > gutter + 1)) {
      const line = makeLine(r, page, -1);
      spanning.push({ y: line.y, line });
      continue;
    }
    for (const it of r) (it.x1 <= gutter + 1 ? leftItems : rightItems).push(it);
  }
  const left = rows(leftItems).map((r) => makeLine(r, page, 0));
  const right = rows(rightItems).map((r) => makeLine(r, page, 1));
  const out: PdfLine[] = [];
  let li = 0;
  let ri = 0;
  for (const sp of spanning) {
    while (li < left.length && left[li].y < sp.y) out.push(left[li++]);
    while (ri < right.length && right[ri].y < sp.y) out.push(right[ri++]);
    out.push(sp.line);
  }
  out.push(...left.slice(li), ...right.slice(ri));
  return out;
}

const BARE_PAGE_NUMBER = /^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,6})(?:\s*(?:of|\/)\s*\d{1,4})?$/i;

/** Drop running headers/footers (repeating at the same height on several pages) and page numbers. */
function dropRunningLines(pages: PdfLine[][], heights: number[]): PdfLine[][] {
  const key = (l: PdfLine) => `${l.text.toLowerCase().replace(/\d+/g, '#').replace(/[^a-z#]+/g, '')}@${Math.round(l.y / 6)}`;
  // The margin: the page's top-most / bottom-most row when it lies in the outer 20 %, and the outer 6 %.
  const zone = pages.map((lines, i) => {
    const h = heights[i] || 792;
    const ys = lines.map((l) => l.y);
    const minY = Math.min(...ys);
    const maxY = Math.max(...ys);
    return { top: Math.max(h * 0.06, minY <= h * 0.2 ? minY + 0.5 : 0), bottom: Math.min(h * 0.94, maxY >= h * 0.8 ? maxY - 0.5 : h) };
  });
  const inMargin = (l: PdfLine) => l.y <= zone[l.page - 1].top || l.y >= zone[l.page - 1].bottom;
  const counts = new Map<string, Set<number>>();
  for (const lines of pages) for (const l of lines) if (inMargin(l)) {
    const k = key(l);
    if (!counts.has(k)) counts.set(k, new Set());
    counts.get(k)!.add(l.page);
  }
  const repeated = (l: PdfLine) => (counts.get(key(l))?.size ?? 0) >= 2;
  return pages.map((lines) => lines.filter((l) => !(inMargin(l) && (repeated(l) || BARE_PAGE_NUMBER.test(l.text.trim())))));
}

/** Read a PDF's text layout (lines in reading order). */
export async function pdfLayout(data: Uint8Array, signal?: AbortSignal): Promise<PdfLayout> {
  const { getDocumentProxy } = await loadUnpdf();
  // PDF.js takes ownership of (and may detach) the buffer it is given: pass a copy.
  const pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
  try {
    const pagesOut: PdfLine[][] = [];
    const heights: number[] = [];
    const rotated: string[] = [];
    for (let p = 1; p <= pdf.numPages; p++) {
      throwIfAborted(signal);
      const page = await pdf.getPage(p);
      const [vx0, vy0, vx1, vy1] = page.view;
      const width = vx1 - vx0;
      heights.push(vy1 - vy0);
      const tc = await page.getTextContent();
      const items: Item[] = [];
      for (const raw of tc.items) {
        if (!('str' in raw)) continue;
        const str = raw.str.normalize('NFKC').replace(/\u00ad/g, '');
        if (!str.trim()) continue;
        const [a, b, c, d, e, f] = raw.transform as number[];
        if (Math.abs(b) > 0.01 || Math.abs(c) > 0.01 || a <= 0) {
          rotated.push(str);
          continue;
        }
        const size = Math.hypot(c, d) || raw.height || 10;
        items.push({ str, x0: e - vx0, x1: e - vx0 + raw.width, y: vy1 - f, size });
      }
      pagesOut.push(pageLines(items, p, width));
      page.cleanup();
    }
    const meta = await pdf.getMetadata().catch(() => ({ info: {} }));
    return {
      pages: pdf.numPages,
      lines: dropRunningLines(pagesOut, heights).flat(),
      pageHeights: heights,
      info: (meta.info ?? {}) as Record<string, unknown>,
      rotated,
    };
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}

const KNOWN_HEADINGS =
  /^(abstract|introduction|related work|background|preliminaries|conclusions?|concluding remarks|discussion|acknowledge?ments?|references|bibliography|works cited|literature cited|reference list|appendix|appendices|methods?|materials and methods|results|results and discussion|experiments|evaluation|limitations|future work|ethics statement|broader impacts?|summary|supplementary material|data availability|author contributions|competing interests)$/i;
const NUMBERED = /^((?:\d{1,2}(?:\.\d{1,2}){0,3})|(?:[A-H](?:\.\d{1,2}){0,3})|(?:[IVX]{1,5}))\.?\s+(\S.{0,110})$/;
const CAPTION = /^(?:Figure|Fig\.|Table|Algorithm|Listing|Scheme)\s*[0-9IVXS]+[a-z]?\s*[.:|]/;

interface Heading {
  title: string;
  number: string | null;
  level: number;
}

/** A heading line: numbered ('1 Introduction', '2.1 Setup', 'A Proofs', 'IV. RESULTS') or a known / larger title. */
function headingOf(line: PdfLine, body: number, gapAbove: number, colWidth: number, inBody = true): Heading | null {
  const text = line.text.trim();
  if (text.length > 110 || text.length < 3 || /[,;]$/.test(text)) return null;
  const larger = line.size >= body * 1.08;
  const isolated = gapAbove > line.size * 1.45;
  const short = line.x1 - line.x0 < colWidth * 0.85;
  const m = NUMBERED.exec(text);
  if (m) {
    const number = m[1];
    const title = m[2].trim();
    const upper = title === title.toUpperCase();
    const roman = /^[IVX]+$/.test(number) && (upper || !/^[A-H]$/.test(number));
    const letter = /^[A-Z]$/.test(number) && !roman;
    if (/[.:]$/.test(title) && !larger) return null;
    if (!/^[A-Z\d]/.test(title) || title.split(/\s+/).length > 14) return null;
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
  if (inBody && line.size >= body * 1.15 && short && /^[A-Z]/.test(text) && !/[.!?]$/.test(text) && text.split(/\s+/).length <= 12) {
    return { title: text, number: null, level: line.size >= body * 1.3 ? 1 : 2 };
  }
  return null;
}

/** Page lookup for a text buffer built line by line. */
class PagedBuffer {
  text = '';
  private marks: Array<[number, number]> = [];

  /** `compounds`: hyphenated words written mid-line elsewhere in the document (lower case), kept when broken. */
  constructor(private readonly compounds: ReadonlySet<string> = new Set()) {}

  append(line: string, page: number): void {
    const t = line.trim();
    if (!t) return;
    if (!this.text) {
      this.marks.push([0, page]);
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
    this.marks.push([this.text.length + sep.length, page]);
    this.text += sep + t;
  }

  pageAt(offset: number): number {
    let lo = 0;
    let hi = this.marks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.marks[mid][0] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return this.marks[lo]?.[1] ?? 1;
  }
}

function emitBuffer(asm: PaperAssembler, buf: PagedBuffer): void {
  if (!buf.text.trim()) return;
  for (const s of splitSentences(buf.text, 'text')) asm.sentence(s.clean, buf.pageAt(s.start));
}

const NAME = /^[A-Z][\p{L}'’.-]*(?:\s+(?:[A-Z][\p{L}'’.-]*|van|von|der|de|la|da|di|del|du|le|den|ter|ten)){1,4}$/u;

function authorsFrom(lines: PdfLine[], body: number): string[] {
  const out: string[] = [];
  let row: number | null = null;
  for (const l of lines) {
    if (row !== null && Math.abs(l.y - row) > 2) break;
    if (l.size < body * 0.95 || /@|https?:|universit|institut|department|school|laborator|college|center|centre|\d{3,}/i.test(l.text)) continue;
    for (const part of l.parts) {
      for (const n of part.split(/\s*(?:,|;|\band\b|&|·|\u2022)\s*/)) {
        const name = n.replace(/[\d*†‡§¶]+$/g, '').trim();
        if (NAME.test(name) && !KNOWN_HEADINGS.test(name)) {
          out.push(name);
          row ??= l.y;
        }
      }
    }
  }
  return out;
}

/** Authors from the info dict when every one looks like a name ('Ann Smith; Bob Jones', 'A. Smith and B. Jones'). */
function infoAuthors(info: Record<string, unknown>): string[] | null {
  const raw = infoString(info, 'Author');
  if (!raw) return null;
  const names = raw.split(/\s*(?:;|\band\b|,(?=\s*\p{Lu}[\p{L}.]*\s+\p{Lu}))\s*/u).map((n) => n.trim()).filter(Boolean);
  return names.length && names.every((n) => NAME.test(n)) ? names : null;
}

function infoString(info: Record<string, unknown>, key: string): string | null {
  const v = info[key];
  if (typeof v !== 'string') return null;
  const t = v.replace(/\s+/g, ' ').trim();
  if (!t || /^(untitled|unknown|microsoft word|title)\b/i.test(t) || /\.(docx?|tex|pdf|dvi)$/i.test(t)) return null;
  return t;
}

/** Turn a layout into a paper. */
export function paperFromLayout(layout: PdfLayout, path: string | null, contentHash: string, options: ReadOptions = {}): ReadResult {
  const lines = layout.lines;
  if (!lines.length) return { papers: [], errors: [{ file: path ?? '<pdf>', reason: 'no text layer (a scanned PDF needs OCR first)' }] };

  // Body font size: the size of most characters.
  const bySize = new Map<number, number>();
  for (const l of lines) bySize.set(l.size, (bySize.get(l.size) ?? 0) + l.text.length);
  const body = [...bySize.entries()].sort((a, b) => b[1] - a[1])[0][0];

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
  // Lowest body-size line per page and column: smaller text below it is footnotes.
  const lowestBody = new Map<string, number>();
  for (const l of lines) {
    if (Math.abs(l.size - body) > 0.6) continue;
    const k = `${l.page}:${l.col}`;
    lowestBody.set(k, Math.max(lowestBody.get(k) ?? 0, l.y));
  }

  // Title: the largest line(s) in the top half of the first page.
  const first = lines.filter(
    (l) => l.page === 1 && l.y < (layout.pageHeights[0] || 792) * 0.5 && !(/^\d/.test(l.text) && NUMBERED.test(l.text)) && !KNOWN_HEADINGS.test(l.text.replace(/[.:]$/, '')),
  );
  const maxSize = Math.max(...first.map((l) => l.size), 0);
  let titleLines: PdfLine[] = [];
  if (maxSize > body * 1.15) {
    const start = first.findIndex((l) => l.size === maxSize);
    titleLines = [first[start]];
    for (let i = start + 1; i < first.length && first[i].size === maxSize && first[i].y - titleLines[titleLines.length - 1].y < maxSize * 1.8; i++) titleLines.push(first[i]);
  }
  const titleFromPage = titleLines.map((l) => l.text).join(' ').replace(/\s+/g, ' ').trim() || null;
  const titleSet = new Set(titleLines);

  const compounds = new Set<string>();
  for (const l of lines) for (const m of l.text.matchAll(/(\p{L}+)-(\p{L}+)/gu)) compounds.add(m[0].toLowerCase());

  const asm = new PaperAssembler();
  const front: PdfLine[] = [];
  let buf = new PagedBuffer(compounds);
  let side: PagedBuffer[] = [];
  let caption: { buf: PagedBuffer; last: PdfLine } | null = null;
  let seenHeading = false;
  const flushSection = () => {
    emitBuffer(asm, buf);
    for (const s of side) emitBuffer(asm, s);
    buf = new PagedBuffer(compounds);
    side = [];
    caption = null;
  };

  let prev: PdfLine | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const gapAbove = prev && prev.page === l.page && prev.col === l.col ? l.y - prev.y : Infinity;
    prev = l;
    if (titleSet.has(l)) continue;
    const box = colBox(l);
    // Captions run on while the lines stay close together.
    if (caption) {
      const c: { buf: PagedBuffer; last: PdfLine } = caption;
      if (l.page === c.last.page && l.col === c.last.col && l.y - c.last.y < l.size * 1.6 && Math.abs(l.size - c.last.size) < 0.6) {
        c.buf.append(l.text, l.page);
        c.last = l;
        continue;
      }
      caption = null;
    }
    let h = headingOf(l, body, gapAbove, box.width, seenHeading);
    if (h) {
      // A heading that wraps: the next line in the same (larger) font, close below.
      let title = h.title;
      while (i + 1 < lines.length) {
        const n = lines[i + 1];
        if (n.page !== l.page || n.col !== l.col || Math.abs(n.size - l.size) > 0.3 || n.size < body * 1.08 || n.y - lines[i].y > l.size * 1.6) break;
        if (headingOf(n, body, n.y - lines[i].y, box.width)?.number) break;
        title += ' ' + n.text;
        i++;
        prev = lines[i];
      }
      h = { ...h, title };
      flushSection();
      seenHeading = true;
      asm.section(h.title, h.number, h.level);
      continue;
    }
    if (!seenHeading) {
      front.push(l);
      continue;
    }
    if (asm.inReferences) continue;
    if (CAPTION.test(l.text)) {
      const b = new PagedBuffer(compounds);
      b.append(l.text.replace(CAPTION, '').trim(), l.page);
      side.push(b);
      caption = { buf: b, last: l };
      continue;
    }
    // Display equations: an indented line ending in an equation number, or hardly any letters.
    const letters = (l.text.match(/\p{L}/gu) ?? []).length;
    if ((/\(\s*\d+[a-z]?\s*\)$/.test(l.text) && l.x0 > box.left + l.size * 1.5) || (l.text.length > 2 && letters / l.text.length < 0.35)) continue;
    // Short centred lines (pieces of display math, figure content) are not prose.
    if (l.x1 - l.x0 < box.width * 0.5 && l.x0 > box.left + box.width * 0.15 && !/[.!?:]$/.test(l.text)) continue;
    // Footnotes: smaller text below the column's last body line.
    if (l.size < body * 0.92 && l.y > (lowestBody.get(`${l.page}:${l.col}`) ?? Infinity)) {
      const last = side[side.length - 1];
      if (/^\d{1,2}\s|^[*†‡§]/.test(l.text) || !last) {
        const b = new PagedBuffer(compounds);
        b.append(l.text.replace(/^(\d{1,2}|[*†‡§])\s*/, ''), l.page);
        side.push(b);
      } else last.append(l.text, l.page);
      continue;
    }
    buf.append(l.text, l.page);
  }
  if (!seenHeading) {
    // No headings at all: the whole text is one section.
    for (const l of front) if (!titleSet.has(l)) buf.append(l.text, l.page);
    front.length = 0;
  }
  flushSection();

  const info = layout.info;
  const firstPageText = lines.filter((l) => l.page === 1).map((l) => l.text).join('\n') + '\n' + layout.rotated.join(' ');
  const meta: PaperMeta = {
    title: titleFromPage ?? infoString(info, 'Title'),
    authors: infoAuthors(info) ?? authorsFrom(front, body),
    year: parseYear(front.map((l) => l.text).join(' ')) ?? parseYear(typeof info.CreationDate === 'string' ? info.CreationDate.slice(2, 6) : null),
    doi: normaliseDoi(/\b(?:doi:?\s*|https?:\/\/(?:dx\.)?doi\.org\/)?(10\.\d{4,9}\/[^\s]+)/i.exec(firstPageText)?.[1] ?? null),
    arxivId: normaliseArxivId(/arXiv:\s*(\d{4}\.\d{4,5}(?:v\d+)?)/i.exec(firstPageText)?.[1] ?? null),
  };
  // The year from front matter is trusted only when it is not far in the future.
  if (meta.year && meta.year > new Date().getUTCFullYear() + 1) meta.year = null;
  const paper = buildPaper(meta, asm.finish(), { path, contentHash }, options.bib, asm.abstractParts);
  return { papers: [paper], errors: [] };
}

/** Read one PDF (bytes) into a paper. */
export async function readPdfBytes(data: Uint8Array, path: string | null, options: ReadOptions = {}, contentHash = sha256Hex(data)): Promise<ReadResult> {
  const layout = await pdfLayout(data, options.signal);
  return paperFromLayout(layout, path, contentHash, options);
}
