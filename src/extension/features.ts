// The composition root of the features: builds every service once, hands each feature folder (lookup, panel, cite,
// zotero, ask, review, corpus, add-papers, structure) what it needs through its `register(context, deps)`, and returns
// the one command table the features' parts make up and the providers the activation shell (extension.ts) registered
// in their place. esbuild bundles it as dist/features.js, which the shell loads on first use. Nothing heavy happens
// here either: the corpus (PGlite's WASM) opens on the first lookup, and the heavy modules load on first use (load.ts).
import * as vscode from 'vscode';
import type { CommandTable } from './command-table.js';
import { CorpusService } from './corpus/corpus.js';
import { closedDocument } from './shared/documents.js';
import { PaperEditors } from './shared/paper-editors.js';
import { guardedCommands } from './shared/register.js';
import { Lookups } from './lookup/lookup.js';
import { ResultsPanel } from './panel/panel.js';
import { OriginalityGuard } from './lookup/originality.js';
import { StatusBar } from './shared/status.js';
import { Secrets } from './shared/secrets.js';
import { keepChatAnswersIn } from './shared/chat.js';
import { AskCorpus } from './ask/ask.js';
import { PdfViewer } from './pdf/pdf-view.js';
import { RelatedWork } from './review/review.js';
import { sourceOpener } from './source/open-source.js';
import { StructureProvider, type StructureItem } from './structure/structure.js';
import * as addPapers from './add-papers/index.js';
import * as asking from './ask/index.js';
import * as cite from './cite/index.js';
import * as citeCheck from './cite-check/index.js';
import * as corpusFeature from './corpus/index.js';
import * as elementsFeature from './elements/index.js';
import * as health from './health/index.js';
import * as lookup from './lookup/index.js';
import * as panelFeature from './panel/index.js';
import * as review from './review/index.js';
import * as structureFeature from './structure/index.js';
import * as zotero from './zotero/index.js';

export interface CorpusLensApi {
  panel: ResultsPanel;
  lookups: Lookups;
  corpus: CorpusService;
  /** Ask the Corpus: the conversation of this workspace. */
  ask: AskCorpus;
  /** The PDF viewer "Open source" opens PDFs in (what it showed last). */
  pdfViewer: PdfViewer;
  structure: StructureProvider;
  /** The status-bar item (its text: the corpus and its size). */
  status: Pick<StatusBar, 'text'>;
  /** The extension's log folder (the Corpus Lens output channel's file is in the session's log folder above it). */
  logUri: vscode.Uri;
}

/** What the activation shell delegates to: the commands (each guarded) and the providers it registered. */
export interface Features {
  api: Omit<CorpusLensApi, 'logUri'>;
  commands: Record<string, (...args: unknown[]) => unknown>;
  providers: {
    similarHover: vscode.HoverProvider;
    provenanceHover: vscode.HoverProvider;
    citationHover: vscode.HoverProvider;
    originality: vscode.CodeActionProvider;
    citationFixes: vscode.CodeActionProvider;
    citationCompletion: vscode.CompletionItemProvider;
    results: vscode.WebviewViewProvider;
    structure: StructureProvider;
    chat: vscode.ChatRequestHandler;
    health: health.HealthProvider;
    onSave(doc: vscode.TextDocument): void;
  };
}

export interface Shell {
  /** The Corpus Lens output channel (secrets redacted). */
  log: vscode.LogOutputChannel;
  /** The "Section Structure" view, created at activation over the shell's forwarding provider. */
  structureView: vscode.TreeView<unknown>;
}

export function activateFeatures(context: vscode.ExtensionContext, shell: Shell): Features {
  const { log } = shell;
  const secrets = new Secrets(context.secrets);
  keepChatAnswersIn(vscode.Uri.joinPath(context.globalStorageUri, 'llm').fsPath);
  const corpus = new CorpusService(context, secrets, log);
  const editors = new PaperEditors();
  const lookups = new Lookups(corpus, log);
  const guard = new OriginalityGuard();
  const status = new StatusBar();
  corpus.onDidCount((c) => status.showCounts(c));
  const panel = new ResultsPanel(context);
  const pdfViewer = new PdfViewer(context.extensionUri, log);
  const sources = sourceOpener(context, corpus, log, pdfViewer);
  const ask = new AskCorpus(context.workspaceState, corpus, secrets, log, () => lookups.selfPaperIds(editors.current()?.document));
  const relatedWork = new RelatedWork(corpus, secrets, log, () => editors.current());
  const structure = new StructureProvider(corpus, log, editors);
  context.subscriptions.push(corpus, editors, lookups, guard, status, panel, pdfViewer, ask, structure);

  const looking = lookup.register(context, { corpus, lookups, guard, status, panel, editors });
  const citing = cite.register(context, { log, corpus, panel, editors });
  const corpora = corpusFeature.register(context, { log, secrets, corpus, lookups, panel, findSimilar: looking.findSimilar });
  const asked = asking.register(context, { log, secrets, corpus, ask, panel, editors, sources });
  const checking = citeCheck.register(context, { log, corpus, panel, editors });
  const reviewing = review.register({ relatedWork, editors });
  const healthReport = health.register(context, { log, corpus });
  const table: CommandTable = {
    ...looking.commands,
    ...citing.commands,
    ...corpora.commands,
    ...asked.commands,
    ...zotero.register(context, { log, panel, editors }).commands,
    ...checking.commands,
    ...addPapers.register(context, { log, secrets, corpus, editors, sources }).commands,
    ...reviewing.commands,
    ...structureFeature.register({ structure, editors, view: shell.structureView as vscode.TreeView<StructureItem> }).commands,
    ...healthReport.commands,
    ...elementsFeature.register({ log, corpus, secrets }).commands,
    ...panelFeature.register(context, { log, panel, lookups, ask, sources, lookup: looking, cite: citing, corpus: corpora, asking: asked })
      .commands,
    'corpusLens.showLog': () => log.show(),
  };
  context.subscriptions.push(vscode.workspace.onDidCloseTextDocument(closedDocument));
  log.info('Corpus Lens features loaded');
  return {
    api: { panel, lookups, corpus, structure, ask, pdfViewer, status },
    commands: guardedCommands(log, table),
    providers: {
      similarHover: looking.hover,
      provenanceHover: reviewing.hover,
      citationHover: checking.hover,
      originality: guard,
      citationFixes: checking.fixes,
      citationCompletion: checking.completion,
      results: panel,
      structure,
      chat: asked.chat,
      health: healthReport.provider,
      onSave: checking.onSave,
    },
  };
}
