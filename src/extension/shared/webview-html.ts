// The one HTML skeleton of Corpus Lens's webviews (the side panel, the PDF viewer): the CSP meta first, the
// stylesheet and the script only with the per-render nonce, every interpolated value escaped for an attribute.
// Pure (no vscode import), so tests build the same pages.

export interface WebviewDocument {
  /** The Content-Security-Policy, whole. */
  csp: string;
  /** A fresh random nonce per render (base64/hex, no quotes). */
  nonce: string;
  styleUri: string;
  scriptUri: string;
  /** Document title (read by screen readers); escaped here. */
  title: string;
  /** Further <head> lines and the <body> content, already escaped by the caller (use `attr`). */
  head?: string;
  body: string;
}

export function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function webviewDocument(d: WebviewDocument): string {
  if (!/^[A-Za-z0-9+/=_-]+$/.test(d.nonce)) throw new Error('webview HTML: the nonce must be base64 or hex');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${attr(d.csp)}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <link rel="stylesheet" nonce="${d.nonce}" href="${attr(d.styleUri)}">${d.head ?? ''}
    <title>${attr(d.title)}</title>
  </head>
  <body>
    ${d.body}
    <script nonce="${d.nonce}" src="${attr(d.scriptUri)}"></script>
  </body>
</html>
`;
}
