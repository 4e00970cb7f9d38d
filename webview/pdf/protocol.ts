// The messages between the extension host (src/extension/pdf/pdf-view.ts) and the PDF viewer webview (webview/pdf/main.ts).
// The PDF's bytes travel in a message, so the webview can read nothing of the user's disk (its localResourceRoots
// are the extension's dist/ and media/ only).

/** What to show highlighted: a stored sentence (found in the page's text), or a stored element's region. */
export type PdfTarget =
  | { kind: 'sentence'; text: string }
  /** `bbox`: [x0, y0, x1, y1] in PDF points from the page's top-left, as ingest stores it (src/core/store/types.ts). */
  | { kind: 'box'; bbox: [number, number, number, number]; label: string | null };

/** Host → viewer. */
export type PdfHostMessage = {
  type: 'open';
  /** The file's name (shown as text), and its bytes; absent when the viewer has this document already (`docId`). */
  name: string;
  docId: string;
  data?: Uint8Array;
  /** 1-based; null when the store has no page for it (the viewer then looks for the sentence on every page). */
  page: number | null;
  target: PdfTarget | null;
};

/** Viewer → host. */
export type PdfViewMessage =
  | { type: 'ready' }
  /** The document `docId` is not loaded any more (the viewer was reloaded): send its bytes again. */
  | { type: 'need'; docId: string }
  /** What the viewer shows now: the page, how many highlight rectangles, and whether the target was found there. */
  | { type: 'shown'; docId: string; page: number; pages: number; highlights: number; found: boolean | null; message: string }
  | { type: 'failed'; docId: string; message: string };

export function isPdfViewMessage(m: unknown): m is PdfViewMessage {
  if (!m || typeof m !== 'object') return false;
  const t = (m as { type?: unknown }).type;
  return t === 'ready' || t === 'need' || t === 'shown' || t === 'failed';
}

/**
 * What the panel's crop script (dist/pdf-crop.js, webview/pdf/crop.ts; loaded by the Ask tab only when an element card
 * needs a crop drawn) puts on `window.corpusLensCrop`: draws one element's region of a PDF page as a PNG.
 */
export interface CropRenderer {
  render(request: {
    /** Tells documents apart: the bytes of the last one are kept parsed for the next crop. */
    docId: string;
    data: Uint8Array;
    /** 1-based. */
    page: number;
    bbox: [number, number, number, number];
  }): Promise<{ png: string; width: number; height: number }>;
}
