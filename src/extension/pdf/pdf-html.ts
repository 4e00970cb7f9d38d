// The PDF viewer's HTML document, built by the host (pure: no vscode import, so tests build the same page).
// Strict CSP: scripts only with the nonce (no 'unsafe-eval': PDF.js 6 evaluates no code), styles from
// the extension's files or with the nonce. PDF.js's worker is the extension's own dist/pdf.worker.mjs, but a webview
// cannot start a Worker from its resource origin (another origin than the document's), so the view fetches that
// file (connect-src: the resource origin only) and starts it from a blob: URL (worker-src blob: only).

import { attr, webviewDocument } from '../shared/webview-html.js';

export interface PdfHtmlOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  /** A fresh random nonce per render (base64/hex, no quotes). */
  nonce: string;
  /** `asWebviewUri(dist/pdf-view.js)`, `asWebviewUri(dist/pdf.worker.mjs)`, `asWebviewUri(media/pdf-view.css)`. */
  scriptUri: string;
  workerUri: string;
  styleUri: string;
}

export function pdfCsp(cspSource: string, nonce: string): string {
  return (
    [
      `default-src 'none'`,
      `script-src 'nonce-${nonce}'`,
      `style-src ${cspSource} 'nonce-${nonce}'`,
      `img-src ${cspSource} data:`,
      `font-src ${cspSource}`,
      `connect-src ${cspSource}`,
      `worker-src blob:`,
    ].join('; ') + ';'
  );
}

export function pdfHtml(options: PdfHtmlOptions): string {
  const { cspSource, nonce, scriptUri, workerUri, styleUri } = options;
  return webviewDocument({
    csp: pdfCsp(cspSource, nonce),
    nonce,
    styleUri,
    scriptUri,
    title: 'Corpus Lens: PDF source',
    body: `<div id="pdf-root" data-worker="${attr(workerUri)}"></div>`,
  });
}
