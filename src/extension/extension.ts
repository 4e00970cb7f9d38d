// The composition root: wires the lookup loop to the panel, hover, diagnostics, status bar and commands.
// Nothing heavy happens here: the corpus (PGlite's WASM) opens on the first lookup.
import { redactingLog } from './shared/redacting-log.js';
import * as vscode from 'vscode';
import { CorpusService } from './corpus/corpus.js';
import { closedDocument, isPaperDocument } from './shared/documents.js';
import { Lookups } from './lookup/lookup.js';
import { ResultsPanel, RESULTS_VIEW_ID } from './panel/panel.js';
import { ProvenanceHover } from './review/provenance-hover.js';
import { SimilarHover } from './lookup/hover.js';
import { OriginalityGuard } from './lookup/originality.js';
import { StatusBar } from './shared/status.js';
import { Secrets } from './shared/secrets.js';
import { readSettings } from './shared/settings.js';
import { registerCommands } from './commands.js';
import { registerStructureView, type StructureProvider } from './structure/structure.js';
import { registerAddPapers } from './add-papers/add-papers.js';
import type { AskCorpus } from './ask/ask.js';
import type { PdfViewer } from './pdf/pdf-view.js';

const PAPER_SELECTOR: vscode.DocumentSelector = ['latex', 'markdown', 'quarto', 'rmd'].map((language) => ({ language }));

export interface CorpusLensApi {
  panel: ResultsPanel;
  lookups: Lookups;
  corpus: CorpusService;
  /** Ask the Corpus: the conversation of this workspace. */
  ask: AskCorpus;
  /** The PDF viewer "Open source" opens PDFs in (what it showed last). */
  pdfViewer: PdfViewer;
  structure: StructureProvider;
  /** The extension's log folder (the Corpus Lens output channel's file is in the session's log folder above it). */
  logUri: vscode.Uri;
}

/** The corpus of this activation, for deactivate. */
let active: CorpusService | undefined;

export function activate(context: vscode.ExtensionContext): CorpusLensApi {
  const log = redactingLog(vscode.window.createOutputChannel('Corpus Lens', { log: true }));
  const secrets = new Secrets(context.secrets);
  const corpus = new CorpusService(context, secrets, log);
  active = corpus;
  const lookups = new Lookups(corpus, log);
  const guard = new OriginalityGuard();
  const status = new StatusBar();
  let lastPaperEditor = vscode.window.activeTextEditor && isPaperDocument(vscode.window.activeTextEditor.document) ? vscode.window.activeTextEditor : undefined;

  const commands = registerCommands({ context, log, secrets, corpus, lookups, lastPaperEditor: () => lastPaperEditor });
  const panel = new ResultsPanel(context, commands.panelActions);
  commands.attachPanel(panel);
  const structure = registerStructureView({ context, corpus, log, lastPaperEditor: () => lastPaperEditor });
  const paperEditor = () => (vscode.window.activeTextEditor && isPaperDocument(vscode.window.activeTextEditor.document) ? vscode.window.activeTextEditor : lastPaperEditor);
  registerAddPapers({ context, log, secrets, corpus, paperEditor });

  lookups.onDidLookup((event) => {
    panel.show(event);
    status.show(event);
    if (event.kind === 'results') guard.check(event.document, event.result);
  });

  // The corpus opens as soon as the author may look something up, not at the first sentence (issue 31.14).
  const visiblePaper = () => vscode.window.visibleTextEditors.some((e) => isPaperDocument(e.document));
  if (visiblePaper()) corpus.warm();
  panel.onDidShow(() => {
    corpus.warm();
    const editor = vscode.window.activeTextEditor ?? lastPaperEditor;
    if (editor && isPaperDocument(editor.document) && readSettings(editor.document.uri).trigger === 'auto') void lookups.lookupAtCursor(editor);
  });
  // A corpus held closed (moved to a server) is back: the panel's "lookups resume…" gives way to results.
  corpus.onDidResume(() => {
    const editor = paperEditor();
    if (panel.visible && editor) void lookups.lookupAtCursor(editor, true);
  });

  let timer: NodeJS.Timeout | undefined;
  const schedule = (editor: vscode.TextEditor) => {
    clearTimeout(timer);
    const settings = readSettings(editor.document.uri);
    if (settings.trigger !== 'auto' || !panel.visible) return;
    timer = setTimeout(() => void lookups.lookupAtCursor(editor), settings.debounceMs);
  };

  context.subscriptions.push(
    log, corpus, lookups, guard, status, panel,
    { dispose: () => clearTimeout(timer) },
    vscode.window.registerWebviewViewProvider(RESULTS_VIEW_ID, panel, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.languages.registerHoverProvider(PAPER_SELECTOR, new SimilarHover(lookups)),
    vscode.languages.registerHoverProvider(PAPER_SELECTOR, new ProvenanceHover()),
    vscode.languages.registerCodeActionsProvider(PAPER_SELECTOR, guard, { providedCodeActionKinds: OriginalityGuard.providedCodeActionKinds }),
    vscode.window.onDidChangeTextEditorSelection((e) => {
      if (!isPaperDocument(e.textEditor.document)) return;
      lastPaperEditor = e.textEditor;
      schedule(e.textEditor);
    }),
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      if (editor && isPaperDocument(editor.document)) lastPaperEditor = editor;
    }),
    vscode.window.onDidChangeVisibleTextEditors(() => {
      if (visiblePaper()) corpus.warm();
    }),
    vscode.workspace.onDidCloseTextDocument(closedDocument),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('corpusLens.corpus') || e.affectsConfiguration('corpusLens.embedding')) {
        void corpus.drop('settings changed');
        lookups.clear();
      } else if (e.affectsConfiguration('corpusLens.results')) lookups.clear();
    }),
  );
  log.info('Corpus Lens activated');
  return { panel, lookups, corpus, structure, ask: commands.ask, pdfViewer: commands.pdfViewer, logUri: context.logUri };
}

/** VS Code waits for this promise before it ends the extension host: the corpus process flushes its files first. */
export function deactivate(): Promise<void> | undefined {
  const corpus = active;
  active = undefined;
  return corpus?.close();
}
