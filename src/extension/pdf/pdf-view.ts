// The PDF viewer panel: "Open source" of a PDF opens it here at the page of the sentence or element, highlighted
// (webview/pdf/main.ts draws it). One panel, reused: a second Open source shows the new target in it, and the
// bytes of a PDF the view holds already are not sent again. The bytes go by postMessage, so the webview's
// localResourceRoots stay the extension's dist/ and media/: a webview that could load from the user's folders
// would expose every file under them to anything the view runs.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorText } from '../../core/redact.js';
import { pdfHtml } from './pdf-html.js';
import { isPdfViewMessage, type PdfHostMessage, type PdfTarget, type PdfViewMessage } from '../../../webview/pdf/protocol.js';

export const PDF_VIEW_TYPE = 'corpusLens.pdf';
/**
 * Largest PDF sent to the viewer. The whole file crosses to the webview (and PDF.js holds it), so a scanned book of
 * hundreds of MB would cost that much memory twice; papers are a few MB. Larger ones open in VS Code's own viewer.
 */
export const MAX_PDF_BYTES = 50 * 1024 * 1024;

export type ShownMessage = Extract<PdfViewMessage, { type: 'shown' }>;

/** Why the viewer could not take a file: the caller says so and may open it elsewhere. */
export class PdfNotShown extends Error {
  constructor(
    message: string,
    readonly reason: 'missing' | 'tooLarge',
  ) {
    super(message);
  }
}

interface Request {
  file: string;
  docId: string;
  page: number | null;
  target: PdfTarget | null;
}

export class PdfViewer implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private request: Request | undefined;
  /** The document the view holds (it said `shown` for it), so its bytes need not travel again. */
  private held: string | undefined;
  private readonly didShow = new vscode.EventEmitter<ShownMessage>();
  /** What the view showed last (the page, how many highlights, whether the target was found). */
  readonly onDidShow = this.didShow.event;
  lastShown: ShownMessage | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /**
   * Shows `file` at `page` (1-based; null: the view searches the sentence on every page) with `target` highlighted.
   * Throws PdfNotShown when the file is missing, unreadable or too large.
   */
  async show(file: string, page: number | null, target: PdfTarget | null): Promise<void> {
    let stat;
    try {
      stat = await fs.stat(file);
      await fs.access(file, fs.constants.R_OK);
    } catch (err) {
      throw new PdfNotShown(`${file} cannot be read (${errorText(err)})`, 'missing');
    }
    if (stat.size > MAX_PDF_BYTES)
      throw new PdfNotShown(
        `${path.basename(file)} is ${(stat.size / 1024 / 1024).toFixed(0)} MB; the Corpus Lens viewer takes PDFs up to ${MAX_PDF_BYTES / 1024 / 1024} MB`,
        'tooLarge',
      );
    // A changed file is another document.
    const docId = `${pathId(file)}-${stat.size}-${Math.round(stat.mtimeMs)}`;
    this.request = { file, docId, page, target };
    const panel = this.ensurePanel();
    panel.title = `${path.basename(file)}${page ? ` (p. ${page})` : ''}`;
    panel.reveal(panel.viewColumn ?? vscode.ViewColumn.Active, false);
    if (this.ready) await this.post(this.held !== docId);
  }

  private ensurePanel(): vscode.WebviewPanel {
    if (this.panel) return this.panel;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(
      PDF_VIEW_TYPE,
      'PDF',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      {
        enableScripts: true,
        localResourceRoots: [dist, media],
      },
    );
    const webview = panel.webview;
    webview.html = pdfHtml({
      cspSource: webview.cspSource,
      nonce: randomBytes(16).toString('base64'),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'pdf-view.js')).toString(),
      workerUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'pdf.worker.mjs')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'pdf-view.css')).toString(),
    });
    this.ready = false;
    this.held = undefined;
    webview.onDidReceiveMessage((m: unknown) => void this.receive(m).catch((err) => this.log.warn(`PDF viewer: ${errorText(err)}`)));
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.ready = false;
      this.held = undefined;
    });
    this.panel = panel;
    return panel;
  }

  private async receive(m: unknown): Promise<void> {
    if (!isPdfViewMessage(m)) return;
    switch (m.type) {
      case 'ready':
        // A new or reloaded view holds no document.
        this.ready = true;
        this.held = undefined;
        if (this.request) await this.post(true);
        return;
      case 'need':
        this.held = undefined;
        if (this.request?.docId === m.docId) await this.post(true);
        return;
      case 'shown':
        this.held = m.docId;
        this.lastShown = m;
        this.log.info(`PDF viewer: page ${m.page} of ${m.pages}, ${m.highlights} highlight(s): ${m.message}`);
        this.didShow.fire(m);
        return;
      case 'failed':
        this.held = undefined;
        this.log.warn(`PDF viewer could not show ${this.request?.file ?? 'the PDF'}: ${m.message}`);
        return;
    }
  }

  private async post(withBytes: boolean): Promise<void> {
    const r = this.request;
    if (!r || !this.panel) return;
    let data: Uint8Array | undefined;
    if (withBytes) {
      try {
        const buf = await fs.readFile(r.file);
        data = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      } catch (err) {
        void vscode.window.showWarningMessage(`Corpus Lens: ${r.file} cannot be read (${errorText(err)}).`);
        return;
      }
    }
    const message: PdfHostMessage = { type: 'open', name: path.basename(r.file), docId: r.docId, data, page: r.page, target: r.target };
    await this.panel.webview.postMessage(message);
  }

  dispose(): void {
    this.panel?.dispose();
    this.didShow.dispose();
  }
}

/** A stable short id for a path (the view needs to tell documents apart, not to know where they are). */
function pathId(file: string): string {
  let h = 2166136261;
  for (let i = 0; i < file.length; i++) h = Math.imul(h ^ file.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}
