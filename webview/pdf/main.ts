// The PDF viewer webview: one page at a time drawn by PDF.js on a canvas, with the corpus sentence (found in the page's
// text, webview/pdf/find-text.ts) or the element's stored region highlighted over it. The host posts the PDF's bytes
// (webview/pdf/protocol.ts); nothing here reads the user's disk, and file names and corpus text only ever become text
// nodes (no innerHTML). The CSP has no 'unsafe-eval': PDF.js 6 has no eval path left (its isEvalSupported option is
// gone with it; test/webview/pdf-view.test.ts checks the bundles hold neither eval( nor new Function). Its worker
// starts from a blob: URL holding the extension's own dist/pdf.worker.mjs (see src/extension/pdf/pdf-html.ts for why).
import * as pdfjs from 'pdfjs-dist';
import type { PDFDocumentProxy, PDFPageProxy, PageViewport, RenderTask } from 'pdfjs-dist';
import type { TextItem, TextStyle } from 'pdfjs-dist/types/src/display/api.js';
import { el, replace } from '../dom.js';
import { boxRect, viewportRect, type Rect } from './box.js';
import { findSentence, type Run } from './find-text.js';
import { startWorker } from './worker.js';
import type { PdfHostMessage, PdfTarget, PdfViewMessage } from './protocol.js';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare const acquireVsCodeApi: (() => VsCodeApi) | undefined;
const api: VsCodeApi =
  typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : { postMessage: (m) => console.info('[corpus-lens pdf] (no host)', m) };
const post = (m: PdfViewMessage) => api.postMessage(m);

/** Pages searched for a sentence whose page the store does not know (a search of each page's text). */
const MAX_SEARCHED_PAGES = 300;
/** Zoom steps and bounds (× the page's size in points). */
const ZOOM_STEP = 1.25;
const MIN_SCALE = 0.25;
const MAX_SCALE = 6;
/** Margin (CSS pixels) around the page when it is fitted to the width. */
const FIT_MARGIN = 16;
/** Highlight rectangles on one line closer than this (× line height) are drawn as one. */
const MERGE_GAP = 0.6;

/** What is highlighted on a page, in page terms (drawn again at each scale). */
type Mark =
  | { kind: 'text'; item: TextItem; style: TextStyle | undefined; from: number; to: number }
  | { kind: 'box'; bbox: [number, number, number, number] };

const root = document.getElementById('pdf-root')!;
const workerUrl = root.dataset.worker ?? '';

const nameEl = el('span', { class: 'pdf-name', attrs: { id: 'pdf-name' } });
const prevBtn = el(
  'button',
  { class: 'pdf-btn', attrs: { id: 'pdf-prev', type: 'button', title: 'Previous page (Page Up)', 'aria-label': 'Previous page' } },
  '‹',
);
const nextBtn = el(
  'button',
  { class: 'pdf-btn', attrs: { id: 'pdf-next', type: 'button', title: 'Next page (Page Down)', 'aria-label': 'Next page' } },
  '›',
);
const pageInput = el('input', {
  class: 'pdf-page-input',
  attrs: { id: 'pdf-page', type: 'number', min: 1, value: 1, 'aria-label': 'Page number' },
});
const pagesEl = el('span', { class: 'pdf-pages', attrs: { id: 'pdf-pages' } });
const zoomOut = el(
  'button',
  { class: 'pdf-btn', attrs: { id: 'pdf-zoom-out', type: 'button', title: 'Zoom out', 'aria-label': 'Zoom out' } },
  '−',
);
const fitBtn = el(
  'button',
  { class: 'pdf-btn', attrs: { id: 'pdf-fit', type: 'button', title: 'Fit the page to the width', 'aria-pressed': 'true' } },
  'Fit width',
);
const zoomIn = el(
  'button',
  { class: 'pdf-btn', attrs: { id: 'pdf-zoom-in', type: 'button', title: 'Zoom in', 'aria-label': 'Zoom in' } },
  '+',
);
const statusEl = el(
  'div',
  { class: 'pdf-status', attrs: { id: 'pdf-status', role: 'status', 'aria-live': 'polite' } },
  'Waiting for the PDF…',
);
const canvas = el('canvas', { class: 'pdf-canvas', attrs: { id: 'pdf-canvas', 'aria-hidden': 'true' } });
const marksEl = el('div', { class: 'pdf-marks', attrs: { id: 'pdf-marks' } });
const pageEl = el('div', { class: 'pdf-page', attrs: { id: 'pdf-page-view', role: 'img', 'aria-label': 'PDF page' } }, canvas, marksEl);
const scroller = el('div', { class: 'pdf-scroller', attrs: { id: 'pdf-scroller', tabindex: 0 } }, pageEl);
replace(
  root,
  el(
    'div',
    { class: 'pdf-toolbar', attrs: { role: 'toolbar', 'aria-label': 'PDF page navigation' } },
    nameEl,
    el('span', { class: 'pdf-nav' }, prevBtn, pageInput, pagesEl, nextBtn),
    el('span', { class: 'pdf-zoom' }, zoomOut, fitBtn, zoomIn),
  ),
  statusEl,
  scroller,
);

let doc: PDFDocumentProxy | undefined;
let docId = '';
let pageNum = 1;
/** 'fit': the page's width fills the view; else a fixed scale. */
let zoom: 'fit' | number = 'fit';
let marks = new Map<number, Mark[]>();
/** The page the target starts on, and what to say about it. */
let targetPage: number | null = null;
let targetNote = '';
let found: boolean | null = null;
let renderTask: RenderTask | undefined;
/** Bumped by each render: a late result of an earlier one is dropped. */
let generation = 0;
/**
 * Bumped by each open: a later open supersedes it. Apart from `generation`, so that a redraw meanwhile (the view
 * resized while the sentence is searched for) cannot cancel the open and leave the page the view was on.
 */
let opens = 0;
/** An open is under way: a resize waits for it (it draws at the size the view has then). */
let opening = false;

function say(text: string): void {
  statusEl.textContent = text;
}

async function open(m: Extract<PdfHostMessage, { type: 'open' }>): Promise<void> {
  const mine = ++opens;
  opening = true;
  try {
    await openAt(m, mine);
  } finally {
    if (mine === opens) opening = false;
  }
}

async function openAt(m: Extract<PdfHostMessage, { type: 'open' }>, mine: number): Promise<void> {
  nameEl.textContent = m.name;
  document.title = `${m.name}: Corpus Lens`;
  if (m.docId !== docId || !doc) {
    if (!m.data) {
      post({ type: 'need', docId: m.docId });
      return;
    }
    say('Opening the PDF…');
    await startWorker(workerUrl);
    const old = doc;
    doc = undefined;
    docId = '';
    await old?.loadingTask.destroy().catch(() => undefined);
    const task = pdfjs.getDocument({ data: m.data, enableXfa: false, verbosity: 0 });
    task.onPassword = () => void task.destroy();
    try {
      const loaded = await task.promise;
      if (mine !== opens) return void loaded.loadingTask.destroy();
      doc = loaded;
      docId = m.docId;
    } catch (err) {
      const message = /password/i.test(String(err)) ? 'this PDF is password protected' : (err as Error).message;
      say(`Could not read ${m.name}: ${message}`);
      post({ type: 'failed', docId: m.docId, message });
      return;
    }
  }
  pagesEl.textContent = `of ${doc.numPages}`;
  pageInput.max = String(doc.numPages);
  await locate(doc, m.page, m.target, mine);
  if (mine !== opens) return;
  await show(targetPage ?? clampPage(m.page ?? 1), true);
}

function clampPage(p: number): number {
  return Math.min(Math.max(1, Math.round(p) || 1), doc?.numPages ?? 1);
}

/** The runs of a page's text in PDF.js's order, with the items they came from. */
async function pageText(d: PDFDocumentProxy, p: number): Promise<{ items: TextItem[]; styles: Record<string, TextStyle> }> {
  const page = await d.getPage(p);
  const tc = await page.getTextContent();
  return { items: tc.items.filter((i): i is TextItem => 'str' in i), styles: tc.styles };
}

/** Finds where the target is: the marks per page, the page it starts on, and what to tell the user. */
async function locate(d: PDFDocumentProxy, page: number | null, target: PdfTarget | null, mine: number): Promise<void> {
  marks = new Map();
  targetPage = page === null ? null : clampPage(page);
  found = null;
  targetNote = '';
  if (!target) return;
  if (target.kind === 'box') {
    if (page === null) {
      found = false;
      targetNote = `${target.label ?? 'The element'} has no page recorded.`;
      return;
    }
    marks.set(clampPage(page), [{ kind: 'box', bbox: target.bbox }]);
    found = true;
    targetNote = `${target.label ?? 'The element'} is outlined.`;
    return;
  }
  const candidates = page !== null ? [clampPage(page)] : Array.from({ length: Math.min(d.numPages, MAX_SEARCHED_PAGES) }, (_, i) => i + 1);
  // Each page's text is read once, though it is searched with the page before it and the page after.
  const texts = new Map<number, ReturnType<typeof pageText>>();
  const textOf = (p: number) => texts.get(p) ?? (texts.set(p, pageText(d, p)), texts.get(p)!);
  for (const p of candidates) {
    if (mine !== opens) return;
    // The page and the next one as one text: the sentence may continue over the page break.
    const here = await textOf(p);
    texts.delete(p - 1);
    const next = p < d.numPages ? await textOf(p + 1) : { items: [], styles: {} };
    const items = [
      ...here.items.map((item) => ({ item, page: p, styles: here.styles })),
      ...next.items.map((item) => ({ item, page: p + 1, styles: next.styles })),
    ];
    const runs: Run[] = items.map((x) => ({ str: x.item.str, page: x.page }));
    const hit = findSentence(target.text, runs);
    if (!hit || runs[hit.spans[0].run].page !== p) continue;
    for (const s of hit.spans) {
      const { item, page: on, styles } = items[s.run];
      const list = marks.get(on) ?? [];
      list.push({ kind: 'text', item, style: styles[item.fontName], from: s.from, to: s.to });
      marks.set(on, list);
    }
    targetPage = p;
    found = true;
    targetNote = marks.has(p + 1) ? `The sentence is highlighted; it continues on page ${p + 1}.` : 'The sentence is highlighted.';
    return;
  }
  found = false;
  targetNote =
    page !== null
      ? `The sentence was not found in the text of page ${targetPage}; the page is shown as it is.`
      : `The sentence was not found in the text of this PDF (${candidates.length < d.numPages ? `first ${candidates.length} pages searched` : 'every page searched'}).`;
}

/** A mark's rectangle in CSS pixels of the page drawn at `viewport`. */
function markRect(mark: Mark, viewport: PageViewport, view: number[]): Rect {
  if (mark.kind === 'box') return boxRect(mark.bbox, viewport, view);
  const { item, style, from, to } = mark;
  const [a, b, c, d, e, f] = item.transform as number[];
  const along = Math.hypot(a, b) || 1;
  const size = Math.hypot(c, d) || item.height || 10;
  const [ux, uy, vx, vy] = [a / along, b / along, c / size, d / size];
  const s0 = item.width * widthShare(item.str, from, style);
  const s1 = item.width * widthShare(item.str, to, style);
  const up = (style?.ascent || 0.8) * size;
  const down = Math.abs(style?.descent || -0.2) * size;
  const at = (s: number, t: number): [number, number] => [e + ux * s + vx * t, f + uy * s + vy * t];
  return viewportRect(viewport, [at(s0, -down), at(s1, -down), at(s0, up), at(s1, up)]);
}

let measure: CanvasRenderingContext2D | null | undefined;
/**
 * How far into the run its first `k` characters reach, as a share of its width: measured in a font of the run's
 * family (the PDF's own font is not at hand here), else by counting characters.
 */
function widthShare(str: string, k: number, style: TextStyle | undefined): number {
  if (k <= 0 || !str.length) return 0;
  if (k >= str.length) return 1;
  measure ??= document.createElement('canvas').getContext('2d');
  if (!measure) return k / str.length;
  measure.font = `100px ${style?.fontFamily || 'serif'}`;
  const whole = measure.measureText(str).width;
  return whole > 0 ? measure.measureText(str.slice(0, k)).width / whole : k / str.length;
}

/** Rectangles on one line that touch or nearly touch become one. */
function merge(rects: Rect[]): Rect[] {
  const out: Rect[] = [];
  for (const r of rects) {
    const h = r.bottom - r.top;
    const same = out.find((o) => {
      const overlap = Math.min(o.bottom, r.bottom) - Math.max(o.top, r.top);
      return overlap > 0.5 * Math.min(h, o.bottom - o.top) && r.left <= o.right + MERGE_GAP * h && r.right >= o.left - MERGE_GAP * h;
    });
    if (same)
      Object.assign(same, {
        left: Math.min(same.left, r.left),
        top: Math.min(same.top, r.top),
        right: Math.max(same.right, r.right),
        bottom: Math.max(same.bottom, r.bottom),
      });
    else out.push({ ...r });
  }
  return out;
}

function scaleFor(page: PDFPageProxy): number {
  if (zoom !== 'fit') return zoom;
  const width = page.getViewport({ scale: 1 }).width;
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, (scroller.clientWidth - 2 * FIT_MARGIN) / width));
}

/** Draws page `p` with its marks; `reveal`: scroll to the first mark. */
async function show(p: number, reveal: boolean): Promise<void> {
  const d = doc;
  if (!d) return;
  const mine = ++generation;
  pageNum = clampPage(p);
  pageInput.value = String(pageNum);
  prevBtn.disabled = pageNum <= 1;
  nextBtn.disabled = pageNum >= d.numPages;
  const page = await d.getPage(pageNum);
  if (mine !== generation) return;
  const scale = scaleFor(page);
  const viewport = page.getViewport({ scale });
  const ratio = window.devicePixelRatio || 1;
  renderTask?.cancel();
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${Math.floor(viewport.width)}px`;
  canvas.style.height = `${Math.floor(viewport.height)}px`;
  pageEl.style.width = canvas.style.width;
  pageEl.style.height = canvas.style.height;
  pageEl.dataset.page = String(pageNum);
  pageEl.dataset.scale = String(scale);
  pageEl.setAttribute('aria-label', `Page ${pageNum} of ${d.numPages}`);
  const rects = merge((marks.get(pageNum) ?? []).map((m) => markRect(m, viewport, page.view)));
  const kind = (marks.get(pageNum) ?? [])[0]?.kind;
  replace(
    marksEl,
    ...rects.map((r) => {
      const div = el('div', { class: `pdf-mark pdf-mark-${kind}` });
      div.style.left = `${r.left}px`;
      div.style.top = `${r.top}px`;
      div.style.width = `${r.right - r.left}px`;
      div.style.height = `${r.bottom - r.top}px`;
      return div;
    }),
  );
  const task = page.render({ canvas, viewport, transform: ratio !== 1 ? [ratio, 0, 0, ratio, 0, 0] : undefined });
  renderTask = task;
  try {
    await task.promise;
  } catch (err) {
    if ((err as Error).name === 'RenderingCancelledException') return;
    say(`Page ${pageNum} could not be drawn: ${(err as Error).message}`);
    return;
  }
  if (mine !== generation) return;
  let message = `Page ${pageNum} of ${d.numPages}.`;
  if (pageNum === targetPage || (found === false && targetPage === null)) message += ` ${targetNote}`;
  else if (rects.length) message += ' The sentence continues here.';
  else if (targetPage !== null && found) message += ` (The highlight is on page ${targetPage}.)`;
  say(message.trim());
  if (reveal && marksEl.firstElementChild)
    (marksEl.firstElementChild as HTMLElement).scrollIntoView({ block: 'center', inline: 'nearest' });
  else if (reveal) scroller.scrollTo({ top: 0 });
  post({
    type: 'shown',
    docId,
    page: pageNum,
    pages: d.numPages,
    highlights: rects.length,
    found: pageNum === targetPage ? found : null,
    message: statusEl.textContent ?? '',
  });
}

function setZoom(z: 'fit' | number): void {
  zoom = z;
  fitBtn.setAttribute('aria-pressed', String(z === 'fit'));
  void show(pageNum, false);
}

async function currentScale(): Promise<number> {
  return doc ? scaleFor(await doc.getPage(pageNum)) : 1;
}

prevBtn.addEventListener('click', () => void show(pageNum - 1, true));
nextBtn.addEventListener('click', () => void show(pageNum + 1, true));
pageInput.addEventListener('change', () => void show(Number(pageInput.value), true));
fitBtn.addEventListener('click', () => setZoom('fit'));
zoomIn.addEventListener('click', () => void currentScale().then((s) => setZoom(Math.min(MAX_SCALE, s * ZOOM_STEP))));
zoomOut.addEventListener('click', () => void currentScale().then((s) => setZoom(Math.max(MIN_SCALE, s / ZOOM_STEP))));
document.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement) return;
  // The arrows turn pages while the page fits the width; zoomed in, they scroll it.
  const arrows = zoom === 'fit' && !e.altKey;
  if (e.key === 'PageDown' || (arrows && e.key === 'ArrowRight')) void show(pageNum + 1, true);
  else if (e.key === 'PageUp' || (arrows && e.key === 'ArrowLeft')) void show(pageNum - 1, true);
  else return;
  e.preventDefault();
});
let resizeTimer: ReturnType<typeof setTimeout> | undefined;
new ResizeObserver(() => {
  if (zoom !== 'fit' || !doc) return;
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (!opening) void show(pageNum, false);
  }, 150);
}).observe(scroller);

window.addEventListener('message', (e: MessageEvent) => {
  const m = e.data as PdfHostMessage;
  if (!m || m.type !== 'open') return;
  // After a `need`, the host posts the same `open` again with the bytes.
  const request = m;
  open(request).catch((err: Error) => {
    say(`Could not show ${request.name}: ${err.message}`);
    post({ type: 'failed', docId: request.docId, message: err.message });
  });
});
post({ type: 'ready' });
