// The activation shell: what VS Code runs when a paper opens. It registers every command id, view, provider and the
// chat participant with a thin stand-in, and loads the features (features.ts, bundled as dist/features.js) on the
// first call of any of them: activation parses and runs only this module. With a paper visible, the features load
// (and open the corpus ahead of the first lookup) right after activation returns, not inside it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { HEALTH_SCHEME, RESULTS_VIEW_ID, STRUCTURE_VIEW_ID } from './command-table.js';
import type { CorpusLensApi, Features } from './features.js';
import { registerCorpusParticipant } from './ask/chat-participant.js';
import { isPaperDocument, PAPER_SELECTOR } from './shared/documents.js';
import { redactingLog } from './shared/redacting-log.js';
import { registerCommandIds } from './shared/register.js';

export type { CorpusLensApi } from './features.js';

/** The features of this activation, once loaded (the shell's stand-ins call them; deactivate closes their corpus). */
let active: Features | undefined;

export function activate(context: vscode.ExtensionContext): CorpusLensApi {
  const log = redactingLog(vscode.window.createOutputChannel('Corpus Lens', { log: true }));
  context.subscriptions.push(log);
  // The structure view exists from activation (VS Code restores it); it asks for its rows only while visible.
  const structureChanged = new vscode.EventEmitter<undefined>();
  const structureView = vscode.window.createTreeView<unknown>(STRUCTURE_VIEW_ID, {
    treeDataProvider: {
      onDidChangeTreeData: structureChanged.event,
      getChildren: (element) => features().providers.structure.getChildren(element as never),
      getTreeItem: (element) => features().providers.structure.getTreeItem(element as never),
    },
  });
  // The Corpus Health document likewise: VS Code may restore it before anything else loads the features.
  const healthChanged = new vscode.EventEmitter<vscode.Uri>();
  context.subscriptions.push(structureChanged, structureView, healthChanged);

  const features = (): Features => {
    if (active) return active;
    const t0 = Date.now();
    // A computed path: esbuild leaves this require to run time instead of bundling features.ts in here (as load.ts does).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require(path.join(__dirname, 'features.js')) as typeof import('./features.js');
    active = module.activateFeatures(context, { log, structureView });
    context.subscriptions.push(
      active.providers.structure.onDidChangeTreeData(() => structureChanged.fire(undefined)),
      active.providers.health.onDidChange((uri) => healthChanged.fire(uri)),
    );
    log.info(`features loaded in ${Date.now() - t0} ms`);
    return active;
  };

  registerCommandIds(context, (id, args) => features().commands[id](...args));

  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider(
      RESULTS_VIEW_ID,
      { resolveWebviewView: (...args) => features().providers.results.resolveWebviewView(...args) },
      { webviewOptions: { retainContextWhenHidden: true } },
    ),
    // One stand-in per provider, so VS Code shows their hovers and fixes apart as before.
    vscode.languages.registerHoverProvider(PAPER_SELECTOR, {
      provideHover: (...args) => features().providers.similarHover.provideHover(...args),
    }),
    vscode.languages.registerHoverProvider(PAPER_SELECTOR, {
      provideHover: (...args) => features().providers.citationHover.provideHover(...args),
    }),
    vscode.languages.registerHoverProvider(PAPER_SELECTOR, {
      provideHover: (...args) => features().providers.provenanceHover.provideHover(...args),
    }),
    vscode.languages.registerCodeActionsProvider(
      PAPER_SELECTOR,
      { provideCodeActions: (...args) => features().providers.originality.provideCodeActions(...args) },
      { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] },
    ),
    vscode.languages.registerCodeActionsProvider(
      PAPER_SELECTOR,
      { provideCodeActions: (...args) => features().providers.citationFixes.provideCodeActions(...args) },
      { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] },
    ),
    vscode.languages.registerCompletionItemProvider(
      PAPER_SELECTOR,
      {
        provideCompletionItems: (...args) => features().providers.citationCompletion.provideCompletionItems(...args),
        resolveCompletionItem: (...args) => features().providers.citationCompletion.resolveCompletionItem?.(...args) ?? args[0],
      },
      '{',
      ',',
      '@',
    ),
    vscode.workspace.registerTextDocumentContentProvider(HEALTH_SCHEME, {
      onDidChange: healthChanged.event,
      provideTextDocumentContent: (...args) => features().providers.health.provideTextDocumentContent(...args),
    }),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (isPaperDocument(doc)) features().providers.onSave(doc);
    }),
  );
  const participant = registerCorpusParticipant(log, (...args) => features().providers.chat(...args));
  if (participant) context.subscriptions.push(participant);

  // A paper in view: the features load (and open the corpus ahead of the first lookup) once activation has returned.
  const paperVisible = () => vscode.window.visibleTextEditors.some((e) => isPaperDocument(e.document));
  const soon = setTimeout(() => paperVisible() && features(), 0);
  context.subscriptions.push(
    { dispose: () => clearTimeout(soon) },
    vscode.window.onDidChangeVisibleTextEditors(() => {
      if (!active && paperVisible()) features();
    }),
  );
  log.info('Corpus Lens activated');

  const api = (name: keyof Features['api']) => ({ get: () => features().api[name], enumerable: true });
  return Object.defineProperties({ logUri: context.logUri } as CorpusLensApi, {
    panel: api('panel'),
    lookups: api('lookups'),
    corpus: api('corpus'),
    ask: api('ask'),
    pdfViewer: api('pdfViewer'),
    structure: api('structure'),
    status: api('status'),
  });
}

/** VS Code waits for this promise before it ends the extension host: the corpus process flushes its files first. */
export function deactivate(): Promise<void> | undefined {
  const features = active;
  active = undefined;
  return features?.api.corpus.close();
}
