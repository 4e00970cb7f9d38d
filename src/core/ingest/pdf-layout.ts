// PDF layout: PDF.js's positioned text runs (via unpdf, no canvas) → lines per page in reading order. Two-column
// pages are read left column, then right column, full-width blocks in their place; running headers/footers and
// page numbers are dropped. What the lines mean (title, headings, captions, footnotes) is pdf-assemble.ts's job.
import { throwIfAborted } from '../abort.js';

/** One text run on a page (top-down coordinates, points). */
interface Item {
  str: string;
  x0: number;
  x1: number;
  /** Baseline, measured from the top of the page. */
  y: number;
  size: number;
  /** PDF.js's font id: runs of one font share it (author names are set apart from affiliations by it). */
  font: string;
}

/** A run of a line's text between gaps wider than a word space, and where it lies. */
export interface PdfSpan {
  text: string;
  x0: number;
  x1: number;
}

/** A line of one column (or a full-width line) on a page. */
export interface PdfLine {
  page: number;
  text: string;
  /** The line's text split at wide gaps (author lists, table cells). */
  parts: string[];
  /** The line's text split at any gap wider than a word space (names set side by side in an author block). */
  chunks?: string[];
  /** The same chunks with their left and right edges (a table's cells are placed in columns by them). */
  spans?: PdfSpan[];
  x0: number;
  x1: number;
  y: number;
  /** Dominant font size. */
  size: number;
  /** 0 = left column, 1 = right column, -1 = full width / single-column page. */
  col: number;
  /** The font of most of its characters (PDF.js's font id; '' when unknown). */
  font?: string;
}

export interface PdfLayout {
  pages: number;
  /** Lines in reading order, running headers/footers and page numbers removed. */
  lines: PdfLine[];
  pageHeights: number[];
  info: Record<string, unknown>;
  /** The XMP metadata stream's properties ('dc:title', 'dc:creator', 'prism:doi' …), empty when there is none. */
  xmp?: Record<string, unknown>;
  /** Text of rotated runs (e.g. an arXiv stamp in the margin), for metadata only. */
  rotated: string[];
}

// Thresholds, in units of the font size where they are distances (a scale-free page), else of the page.
/** A gap wider than this (× font size) inside a row separates parts: author names, table cells, not words. */
const PART_GAP = 2.2;
/** A gap wider than this (× font size) between runs is a word space PDF.js did not emit as a character. */
const WORD_GAP = 0.12;
/** Runs whose baselines differ by at most this (× the larger size) share a row: superscripts and subscripts join it. */
const SAME_ROW = 0.5;
/** A gap wider than this (× font size) ends a chunk of text when looking for a gutter: wider than a word space. */
const CHUNK_GAP = 0.9;
/** Fewer chunks than this on a page are too few to tell a two-column layout from a sparse page. */
const MIN_GUTTER_CHUNKS = 8;
/** The gutter is searched between these fractions of the page width: columns are roughly halves. */
const GUTTER_ZONE: readonly [number, number] = [0.3, 0.7];
/** The least-covered x is a gutter only if at most this share of the chunks cross it (figures and full-width lines do). */
const GUTTER_CROSSING = 0.12;
/** ... and never fewer than this many crossings are tolerated, for short pages. */
const GUTTER_CROSSING_MIN = 2;
/** A chunk wider than this fraction of the page is a column line (not a label or a number). */
const COLUMN_LINE_WIDTH = 0.22;
/** Each side of a gutter needs this many column lines: otherwise it is a table or a figure, not two columns. */
const MIN_COLUMN_LINES = 3;
/** Points a run may overhang the gutter and still belong to its column (kerning, rounding). */
const GUTTER_SLACK = 1;
/** A run within this (points) of the line's dominant size is of the line's main font. */
const SIZE_TOLERANCE = 0.6;
/** A run smaller than this (× line size) and raised above the baseline by SUPERSCRIPT_RAISE is a superscript mark. */
const SUPERSCRIPT_SIZE = 0.8;
const SUPERSCRIPT_RAISE = 0.2;
/** Page margins: a line within the outer 6 % of the page height is in the margin. */
const MARGIN_OUTER = 0.06;
/** The page's top-most / bottom-most row counts as margin when it lies within the outer 20 % (headers sit lower on some styles). */
const MARGIN_EDGE_ROW = 0.2;
/** Running lines repeat at the same height to within this many points (baselines are bucketed by it). */
const RUNNING_LINE_BUCKET = 6;
/** A margin line seen on this many pages is a running header or footer. */
const RUNNING_LINE_PAGES = 2;
/** Letter-size height (points) for a page whose height PDF.js does not give. */
export const DEFAULT_PAGE_HEIGHT = 792;

const importUnpdf = () => import('unpdf');
let unpdfPromise: ReturnType<typeof importUnpdf> | undefined;
/** unpdf is loaded on first use (it carries PDF.js). */
function loadUnpdf(): ReturnType<typeof importUnpdf> {
  unpdfPromise ??= importUnpdf();
  return unpdfPromise;
}

export const median = (xs: number[]): number => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** `raised`: runs set as superscripts (affiliation marks 'a,b', '1'), left out of the chunks. */
function joinItems(
  items: Item[],
  size: number,
  raised: (it: Item) => boolean = () => false,
): { text: string; parts: string[]; chunks: string[]; spans: PdfSpan[] } {
  const parts: string[] = [];
  const chunks: string[] = [];
  const spans: PdfSpan[] = [];
  let cur = '';
  let chunk = '';
  let chunkX0 = 0;
  let prev: Item | undefined;
  let prevChunk: Item | undefined;
  const endChunk = () => {
    chunks.push(chunk);
    const text = chunk.replace(/\s+/g, ' ').trim();
    if (text && prevChunk) spans.push({ text, x0: chunkX0, x1: prevChunk.x1 });
  };
  for (const it of items) {
    if (!raised(it)) {
      if (prevChunk && it.x0 - prevChunk.x1 > CHUNK_GAP * size) {
        endChunk();
        chunk = '';
      }
      if (!chunk) chunkX0 = it.x0;
      chunk +=
        (chunk && prevChunk && it.x0 - prevChunk.x1 > WORD_GAP * size && !/\s$/.test(chunk) && !/^\s/.test(it.str) ? ' ' : '') + it.str;
      prevChunk = it;
    }
    if (prev) {
      const gap = it.x0 - prev.x1;
      if (gap > PART_GAP * size) {
        parts.push(cur.trim());
        cur = '';
      } else if (gap > WORD_GAP * size && !/\s$/.test(cur) && !/^\s/.test(it.str)) cur += ' ';
    }
    cur += it.str;
    prev = it;
  }
  parts.push(cur.trim());
  endChunk();
  const tidy = (xs: string[]) => xs.map((p) => p.replace(/\s+/g, ' ').trim()).filter(Boolean);
  const clean = tidy(parts);
  return { text: clean.join(' '), parts: clean, chunks: tidy(chunks), spans };
}

/** Rows of items sharing a baseline (superscripts join the row they sit on). */
function rows(items: Item[]): Item[][] {
  const sorted = [...items].sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const out: Array<{ y: number; size: number; items: Item[] }> = [];
  for (const it of sorted) {
    const last = out[out.length - 1];
    if (last && Math.abs(it.y - last.y) <= SAME_ROW * Math.max(it.size, last.size)) {
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
      if (gap > CHUNK_GAP * Math.max(r[i].size, r[i - 1].size)) {
        chunks.push([start, end]);
        start = r[i].x0;
      }
      end = Math.max(end, r[i].x1);
    }
    chunks.push([start, end]);
  }
  if (chunks.length < MIN_GUTTER_CHUNKS) return null;
  const lo = Math.floor(width * GUTTER_ZONE[0]);
  const hi = Math.ceil(width * GUTTER_ZONE[1]);
  const cover = new Array<number>(hi - lo + 1).fill(0);
  for (const [a, b] of chunks) {
    for (let x = Math.max(lo, Math.ceil(a)); x <= Math.min(hi, Math.floor(b)); x++) cover[x - lo]++;
  }
  const min = Math.min(...cover);
  if (min > Math.max(GUTTER_CROSSING_MIN, chunks.length * GUTTER_CROSSING)) return null;
  // The longest run at the minimum, its centre.
  let best: [number, number] = [0, -1];
  for (let i = 0; i < cover.length;) {
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
  const wide = width * COLUMN_LINE_WIDTH;
  const left = chunks.filter(([a, b]) => b <= gutter && b - a > wide).length;
  const right = chunks.filter(([a, b]) => a >= gutter && b - a > wide).length;
  return left >= MIN_COLUMN_LINES && right >= MIN_COLUMN_LINES ? gutter : null;
}

function makeLine(items: Item[], page: number, col: number): PdfLine {
  // Size and baseline of the line: those of most of its characters (superscripts aside). Sizes are counted in
  // half points, so 9.96 and 10 are one size.
  const weights = new Map<number, number>();
  for (const it of items) weights.set(Math.round(it.size * 2) / 2, (weights.get(Math.round(it.size * 2) / 2) ?? 0) + it.str.length);
  const size = [...weights.entries()].sort((a, b) => b[1] - a[1])[0][0];
  const main = items.filter((it) => Math.abs(it.size - size) < SIZE_TOLERANCE);
  const y = median(main.map((it) => it.y));
  // Raised small digits / marks are footnote marks or superscript citations: drop them.
  const kept = items.filter(
    (it) => !(it.size < size * SUPERSCRIPT_SIZE && y - it.y > size * SUPERSCRIPT_RAISE && /^[\d*†‡§¶,\s]+$/.test(it.str)),
  );
  const { text, parts, chunks, spans } = joinItems(
    kept,
    size,
    (it) => it.size < size * SUPERSCRIPT_SIZE && y - it.y > size * SUPERSCRIPT_RAISE,
  );
  const fonts = new Map<string, number>();
  for (const it of main) fonts.set(it.font, (fonts.get(it.font) ?? 0) + it.str.length);
  const font = [...fonts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
  return {
    page,
    text,
    parts,
    chunks,
    spans,
    x0: Math.min(...kept.map((i) => i.x0)),
    x1: Math.max(...kept.map((i) => i.x1)),
    y,
    size,
    col,
    font,
  };
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
    if (r.some((it) => it.x0 < gutter - GUTTER_SLACK && it.x1 > gutter + GUTTER_SLACK)) {
      const line = makeLine(r, page, -1);
      spanning.push({ y: line.y, line });
      continue;
    }
    for (const it of r) (it.x1 <= gutter + GUTTER_SLACK ? leftItems : rightItems).push(it);
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
  const key = (l: PdfLine) =>
    `${l.text
      .toLowerCase()
      .replace(/\d+/g, '#')
      .replace(/[^a-z#]+/g, '')}@${Math.round(l.y / RUNNING_LINE_BUCKET)}`;
  // The margin: the page's top-most / bottom-most row when it lies near the edge, and the outer strip.
  const zone = pages.map((lines, i) => {
    const h = heights[i] || DEFAULT_PAGE_HEIGHT;
    const ys = lines.map((l) => l.y);
    const minY = Math.min(...ys);
    const maxY = Math.max(...ys);
    return {
      top: Math.max(h * MARGIN_OUTER, minY <= h * MARGIN_EDGE_ROW ? minY + 0.5 : 0),
      bottom: Math.min(h * (1 - MARGIN_OUTER), maxY >= h * (1 - MARGIN_EDGE_ROW) ? maxY - 0.5 : h),
    };
  });
  const inMargin = (l: PdfLine) => l.y <= zone[l.page - 1].top || l.y >= zone[l.page - 1].bottom;
  const counts = new Map<string, Set<number>>();
  for (const lines of pages)
    for (const l of lines)
      if (inMargin(l)) {
        const k = key(l);
        if (!counts.has(k)) counts.set(k, new Set());
        counts.get(k)!.add(l.page);
      }
  const repeated = (l: PdfLine) => (counts.get(key(l))?.size ?? 0) >= RUNNING_LINE_PAGES;
  return pages.map((lines) => lines.filter((l) => !(inMargin(l) && (repeated(l) || BARE_PAGE_NUMBER.test(l.text.trim())))));
}

/** A PDF's page count, from its page tree alone (no page is parsed): for a size estimate before an import. */
export async function pdfPageCount(data: Uint8Array): Promise<number> {
  const { getDocumentProxy } = await loadUnpdf();
  const pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
  try {
    return pdf.numPages;
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
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
        // Control characters are glyphs without a Unicode mapping (footnote marks of symbol fonts), never text.
        const str = raw.str
          .normalize('NFKC')
          .replace(/\u00ad/g, '')
          .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
        if (!str.trim()) continue;
        const [a, b, c, d, e, f] = raw.transform as number[];
        if (Math.abs(b) > 0.01 || Math.abs(c) > 0.01 || a <= 0) {
          rotated.push(str);
          continue;
        }
        const size = Math.hypot(c, d) || raw.height || 10;
        items.push({ str, x0: e - vx0, x1: e - vx0 + raw.width, y: vy1 - f, size, font: raw.fontName ?? '' });
      }
      pagesOut.push(pageLines(items, p, width));
      page.cleanup();
    }
    const meta = await pdf.getMetadata().catch(() => ({ info: {}, metadata: null }));
    let xmp: Record<string, unknown> = {};
    try {
      if (meta.metadata) xmp = Object.fromEntries(meta.metadata as Iterable<[string, unknown]>);
    } catch {
      // An XMP stream PDF.js could not parse: the info dictionary and the page still speak.
    }
    return {
      pages: pdf.numPages,
      lines: dropRunningLines(pagesOut, heights).flat(),
      pageHeights: heights,
      info: (meta.info ?? {}) as Record<string, unknown>,
      xmp,
      rotated,
    };
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}
