// The crop script of the side panel (built to dist/pdf-crop.js, loaded by the Ask tab the first time an element card
// has a PDF region to draw, so the panel's cold start does not parse PDF.js): draws the element's stored region of its
// page with PDF.js onto a canvas and returns it as a PNG data URL. The bytes come from the host in a message; nothing
// here reads the user's disk. The worker is the extension's own (worker.ts).
import * as pdfjs from 'pdfjs-dist';
import type { PDFDocumentProxy } from 'pdfjs-dist';
import { boxRect } from './box.js';
import type { CropRenderer } from './protocol.js';
import { startWorker } from './worker.js';

/** Points of page around the stored box (its edges run along the ink: a hair of air; more catches the line above). */
const MARGIN = 1;
/** The crop's width in pixels at most (a figure card is a side panel wide; twice that for sharpness), and its scale at most. */
const MAX_WIDTH = 720;
const MAX_SCALE = 3;

const workerUrl = (document.currentScript as HTMLScriptElement | null)?.dataset.worker ?? '';
let last: { docId: string; doc: Promise<PDFDocumentProxy> } | undefined;

async function documentOf(docId: string, data: Uint8Array): Promise<PDFDocumentProxy> {
  if (last?.docId === docId) return last.doc;
  const previous = last;
  await startWorker(workerUrl);
  const task = pdfjs.getDocument({ data, enableXfa: false, verbosity: 0 });
  task.onPassword = () => void task.destroy();
  last = { docId, doc: task.promise };
  void previous?.doc.then((d) => d.loadingTask.destroy()).catch(() => undefined);
  try {
    return await last.doc;
  } catch (err) {
    last = undefined;
    throw new Error(/password/i.test(String(err)) ? 'the PDF is password protected' : (err as Error).message, { cause: err });
  }
}

const renderer: CropRenderer = {
  async render({ docId, data, page: pageNumber, bbox }) {
    const doc = await documentOf(docId, data);
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > doc.numPages)
      throw new Error(`the PDF has ${doc.numPages} pages, not a page ${pageNumber}`);
    const page = await doc.getPage(pageNumber);
    const unit = boxRect(bbox, page.getViewport({ scale: 1 }), page.view, MARGIN);
    const widthPt = unit.right - unit.left;
    const heightPt = unit.bottom - unit.top;
    if (!(widthPt > 1 && heightPt > 1)) throw new Error('the stored region is empty');
    const scale = Math.min(MAX_SCALE, MAX_WIDTH / widthPt);
    const viewport = page.getViewport({ scale });
    const r = boxRect(bbox, viewport, page.view, MARGIN);
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(r.right - r.left));
    canvas.height = Math.max(1, Math.round(r.bottom - r.top));
    // The page is drawn shifted so the region's top-left is the canvas's origin; the rest falls outside it.
    await page.render({ canvas, viewport, transform: [1, 0, 0, 1, -r.left, -r.top], background: 'white' }).promise;
    return { png: canvas.toDataURL('image/png'), width: canvas.width, height: canvas.height };
  },
};

(window as unknown as { corpusLensCrop?: CropRenderer }).corpusLensCrop = renderer;
