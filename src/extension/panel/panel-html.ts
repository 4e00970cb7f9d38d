// The side panel's HTML document, built by the host (pure: no vscode import, so tests build the same page).
// Strict CSP: nothing inline runs or styles without the nonce; scripts, styles and fonts come only from the
// webview's own resource origin (`cspSource`), which the host limits to dist/ and media/ via localResourceRoots.
// vscode-elements styles its shadow roots with constructable stylesheets (adoptedStyleSheets), which CSP does
// not gate; lit's <style> fallback picks up the nonce from `window.litNonce`, which main.ts sets from its script's nonce.
// Element images: the Ask tab adds the crop script (dist/pdf-crop.js) with the same nonce when a card needs it; PDF.js's
// worker is fetched from the resource origin (connect-src) and started from a blob: URL (worker-src), as in the PDF
// viewer (pdf-html.ts); the drawn crops are data: images.

import { attr, webviewDocument } from '../shared/webview-html.js';

export interface PanelHtmlOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  /** A fresh random nonce per render (base64/hex, no quotes). */
  nonce: string;
  /** `webview.asWebviewUri(dist/webview.js)`. */
  scriptUri: string;
  /** `webview.asWebviewUri(media/panel.css)`. */
  styleUri: string;
  /** `webview.asWebviewUri(.../codicon.css)`: only when codicons are shipped; icons are optional in the view. */
  codiconsUri?: string;
  /** The document title (read by screen readers). */
  title?: string;
  /** `asWebviewUri(dist/pdf-crop.js)` and `asWebviewUri(dist/pdf.worker.mjs)`: without them element cards stay text. */
  cropUri?: string;
  workerUri?: string;
}

/** The Content-Security-Policy of the panel. */
export function panelCsp(cspSource: string, nonce: string): string {
  return (
    [
      `default-src 'none'`,
      `style-src ${cspSource} 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
      `font-src ${cspSource}`,
      `img-src ${cspSource} data:`,
      `connect-src ${cspSource}`,
      `worker-src blob:`,
    ].join('; ') + ';'
  );
}

export function panelHtml(options: PanelHtmlOptions): string {
  const { cspSource, nonce, scriptUri, styleUri, codiconsUri, cropUri, workerUri } = options;
  const crop = cropUri && workerUri ? ` data-crop="${attr(cropUri)}" data-worker="${attr(workerUri)}"` : '';
  return webviewDocument({
    csp: panelCsp(cspSource, nonce),
    nonce,
    styleUri,
    scriptUri,
    title: options.title ?? 'Corpus Lens',
    head: codiconsUri ? `\n    <link id="vscode-codicon-stylesheet" rel="stylesheet" nonce="${nonce}" href="${attr(codiconsUri)}">` : '',
    body: `<main id="root" aria-label="Corpus Lens: similar sentences"${crop}></main>`,
  });
}
