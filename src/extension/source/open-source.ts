// Where a paper of the corpus opens ("Open source" of a hit, of an Ask source or element card, the @corpus
// participant's references): its indexed file, at the sentence's line for a text source or in the Corpus Lens PDF
// viewer at its page, only under a folder the user indexed; else its DOI or web page.
import { errorText } from '../../core/redact.js';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HitView } from '../../../webview/protocol.js';
import type { PdfTarget } from '../../../webview/pdf/protocol.js';
import { isUnder, lineOfSentence, openTarget } from '../../core/open-target.js';
import { idsOfPaperId } from '../../core/paper/ids.js';
import type { CorpusService } from '../corpus/corpus.js';
import { PdfNotShown, type PdfViewer } from '../pdf/pdf-view.js';
import { openedAsReference } from '../shared/documents.js';
import { heavy } from '../load.js';

const INDEXED_ROOTS_KEY = 'corpusLens.indexedRoots';
/** Sources opened as text at the sentence's line; PDFs open in the Corpus Lens PDF viewer (pdf-view.ts). */
const TEXT_SOURCE = /\.(tex|ltx|md|markdown|qmd|rmd|html?|txt)$/i;
const PDF_SOURCE = /\.pdf$/i;

export interface SourceOpener {
  /** Remembers folders the user indexed: their files may be opened from corpus data. */
  rememberRoots(paths: string[]): Promise<void>;
  openPaperAt(
    p: { id: string; title: string | null; doi: string | null; url?: string | null },
    at: { text: string | null; page: number | null; target: PdfTarget | null },
  ): Promise<void>;
  openSource(hit: HitView): Promise<void>;
  /** The PDF a paper opens from on this machine (its indexed file, under a folder the user indexed), or null. */
  pdfOf(paperId: string): Promise<string | null>;
  sourceLocation(paperId: string, sentence: { id: number; text: string } | null): Promise<vscode.Uri | vscode.Location | undefined>;
}

export function sourceOpener(
  context: vscode.ExtensionContext,
  corpus: CorpusService,
  log: vscode.LogOutputChannel,
  pdfViewer: PdfViewer,
): SourceOpener {
  /** Folders the user indexed (files under them may be opened from corpus data), plus the workspace and the samples. */
  const indexedRoots = (): string[] => [
    ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    vscode.Uri.joinPath(context.extensionUri, 'samples').fsPath,
    ...context.globalState.get<string[]>(INDEXED_ROOTS_KEY, []),
  ];
  const rememberRoots = async (paths: string[]) => {
    const known = context.globalState.get<string[]>(INDEXED_ROOTS_KEY, []);
    await context.globalState.update(INDEXED_ROOTS_KEY, [...new Set([...known, ...paths])].slice(-200));
  };

  /** Where a paper opens: its indexed file (under a folder the user indexed), else its DOI or URL. */
  const sourceTarget = async (p: { id: string; doi: string | null; url?: string | null }) => {
    let sourcePath: string | null = null;
    try {
      const { store } = await corpus.connection();
      sourcePath = (await store.sources()).find((s) => s.id === p.id)?.sourcePath ?? null;
    } catch (err) {
      log.warn(`open source: could not read the source path of ${p.id}: ${errorText(err)}`);
    }
    return openTarget({ doi: p.doi, url: p.url, sourcePath }, indexedRoots());
  };

  /**
   * The file and 0-based line of a corpus sentence in a text source: for a LaTeX project the `\input` file it came
   * from (read again, so edits since indexing are followed; only under a folder the user indexed), else the line of
   * the source file where the sentence's words are found.
   */
  const sentenceInSource = async (file: string, text: string | null): Promise<{ doc: vscode.TextDocument; line: number }> => {
    if (text && /\.(tex|ltx)$/i.test(file)) {
      const at = heavy().latexSentenceSource(file, text);
      if (at && isUnder(at.file, indexedRoots()))
        return { doc: await vscode.workspace.openTextDocument(vscode.Uri.file(at.file)), line: at.line };
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    return { doc, line: text ? lineOfSentence(doc.getText(), text) : 0 };
  };

  /**
   * Opens a paper's source at a place in it: a PDF in the Corpus Lens viewer at `page` with `target` highlighted, a
   * text source at the line of `text`, another file in VS Code's viewer for it, else its DOI or web page.
   */
  const openPaperAt = async (
    p: { id: string; title: string | null; doi: string | null; url?: string | null },
    at: { text: string | null; page: number | null; target: PdfTarget | null },
  ) => {
    const target = await sourceTarget(p);
    if (target.kind === 'none') {
      log.warn(`open source of ${p.id}: ${target.reason}`);
      return void vscode.window.showInformationMessage(`Corpus Lens: "${p.title ?? p.id}": ${target.reason}.`);
    }
    if (target.kind === 'url') {
      log.info(`open source of ${p.id}: ${target.url}`);
      return void (await vscode.env.openExternal(vscode.Uri.parse(target.url, true)));
    }
    const uri = vscode.Uri.file(target.path);
    if (TEXT_SOURCE.test(target.path)) {
      // A file the author has open already (their own paper in the corpus) stays theirs.
      const open = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
      const { doc, line } = await sentenceInSource(target.path, at.text);
      const pos = new vscode.Position(line, 0);
      log.info(`open source of ${p.id}: ${doc.uri.fsPath} (line ${line + 1})`);
      if (!open.has(doc.uri.toString())) openedAsReference(doc);
      return void (await vscode.window.showTextDocument(doc, {
        selection: new vscode.Range(pos, pos),
        preview: true,
        viewColumn: vscode.ViewColumn.Active,
      }));
    }
    if (PDF_SOURCE.test(target.path)) {
      log.info(`open source of ${p.id}: ${target.path}${at.page ? ` (page ${at.page})` : ''} in the PDF viewer`);
      try {
        return await pdfViewer.show(target.path, at.page, at.target);
      } catch (err) {
        if (!(err instanceof PdfNotShown)) throw err;
        log.warn(`open source of ${p.id}: ${err.message}`);
        if (err.reason === 'missing')
          return void vscode.window.showWarningMessage(
            `Corpus Lens: "${p.title ?? p.id}": ${err.message}. Re-index its folder if it moved.`,
          );
        void vscode.window.showInformationMessage(
          `Corpus Lens: ${err.message}: opened in VS Code's viewer${at.page ? `; see page ${at.page}` : ''}.`,
        );
      }
    }
    // Another file type (or a PDF too large for the viewer): VS Code's default viewer for it.
    await vscode.commands.executeCommand('vscode.open', uri);
    if (at.page) vscode.window.setStatusBarMessage(`Corpus Lens: page ${at.page} of ${path.basename(target.path)}`, 20_000);
  };

  /** The PDF page the store keeps for a corpus sentence, or null (a store without pages, or not a PDF). */
  const storedPage = async (sentenceId: number): Promise<number | null> => {
    if (!Number.isInteger(sentenceId)) return null;
    try {
      const { store } = await corpus.connection();
      return (await store.sentencePages?.([sentenceId]))?.find((r) => r.id === sentenceId)?.page ?? null;
    } catch (err) {
      log.warn(`open source: could not read the page of sentence ${sentenceId}: ${errorText(err)}`);
      return null;
    }
  };

  // A hit's id is its displayed sentence's corpus id (hit-view.ts).
  const openSource = async (hit: HitView) =>
    openPaperAt(hit.paper, {
      text: hit.sentence.text,
      page: await storedPage(Number(hit.id)),
      target: { kind: 'sentence', text: hit.sentence.text },
    });

  /**
   * Where a cited paper opens: its indexed file (under a folder the user indexed; a text source at `sentence`), else
   * its DOI. Without a sentence (a work a quote cites) the DOI is the one its id holds, as Open cited paper takes it.
   */
  const sourceLocation = async (
    paperId: string,
    sentence: { id: number; text: string } | null,
  ): Promise<vscode.Uri | vscode.Location | undefined> => {
    let doi = idsOfPaperId(paperId).doi;
    if (sentence) {
      const { store } = await corpus.connection();
      doi = (await store.context([sentence.id])).find((h) => h.paper.id === paperId)?.paper.doi ?? null;
    }
    const target = await sourceTarget({ id: paperId, doi, url: null });
    if (target.kind === 'url') return vscode.Uri.parse(target.url, true);
    if (target.kind !== 'file') return undefined;
    const uri = vscode.Uri.file(target.path);
    if (!sentence || !TEXT_SOURCE.test(target.path)) return uri;
    const { doc, line } = await sentenceInSource(target.path, sentence.text);
    return new vscode.Location(doc.uri, new vscode.Position(line, 0));
  };

  const pdfOf = async (paperId: string): Promise<string | null> => {
    const target = await sourceTarget({ id: paperId, doi: null, url: null });
    return target.kind === 'file' && PDF_SOURCE.test(target.path) ? target.path : null;
  };

  return { rememberRoots, openPaperAt, openSource, sourceLocation, pdfOf };
}
