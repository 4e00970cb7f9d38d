// Test harness for the PDF viewer webview in headless Chromium. As in VS Code, the page and its resources come from
// two origins: the page from http://127.0.0.1:PORT, the bundle, PDF.js's worker and the CSS from http://localhost:PORT
// (the `cspSource`), so the viewer's way of starting its worker across origins (a blob: copy) is what is tested. The
// page is the one `pdfHtml` builds, with its CSP and a fresh nonce; a stub acquireVsCodeApi records what the view
// posts; CSP violations, page errors and dialogs are recorded.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { pdfHtml } from '../../src/extension/pdf/pdf-html.js';
import type { PdfHostMessage, PdfViewMessage } from '../../webview/pdf/protocol.js';
import { recordPageProblems, ROOT } from './webview-page.js';

export interface PdfServer {
  pageOrigin: string;
  resourceOrigin: string;
  close(): Promise<void>;
}

/** Serves the viewer page and its resources (dist/pdf-view.js and dist/pdf.worker.mjs must be built: `npm run build`). */
export async function startPdfServer(): Promise<PdfServer> {
  const files: Record<string, [string, string]> = {
    '/dist/pdf-view.js': [join(ROOT, 'dist/pdf-view.js'), 'text/javascript'],
    '/dist/pdf-view.js.map': [join(ROOT, 'dist/pdf-view.js.map'), 'application/json'],
    '/dist/pdf.worker.mjs': [join(ROOT, 'dist/pdf.worker.mjs'), 'text/javascript'],
    '/media/pdf-view.css': [join(ROOT, 'media/pdf-view.css'), 'text/css'],
  };
  for (const [, [f]] of Object.entries(files))
    if (!f.endsWith('.map') && !existsSync(f)) throw new Error(`${f} is missing: run npm run build`);
  let port = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const resources = `http://localhost:${port}`;
    if (req.headers.host?.startsWith('127.0.0.1') && url.pathname === '/') {
      const nonce = randomBytes(16).toString('base64');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(
        pdfHtml({
          cspSource: resources,
          nonce,
          scriptUri: `${resources}/dist/pdf-view.js`,
          workerUri: `${resources}/dist/pdf.worker.mjs`,
          styleUri: `${resources}/media/pdf-view.css`,
        }),
      );
      return;
    }
    const f = req.headers.host?.startsWith('localhost') ? files[url.pathname] : undefined;
    if (!f || !existsSync(f[0])) {
      res.writeHead(404).end();
      return;
    }
    // A webview's resources are served with CORS open to the webview (VS Code's resource loader does the same).
    res.writeHead(200, { 'content-type': f[1], 'access-control-allow-origin': '*' });
    res.end(readFileSync(f[0]));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
  return {
    pageOrigin: `http://127.0.0.1:${port}`,
    resourceOrigin: `http://localhost:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export interface PdfPage {
  page: Page;
  send(message: PdfHostMessage): Promise<void>;
  posted(): Promise<PdfViewMessage[]>;
  violations(): Promise<string[]>;
  pageErrors: string[];
  dialogs: string[];
  close(): Promise<void>;
}

export async function openPdfViewer(browser: Browser, server: PdfServer, size = { width: 900, height: 800 }): Promise<PdfPage> {
  const page = await browser.newPage({ viewport: size });
  const { pageErrors, dialogs } = recordPageProblems(page);
  await page.addInitScript(`(() => {
    const posted = [];
    const violations = [];
    window.__posted = posted;
    window.__violations = violations;
    document.addEventListener('securitypolicyviolation', (e) => {
      violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || ''));
    });
    window.acquireVsCodeApi = () => ({ postMessage: (m) => { posted.push(JSON.parse(JSON.stringify(m))); }, getState: () => undefined, setState: () => {} });
  })();`);
  await page.goto(`${server.pageOrigin}/`);
  await page.waitForFunction(() => (window as unknown as { __posted: PdfViewMessage[] }).__posted.some((m) => m.type === 'ready'));
  return {
    page,
    // As VS Code delivers it: a structured clone, so the bytes arrive as a Uint8Array.
    send: (message) =>
      page.evaluate(
        (m) => {
          const msg = m as { data?: number[] };
          window.postMessage(msg.data ? { ...msg, data: new Uint8Array(msg.data) } : msg, '*');
        },
        (message.type === 'open' && message.data ? { ...message, data: [...message.data] } : message) as unknown,
      ),
    posted: () => page.evaluate(() => (window as unknown as { __posted: PdfViewMessage[] }).__posted.slice()),
    violations: () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations.slice()),
    pageErrors,
    dialogs,
    close: () => page.close(),
  };
}

/** Waits for the view's next `shown` (or `failed`) after `count` such messages were posted. */
export async function waitShown(p: PdfPage, count: number): Promise<Extract<PdfViewMessage, { type: 'shown' | 'failed' }>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const done = (await p.posted()).filter(
      (m): m is Extract<PdfViewMessage, { type: 'shown' | 'failed' }> => m.type === 'shown' || m.type === 'failed',
    );
    if (done.length > count) return done[count];
    if (Date.now() > deadline)
      throw new Error(
        `the viewer showed nothing; posted: ${JSON.stringify(await p.posted())}; status: ${await p.page.textContent('#pdf-status')}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}
