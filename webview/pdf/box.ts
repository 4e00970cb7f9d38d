// An element's stored region on its page, in PDF.js's terms. Ingest stores boxes as [x0, y0, x1, y1] in points from
// the page's top-left (x from the view's left, y down from its top); PDF space has y up from the view's bottom.
import type { PageViewport } from 'pdfjs-dist';

export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The rectangle of `points` (PDF space) in CSS pixels of the page drawn at `viewport`. */
export function viewportRect(viewport: PageViewport, points: Array<[number, number]>): Rect {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y] of points) {
    const [vx, vy] = viewport.convertToViewportPoint(x, y);
    xs.push(vx);
    ys.push(vy);
  }
  return { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
}

/** A stored box (grown by `margin` points on each side) in CSS pixels of the page drawn at `viewport`; `view`: the page's view box. */
export function boxRect(bbox: readonly [number, number, number, number], viewport: PageViewport, view: number[], margin = 0): Rect {
  const [x0, y0, x1, y1] = [bbox[0] - margin, bbox[1] - margin, bbox[2] + margin, bbox[3] + margin];
  const X = (x: number) => x + view[0];
  const Y = (y: number) => view[3] - y;
  return viewportRect(viewport, [
    [X(x0), Y(y0)],
    [X(x1), Y(y0)],
    [X(x0), Y(y1)],
    [X(x1), Y(y1)],
  ]);
}
