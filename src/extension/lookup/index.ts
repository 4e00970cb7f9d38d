// The lookup feature: the sentence under the cursor looked up as the author moves (while the panel shows and the
// trigger is "auto", debounced), on demand (Find Similar, the hover's "Open all in the panel"), and what a lookup
// shows: the panel, the status bar, the hover, the near-copy diagnostics.
import * as vscode from 'vscode';
import type { CommandTable } from '../command-table.js';
import type { CorpusService } from '../corpus/corpus.js';
import type { ResultsPanel } from '../panel/panel.js';
import { isPaperDocument } from '../shared/documents.js';
import type { PaperEditors } from '../shared/paper-editors.js';
import { readSettings } from '../shared/settings.js';
import type { StatusBar } from '../shared/status.js';
import { SimilarHover, SHOW_IN_PANEL_COMMAND } from './hover.js';
import type { Lookups } from './lookup.js';
import type { OriginalityGuard } from './originality.js';

interface LookupDeps {
  corpus: CorpusService;
  lookups: Lookups;
  guard: OriginalityGuard;
  status: StatusBar;
  panel: ResultsPanel;
  editors: PaperEditors;
}

export interface LookupFeature {
  commands: Pick<CommandTable, 'corpusLens.findSimilar' | typeof SHOW_IN_PANEL_COMMAND>;
  /** Find Similar: the panel shows, and the cursor's sentence of the paper being written is looked up. */
  findSimilar(): Promise<void>;
  /** The hover with the similar sentences (the activation shell registered it). */
  hover: vscode.HoverProvider;
}

export function register(context: vscode.ExtensionContext, deps: LookupDeps): LookupFeature {
  const { corpus, lookups, guard, status, panel, editors } = deps;

  const findSimilar = async () => {
    const editor = editors.current();
    if (!editor)
      return void vscode.window.showInformationMessage('Corpus Lens: open a LaTeX or Markdown paper and place the cursor in a sentence.');
    await panel.reveal();
    await lookups.lookupAtCursor(editor, true);
  };

  lookups.onDidLookup((event) => {
    panel.show(event);
    status.show(event);
    if (event.kind === 'results' && event.document) guard.check(event.document, event.result);
  });

  // The corpus opens as soon as the author may look something up, not at the first sentence (issue 31.14).
  const visiblePaper = () => vscode.window.visibleTextEditors.some((e) => isPaperDocument(e.document));
  if (visiblePaper()) corpus.warm();
  panel.onDidShow(() => {
    corpus.warm();
    const editor = vscode.window.activeTextEditor ?? editors.last;
    if (editor && isPaperDocument(editor.document) && readSettings(editor.document.uri).trigger === 'auto')
      void lookups.lookupAtCursor(editor);
  });
  // A corpus held closed (moved to a server) is back: the panel's "lookups resume…" gives way to results.
  corpus.onDidResume(() => {
    const editor = editors.current();
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
    { dispose: () => clearTimeout(timer) },
    vscode.window.onDidChangeTextEditorSelection((e) => {
      if (isPaperDocument(e.textEditor.document)) schedule(e.textEditor);
    }),
    vscode.window.onDidChangeVisibleTextEditors(() => {
      if (visiblePaper()) corpus.warm();
    }),
  );

  const commands: LookupFeature['commands'] = {
    'corpusLens.findSimilar': findSimilar,
    [SHOW_IN_PANEL_COMMAND]: async (uri: string, offset: number) => {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
      await panel.reveal();
      await lookups.lookupAt(doc, offset, true);
    },
  };
  return { commands, findSimilar, hover: new SimilarHover(lookups) };
}
