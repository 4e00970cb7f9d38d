// Test harness for the side-panel webview in headless Chromium (the browser: chromium.ts's fixture).
// A local HTTP server plays the webview's resource origin: it serves the page built by `panelHtml` (with its
// CSP and a fresh nonce), the built dist/webview.js and media/panel.css. A stub `acquireVsCodeApi` injected
// before any page script records what the view posts and keeps its setState; tests post host messages with
// window.postMessage, as VS Code does. CSP violations, page errors and dialogs are recorded.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, statSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { panelHtml } from '../../src/extension/panel/panel-html.js';
import type { HitView, HostMessage, ViewMessage } from '../../webview/protocol.js';

export const ROOT = resolve(__dirname, '..', '..');
const BUNDLE = join(ROOT, 'dist/webview.js');
const CROP_BUNDLE = join(ROOT, 'dist/pdf-crop.js');
const PDF_WORKER = join(ROOT, 'dist/pdf.worker.mjs');

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

/**
 * Makes sure dist/webview.js exists and is newer than its sources; otherwise builds just the webview with the
 * same options as esbuild.mjs (bundle, IIFE, browser, es2022), so a broken host build elsewhere cannot block it.
 */
export async function ensureWebviewBundle(): Promise<string> {
  const sources = Math.max(newestMtime(join(ROOT, 'webview')), statSync(join(ROOT, 'src/core/retrieve/recurring.ts')).mtimeMs);
  if (!(existsSync(BUNDLE) && statSync(BUNDLE).mtimeMs >= sources)) await buildBrowserBundle('webview/main.ts', BUNDLE);
  return BUNDLE;
}

/** The same for the Ask tab's crop script (webview/pdf/crop.ts, with PDF.js) and PDF.js's worker beside it. */
export async function ensureCropBundle(): Promise<void> {
  await ensureWebviewBundle();
  if (!existsSync(PDF_WORKER)) copyFileSync(join(ROOT, 'node_modules/pdfjs-dist/build/pdf.worker.min.mjs'), PDF_WORKER);
  if (!(existsSync(CROP_BUNDLE) && statSync(CROP_BUNDLE).mtimeMs >= newestMtime(join(ROOT, 'webview/pdf'))))
    await buildBrowserBundle('webview/pdf/crop.ts', CROP_BUNDLE);
}

/** One browser bundle with esbuild.mjs's options for the webviews (bundle, IIFE, browser, es2022). */
async function buildBrowserBundle(entry: string, outfile: string): Promise<void> {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(ROOT, entry)],
    outfile,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    bundle: true,
    sourcemap: true,
    logLevel: 'warning',
  });
}

export interface PanelServer {
  origin: string;
  /** The nonce of the last page served. */
  lastNonce(): string;
  close(): Promise<void>;
}

export async function startPanelServer(): Promise<PanelServer> {
  let nonce = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const origin = `http://${req.headers.host}`;
    if (url.pathname === '/' || url.pathname === '/index.html') {
      nonce = randomBytes(16).toString('base64');
      const html = panelHtml({
        cspSource: origin,
        nonce,
        scriptUri: `${origin}/dist/webview.js`,
        styleUri: `${origin}/media/panel.css`,
        cropUri: `${origin}/dist/pdf-crop.js`,
        workerUri: `${origin}/dist/pdf.worker.mjs`,
      });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(html);
      return;
    }
    const files: Record<string, [string, string]> = {
      '/dist/webview.js': [BUNDLE, 'text/javascript'],
      '/dist/webview.js.map': [`${BUNDLE}.map`, 'application/json'],
      '/media/panel.css': [join(ROOT, 'media/panel.css'), 'text/css'],
      '/dist/pdf-crop.js': [CROP_BUNDLE, 'text/javascript'],
      '/dist/pdf.worker.mjs': [PDF_WORKER, 'text/javascript'],
    };
    const f = files[url.pathname];
    if (!f || !existsSync(f[0])) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': f[1], 'cache-control': 'no-store' });
    res.end(readFileSync(f[0]));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    lastNonce: () => nonce,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

// ---- themes: the variables VS Code sets on <html> (via CSSOM) and the class it sets on <body> ----

export type ThemeName = 'light' | 'dark' | 'high-contrast';

const COMMON = {
  '--vscode-font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
  '--vscode-font-size': '13px',
  '--vscode-font-weight': 'normal',
  '--vscode-editor-font-family': '"Droid Sans Mono", monospace',
};

export const THEMES: Record<ThemeName, { bodyClass: string; kind: string; vars: Record<string, string> }> = {
  light: {
    bodyClass: 'vscode-light',
    kind: 'vscode-light',
    vars: {
      ...COMMON,
      '--vscode-foreground': '#3b3b3b',
      '--vscode-descriptionForeground': '#717171',
      '--vscode-sideBar-background': '#f8f8f8',
      '--vscode-editor-background': '#ffffff',
      '--vscode-focusBorder': '#005fb8',
      '--vscode-panel-border': '#e5e5e5',
      '--vscode-widget-border': '#e5e5e5',
      '--vscode-editor-findMatchHighlightBackground': 'rgba(234, 92, 0, 0.33)',
      '--vscode-editor-wordHighlightStrongBackground': 'rgba(14, 99, 156, 0.25)',
      '--vscode-textLink-foreground': '#005fb8',
      '--vscode-button-background': '#005fb8',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-hoverBackground': '#0258a8',
      '--vscode-button-border': 'rgba(0, 0, 0, 0.1)',
      '--vscode-button-secondaryBackground': '#e5e5e5',
      '--vscode-button-secondaryForeground': '#3b3b3b',
      '--vscode-button-secondaryHoverBackground': '#cccccc',
      '--vscode-badge-background': '#cccccc',
      '--vscode-badge-foreground': '#3b3b3b',
      '--vscode-list-hoverBackground': '#f2f2f2',
      '--vscode-list-inactiveSelectionBackground': '#e4e6f1',
      '--vscode-errorForeground': '#f85149',
      '--vscode-inputValidation-errorBackground': '#f2dede',
      '--vscode-inputValidation-errorBorder': '#be1100',
      '--vscode-checkbox-background': '#f8f8f8',
      '--vscode-checkbox-border': '#cecece',
      '--vscode-checkbox-foreground': '#3b3b3b',
      '--vscode-progressBar-background': '#005fb8',
      '--vscode-notifications-background': '#ffffff',
      '--vscode-notifications-foreground': '#3b3b3b',
    },
  },
  dark: {
    bodyClass: 'vscode-dark',
    kind: 'vscode-dark',
    vars: {
      ...COMMON,
      '--vscode-foreground': '#cccccc',
      '--vscode-descriptionForeground': '#9d9d9d',
      '--vscode-sideBar-background': '#181818',
      '--vscode-editor-background': '#1f1f1f',
      '--vscode-focusBorder': '#0078d4',
      '--vscode-panel-border': '#2b2b2b',
      '--vscode-widget-border': '#313131',
      '--vscode-editor-findMatchHighlightBackground': 'rgba(234, 92, 0, 0.33)',
      '--vscode-editor-wordHighlightStrongBackground': 'rgba(0, 73, 114, 0.72)',
      '--vscode-textLink-foreground': '#4daafc',
      '--vscode-button-background': '#0078d4',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-hoverBackground': '#026ec1',
      '--vscode-button-border': 'rgba(255, 255, 255, 0.07)',
      '--vscode-button-secondaryBackground': '#313131',
      '--vscode-button-secondaryForeground': '#cccccc',
      '--vscode-button-secondaryHoverBackground': '#3c3c3c',
      '--vscode-badge-background': '#616161',
      '--vscode-badge-foreground': '#f8f8f8',
      '--vscode-list-hoverBackground': '#2a2d2e',
      '--vscode-list-inactiveSelectionBackground': '#37373d',
      '--vscode-errorForeground': '#f85149',
      '--vscode-inputValidation-errorBackground': '#5a1d1d',
      '--vscode-inputValidation-errorBorder': '#be1100',
      '--vscode-checkbox-background': '#313131',
      '--vscode-checkbox-border': '#3c3c3c',
      '--vscode-checkbox-foreground': '#cccccc',
      '--vscode-progressBar-background': '#0078d4',
      '--vscode-notifications-background': '#1f1f1f',
      '--vscode-notifications-foreground': '#cccccc',
    },
  },
  'high-contrast': {
    bodyClass: 'vscode-high-contrast',
    kind: 'vscode-high-contrast',
    vars: {
      ...COMMON,
      '--vscode-foreground': '#ffffff',
      '--vscode-descriptionForeground': 'rgba(255, 255, 255, 0.7)',
      '--vscode-sideBar-background': '#000000',
      '--vscode-editor-background': '#000000',
      '--vscode-focusBorder': '#f38518',
      '--vscode-contrastBorder': '#6fc3df',
      '--vscode-contrastActiveBorder': '#f38518',
      '--vscode-panel-border': '#6fc3df',
      '--vscode-widget-border': '#6fc3df',
      '--vscode-editor-findMatchHighlightBackground': 'transparent',
      '--vscode-editor-findMatchHighlightBorder': '#f38518',
      '--vscode-editor-wordHighlightStrongBackground': 'transparent',
      '--vscode-editor-wordHighlightStrongBorder': '#f38518',
      '--vscode-textLink-foreground': '#21a6ff',
      '--vscode-button-background': '#000000',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-border': '#6fc3df',
      '--vscode-button-secondaryBackground': '#000000',
      '--vscode-button-secondaryForeground': '#ffffff',
      '--vscode-badge-background': '#000000',
      '--vscode-badge-foreground': '#ffffff',
      '--vscode-list-inactiveSelectionBackground': 'transparent',
      '--vscode-errorForeground': '#f48771',
      '--vscode-inputValidation-errorBackground': '#000000',
      '--vscode-inputValidation-errorBorder': '#f48771',
      '--vscode-checkbox-background': '#000000',
      '--vscode-checkbox-border': '#6fc3df',
      '--vscode-checkbox-foreground': '#ffffff',
      '--vscode-progressBar-background': '#6fc3df',
      '--vscode-notifications-background': '#000000',
      '--vscode-notifications-foreground': '#ffffff',
      '--vscode-notifications-border': '#6fc3df',
    },
  },
};

// ---- the page ----

export interface PanelPage {
  page: Page;
  /** Posts a host → view message (as VS Code's webview.postMessage does). */
  send(message: HostMessage): Promise<void>;
  /** What the view posted so far (deep copies). */
  posted(): Promise<ViewMessage[]>;
  clearPosted(): Promise<void>;
  /** The view's last setState. */
  savedState(): Promise<unknown>;
  violations(): Promise<string[]>;
  pageErrors: string[];
  dialogs: string[];
  close(): Promise<void>;
}

export interface OpenOptions {
  theme?: ThemeName;
  /** What getState() returns at start (a reloaded view). */
  initialState?: unknown;
  width?: number;
  height?: number;
}

/** Collects the page's uncaught errors and the dialogs it opens (each dismissed), for a test to assert none. */
export function recordPageProblems(page: Page): { pageErrors: string[]; dialogs: string[] } {
  const pageErrors: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { pageErrors, dialogs };
}

export async function openPanel(browser: Browser, server: PanelServer, options: OpenOptions = {}): Promise<PanelPage> {
  const page = await browser.newPage({ viewport: { width: options.width ?? 380, height: options.height ?? 900 } });
  const { pageErrors, dialogs } = recordPageProblems(page);
  const theme = THEMES[options.theme ?? 'dark'];
  // A string, not a function: tsx's transform would add helpers (__name) that do not exist in the page.
  await page.addInitScript(`(() => {
    const initialState = ${JSON.stringify(options.initialState ?? null)};
    const theme = ${JSON.stringify(theme)};
    const posted = [];
    const violations = [];
    let state = initialState === null ? undefined : initialState;
    window.__posted = posted;
    window.__violations = violations;
    window.__getSaved = () => state;
    document.addEventListener('securitypolicyviolation', (e) => {
      violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || ''));
    });
    let acquired = false;
    window.acquireVsCodeApi = () => {
      if (acquired) throw new Error('acquireVsCodeApi called twice');
      acquired = true;
      return {
        postMessage: (m) => { posted.push(JSON.parse(JSON.stringify(m))); },
        getState: () => state,
        setState: (s) => { state = JSON.parse(JSON.stringify(s)); },
      };
    };
    // VS Code sets the theme variables on <html> through CSSOM and the theme class on <body>.
    const apply = () => {
      for (const [k, v] of Object.entries(theme.vars)) document.documentElement.style.setProperty(k, v);
      document.body.classList.add(theme.bodyClass);
      document.body.dataset.vscodeThemeKind = theme.kind;
    };
    if (document.body) apply();
    else document.addEventListener('DOMContentLoaded', apply, { once: true });
  })();`);
  await page.goto(`${server.origin}/`);
  await page.waitForFunction(() => document.querySelector('#cl-status') !== null);
  return {
    page,
    send: (message) => page.evaluate((m) => window.postMessage(m, '*'), message as unknown),
    posted: () => page.evaluate(() => (window as unknown as { __posted: ViewMessage[] }).__posted.slice()),
    clearPosted: () => page.evaluate(() => void ((window as unknown as { __posted: unknown[] }).__posted.length = 0)),
    savedState: () => page.evaluate(() => (window as unknown as { __getSaved: () => unknown }).__getSaved()),
    violations: () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations.slice()),
    pageErrors,
    dialogs,
    close: () => page.close(),
  };
}

// ---- data ----

/** 25 distinct corpus sentences on one topic, with phrases that recur across several of them. */
export const SENTENCES = [
  'Large language models improve machine translation quality on low-resource language pairs.',
  'We fine-tune a pretrained language model on parallel data for machine translation.',
  'Back-translation augments the training data with synthetic parallel sentences.',
  'Neural machine translation systems still struggle with rare words and named entities.',
  'Subword segmentation reduces the vocabulary size without losing coverage.',
  'Attention lets the decoder focus on the relevant source tokens at each step.',
  'Multilingual pretraining transfers knowledge from high-resource to low-resource languages.',
  'Evaluation with BLEU alone hides differences in fluency and adequacy.',
  'Human evaluation remains the most reliable measure of translation quality.',
  'Document-level context resolves pronouns that sentence-level systems get wrong.',
  'A pretrained language model can be adapted to a new domain with little data.',
  'Data augmentation is most useful when parallel data is scarce.',
  'Character-level models handle morphologically rich languages more gracefully.',
  'Knowledge distillation compresses a large teacher into a fast student model.',
  'Quality estimation predicts translation quality without reference translations.',
  'Terminology constraints force the decoder to use approved domain terms.',
  'Zero-shot translation between unseen language pairs is possible with a shared encoder.',
  'Noise in web-crawled parallel data harms low-resource translation the most.',
  'Beam search with length normalisation avoids overly short outputs.',
  'Large language models can translate without task-specific training data.',
  'Curriculum learning orders training examples from easy to hard.',
  'Adapters add few parameters per language while keeping the base model frozen.',
  'Automatic metrics correlate poorly with human judgements on high-quality systems.',
  'Retrieval of similar sentence pairs helps the model with domain terminology.',
  'Gender bias in translation outputs reflects imbalances in the training data.',
];

const FIRST = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Barbara Liskov', 'Edsger W. Dijkstra', 'Frances Allen', 'Donald Knuth'];
const TITLES = [
  'Low-Resource Machine Translation with Pretrained Language Models',
  'Revisiting Back-Translation at Scale',
  'What Automatic Metrics Miss in Translation Evaluation',
  'Adapters for Multilingual Translation',
  'Document-Level Context in Neural Machine Translation',
];
const SECTIONS = ['Introduction', 'Related Work', 'Method', 'Experiments', 'Discussion', null];

/** `n` hits (n ≤ 25 uses the sentences above once each) with context and varied metadata. */
export function makeHits(n: number): HitView[] {
  const venues = ['ACL', 'EMNLP', 'NAACL', null, 'TACL', 'WMT'];
  return Array.from({ length: n }, (_, i) => {
    const authorCount = (i % 3) + 1;
    return {
      id: `s${1000 + i}`,
      similarity: Math.round((0.91 - i * 0.011) * 1000) / 1000,
      sentence: { text: SENTENCES[i % SENTENCES.length], sectionTitle: SECTIONS[i % SECTIONS.length] },
      previous: i % 4 === 3 ? null : { text: `This is the sentence before result ${i + 1}.` },
      next: i % 5 === 4 ? null : { text: `This is the sentence after result ${i + 1}.` },
      paper: {
        id: `paper-${i % 12}`,
        title: `${TITLES[i % TITLES.length]}${i >= TITLES.length ? ` (${Math.floor(i / TITLES.length) + 1})` : ''}`,
        authors: Array.from({ length: authorCount }, (_, k) => FIRST[(i + k) % FIRST.length]),
        year: 2012 + (i % 13),
        venue: venues[i % venues.length],
        doi: i % 2 ? `10.1000/test.${i}` : null,
      },
    };
  });
}

export function resultsMessage(hits: HitView[], offset: 0 | 1 = 0): HostMessage {
  return {
    type: 'state',
    state: {
      kind: 'results',
      query: { clean: 'Pretrained language models help machine translation for low-resource languages.', section: 'Introduction' },
      hits,
      offset,
      corpusName: 'Sample corpus (30 papers)',
      embedder: 'offline (hashed n-grams)',
      threshold: 0.5,
      elapsedMs: 12,
    },
  };
}

/** Waits until the view has posted a message matching `pred` and returns it. */
/** The page broke no rule: no CSP violation, no page error, no dialog (every panel test ends with it). */
export async function cleanPage(p: PanelPage): Promise<void> {
  assert.deepEqual(await p.violations(), [], 'no CSP violation');
  assert.deepEqual(p.pageErrors, [], 'no page error');
  assert.deepEqual(p.dialogs, [], 'no dialog');
}

export async function waitPosted(p: PanelPage, pred: (m: ViewMessage) => boolean, what: string): Promise<ViewMessage> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = (await p.posted()).find(pred);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`the view did not post ${what}; posted: ${JSON.stringify(await p.posted())}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
