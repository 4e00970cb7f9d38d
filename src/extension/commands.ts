// The commands of the "Corpus Lens" category and the panel's actions.
import { errorText } from '../core/redact.js';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HitView } from '../../webview/protocol.js';
import { citeHit } from './cite/cite.js';
import { NotConfiguredError, type CorpusService } from './corpus/corpus.js';
import { corpusFolderFor, paperFilesIn } from '../core/store/corpus-folder.js';
import { choiceLabel, currentChoice, sameChoice, useChoice, type CorpusChoice } from './corpus/switching.js';
import type { NextAction } from '../../webview/protocol.js';
import { citeFromZotero } from './zotero/zotero.js';
import { isPaperDocument, openedAsReference } from './shared/documents.js';
import { SHOW_IN_PANEL_COMMAND } from './lookup/hover.js';
import { indexPaths, openSampleCorpus } from './add-papers/indexing.js';
import type { Lookups } from './lookup/lookup.js';
import { CITE_HIT_COMMAND } from './lookup/originality.js';
import type { PanelActions, ResultsPanel } from './panel/panel.js';
import type { Secrets } from './shared/secrets.js';
import { RelatedWork } from './review/review.js';
import { AskCorpus } from './ask/ask.js';
import { registerCorpusParticipant } from './ask/participant.js';
import { toAskProgress, toAskView } from './ask/ask-view.js';
import { toHitView } from './panel/hit-view.js';
import { readSettings } from './shared/settings.js';
import { moveCorpusToPostgres } from './corpus/move-corpus.js';
import { isUnder, lineOfSentence, openTarget } from '../core/open-target.js';
import { guarded } from './shared/command-errors.js';
import { failureReporter, registerCommand } from './shared/register.js';
import { PdfNotShown, PdfViewer } from './pdf/pdf-view.js';
import type { PdfTarget } from '../../webview/pdf/protocol.js';

const INDEXED_ROOTS_KEY = 'corpusLens.indexedRoots';
/** Sources opened as text at the sentence's line; PDFs open in the Corpus Lens PDF viewer (pdf-view.ts). */
const TEXT_SOURCE = /\.(tex|ltx|md|markdown|qmd|rmd|html?|txt)$/i;
const PDF_SOURCE = /\.pdf$/i;
/** "Add Papers…" (another part of the extension may provide it; Index Folder stands in until then). */
const ADD_PAPERS_COMMAND = 'corpusLens.addPapers';

export interface CommandDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  secrets: Secrets;
  corpus: CorpusService;
  lookups: Lookups;
  lastPaperEditor(): vscode.TextEditor | undefined;
}

export function registerCommands(deps: CommandDeps): { panelActions: PanelActions; attachPanel(panel: ResultsPanel): void; ask: AskCorpus; pdfViewer: PdfViewer } {
  const { context, log, secrets, corpus, lookups } = deps;
  let panel: ResultsPanel | undefined;
  const pdfViewer = new PdfViewer(context.extensionUri, log);
  context.subscriptions.push(pdfViewer);

  const paperEditor = (): vscode.TextEditor | undefined => {
    const active = vscode.window.activeTextEditor;
    return active && isPaperDocument(active.document) ? active : deps.lastPaperEditor();
  };

  const findSimilar = async () => {
    const editor = paperEditor();
    if (!editor) return void vscode.window.showInformationMessage('Corpus Lens: open a LaTeX or Markdown paper and place the cursor in a sentence.');
    await panel?.reveal();
    await lookups.lookupAtCursor(editor, true);
  };

  const cite = async (hit: HitView, uri?: string, position?: vscode.Position) => {
    const editor = uri ? vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri) ?? (await vscode.window.showTextDocument(vscode.Uri.parse(uri))) : paperEditor();
    if (!editor) return void vscode.window.showWarningMessage('Corpus Lens: open the paper to cite into first.');
    try {
      const { store } = await corpus.connection();
      const source = (await store.paperBibtex?.([hit.paper.id]).catch(() => []))?.[0]?.bibtex ?? null;
      const key = await citeHit(hit, { editor, position }, source);
      panel?.notice(`Cited as ${key}`);
      log.info(`cited ${hit.paper.id} as ${key} in ${editor.document.uri.fsPath}`);
    } catch (err) {
      log.error(`cite failed: ${(err as Error).message}`);
      void vscode.window.showErrorMessage(`Corpus Lens: ${errorText(err)}`);
    }
  };

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
      const { latexSentenceSource } = await import('../core/ingest/latex.js');
      const at = latexSentenceSource(file, text);
      if (at && isUnder(at.file, indexedRoots())) return { doc: await vscode.workspace.openTextDocument(vscode.Uri.file(at.file)), line: at.line };
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    return { doc, line: text ? lineOfSentence(doc.getText(), text) : 0 };
  };

  /**
   * Opens a paper's source at a place in it: a PDF in the Corpus Lens viewer at `page` with `target` highlighted, a
   * text source at the line of `text`, another file in VS Code's viewer for it, else its DOI or web page.
   */
  const openPaperAt = async (p: { id: string; title: string | null; doi: string | null; url?: string | null }, at: { text: string | null; page: number | null; target: PdfTarget | null }) => {
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
      return void (await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), preview: true, viewColumn: vscode.ViewColumn.Active }));
    }
    if (PDF_SOURCE.test(target.path)) {
      log.info(`open source of ${p.id}: ${target.path}${at.page ? ` (page ${at.page})` : ''} in the PDF viewer`);
      try {
        return await pdfViewer.show(target.path, at.page, at.target);
      } catch (err) {
        if (!(err instanceof PdfNotShown)) throw err;
        log.warn(`open source of ${p.id}: ${err.message}`);
        if (err.reason === 'missing') return void vscode.window.showWarningMessage(`Corpus Lens: "${p.title ?? p.id}": ${err.message}. Re-index its folder if it moved.`);
        void vscode.window.showInformationMessage(`Corpus Lens: ${err.message}: opened in VS Code's viewer${at.page ? `; see page ${at.page}` : ''}.`);
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
    openPaperAt(hit.paper, { text: hit.sentence.text, page: await storedPage(Number(hit.id)), target: { kind: 'sentence', text: hit.sentence.text } });

  /** Open source of an Ask element card: the PDF page with its box outlined, else the source at its caption. */
  const openElement = async (turn: number, index: number) => {
    const e = ask.conversation().turns[turn]?.elements?.[index];
    if (!e) throw new Error('this figure, table or equation is not in the conversation any more (was it cleared?)');
    const label = e.label ?? e.type;
    await openPaperAt(
      { id: e.paperId, title: e.title, doi: null },
      { text: e.caption ?? e.label, page: e.page, target: e.bbox && e.page ? { kind: 'box', bbox: e.bbox, label } : null },
    );
  };

  const configure = async () => {
    const pick = await vscode.window.showQuickPick(
      [
        { label: '$(add) Add papers…', id: 'add', detail: 'Choose PDF, LaTeX, Markdown, arXiv HTML or .bib files to build the corpus from' },
        { label: '$(folder-library) Index papers in this workspace', id: 'workspace', detail: 'PDF, LaTeX, Markdown, arXiv HTML and .bib files, into the embedded corpus' },
        { label: '$(cloud-download) Add papers…', id: 'add', detail: "Your paper's bibliography, an arXiv / Semantic Scholar / OpenAlex search, or DOIs: open full text fetched" },
        { label: '$(book) Open the sample corpus', id: 'sample', detail: '30 short example papers that ship with Corpus Lens' },
        { label: '$(plug) Connect to a shared corpus…', id: 'connect', detail: 'PostgreSQL + pgvector, Supabase, or a CorpusStudio database' },
      ],
      { title: 'Corpus Lens: set up a corpus' },
    );
    if (pick?.id === 'add') await runNextAction('addPapers');
    else if (pick?.id === 'workspace') await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.workspace.workspaceFolders?.[0]?.uri);
    else if (pick?.id === 'sample') await openSampleCorpus(context, corpus, log).then(() => findSimilar());
    else if (pick?.id === 'connect') await vscode.commands.executeCommand('corpusLens.connect');
  };

  /** Back to the corpus that last worked (after a failed switch), and look up the cursor's sentence there. */
  const goBack = async () => {
    const previous = corpus.history.fallback();
    if (!previous) return void vscode.window.showInformationMessage('Corpus Lens: no earlier corpus to go back to.');
    log.info(`going back to ${choiceLabel(previous, corpus.samplePath)}`);
    await useChoice(previous);
    await corpus.drop();
    await findSimilar();
  };

  /** "Add Papers…" is corpusLens.addPapers where that command exists, else Index Folder. */
  const runNextAction = async (action: NextAction) => {
    if (action === 'addPapers') {
      const has = (await vscode.commands.getCommands(true)).includes(ADD_PAPERS_COMMAND);
      await vscode.commands.executeCommand(has ? ADD_PAPERS_COMMAND : 'corpusLens.indexFolder');
    } else if (action === 'openSample') await openSampleCorpus(context, corpus, log).then(() => findSimilar());
    else await vscode.commands.executeCommand('corpusLens.connect');
  };

  const ask = new AskCorpus(context.workspaceState, corpus, secrets, log, () => lookups.selfPaperIds(paperEditor()?.document));
  context.subscriptions.push(
    ask,
    ask.onDidAsk((e) => {
      if (e.kind === 'start') panel?.askProgress({ kind: 'start', question: e.question, llm: e.llm });
      else if (e.kind === 'progress') {
        const p = toAskProgress(e.progress);
        if (p) panel?.askProgress(p);
      } else if (e.kind === 'stopped') panel?.askProgress({ kind: 'stopped', reason: e.reason, message: e.message });
      else panel?.showAsk(toAskView(e.kind === 'done' ? e.conversation : ask.conversation()));
    }),
  );
  /** A conversation source as a hit (its paper from the corpus): what Cite and Open source take. */
  const sourceHit = async (n: number) => {
    const hit = (await ask.hitsOf([n])).get(n);
    if (!hit) throw new Error(`source [${n}] is not in the corpus any more (was the conversation cleared, or the corpus switched?)`);
    return toHitView(hit);
  };
  const insertAnswer = async (turn: number) => {
    const editor = paperEditor();
    if (!editor) return void vscode.window.showWarningMessage('Corpus Lens: open the paper to insert the answer into first.');
    const keys = await ask.insertAnswer(turn, editor);
    panel?.notice(keys ? `Inserted, citing ${keys.join(', ')}` : 'This answer has nothing to insert');
  };

  // The panel's buttons run these without awaiting them: a failure is reported, never an unhandled rejection.
  const reporter = failureReporter(log);
  const safeFindSimilar = guarded('find similar sentences', findSimilar, reporter);
  const safeOpenSource = guarded('open source', openSource, reporter);
  const panelActions: PanelActions = {
    cite: (hit) => cite(hit),
    openSource: async (hit) => void (await safeOpenSource(hit)),
    setOffset: (offset) => {
      lookups.shift = offset;
      void safeFindSimilar();
    },
    configure: () => void guarded('set up a corpus', configure, reporter)(),
    retry: () => void safeFindSimilar(),
    showLog: () => log.show(),
    recover: () => void guarded('go back to the previous corpus', goBack, reporter)(),
    run: (action) => void guarded(`panel action ${action}`, runNextAction, reporter)(action),
    askView: () => toAskView(ask.conversation()),
    ask: (question) => void guarded('ask the corpus', (q: string) => ask.ask(q), reporter)(question),
    askCancel: () => ask.cancel(),
    askClear: () => void guarded('clear the Ask conversation', () => ask.clear(), reporter)(),
    askInsert: (turn) => void guarded('insert the answer', insertAnswer, reporter)(turn),
    askCite: (n) => void guarded('cite an Ask source', async (m: number) => cite(await sourceHit(m)), reporter)(n),
    askOpenSource: (n) => void guarded('open an Ask source', async (m: number) => openSource(await sourceHit(m)), reporter)(n),
    askOpenElement: (turn, element) => void guarded('open a figure, table or equation', openElement, reporter)(turn, element),
  };

  const register = <A extends unknown[], R>(id: string, fn: (...args: A) => R | PromiseLike<R>) => registerCommand(context, log, id, fn);
  register('corpusLens.findSimilar', findSimilar);
  register('corpusLens.openPanel', () => panel?.reveal());
  register('corpusLens.showLog', () => log.show());
  register('corpusLens.setApiKey', () => setApiKey(secrets));
  register('corpusLens.connect', async (choice?: CorpusChoice) => {
    const previous = corpus.history.fallback() ?? currentChoice();
    const switched = choice ? (await useChoice(choice), true) : await connect(secrets, corpus, context, log);
    if (!switched) return;
    await corpus.drop();
    await panel?.reveal();
    try {
      await corpus.connection();
    } catch (err) {
      if (!(err instanceof NotConfiguredError)) {
        const back = `Go back to ${choiceLabel(previous, corpus.samplePath)}`;
        void vscode.window.showErrorMessage(`Corpus Lens: could not connect to ${corpus.label()}: ${errorText(err)}`, back, 'Show Log').then((pick) => {
          if (pick === back) void guarded('go back to the previous corpus', goBack, reporter)();
          else if (pick === 'Show Log') log.show();
        });
      }
    }
    await findSimilar();
  });
  register('corpusLens.moveToPostgres', () => moveCorpusToPostgres(secrets, corpus, log));
  // From a hover link the position arrives as plain JSON ({line, character}).
  register(CITE_HIT_COMMAND, (hit: HitView, uri?: string, position?: { line: number; character: number }) =>
    cite(hit, uri, position ? new vscode.Position(position.line, position.character) : undefined));
  register(SHOW_IN_PANEL_COMMAND, async (uri: string, offset: number) => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    await panel?.reveal();
    await lookups.lookupAt(doc, offset, true);
  });
  register('corpusLens.indexFolder', async (folder?: vscode.Uri) => {
    const chosen = folder ? [folder] : await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: true, canSelectMany: true, openLabel: 'Index' });
    if (chosen?.length) {
      await rememberRoots(chosen.map((u) => u.fsPath));
      await indexPaths(chosen.map((u) => u.fsPath), corpus, log);
    }
  });
  register('corpusLens.citeFromZotero', async (options?: { query?: string }) => {
    const key = await citeFromZotero({ log, paperEditor }, options);
    if (key) panel?.notice(`Cited as ${key}`);
    return key;
  });
  register('corpusLens.indexThisPaper', async () => {
    const editor = paperEditor();
    if (!editor) return void vscode.window.showInformationMessage('Corpus Lens: open the paper to index first.');
    if (editor.document.isDirty) await editor.document.save();
    await rememberRoots([editor.document.uri.fsPath]);
    await indexPaths([editor.document.uri.fsPath], corpus, log);
  });
  const relatedWork = new RelatedWork(corpus, secrets, log, paperEditor);
  register('corpusLens.generateRelatedWork', async (options?: { topic?: string }) => {
    const editor = paperEditor();
    if (!editor) return void vscode.window.showInformationMessage('Corpus Lens: open the paper to write related work for first.');
    await relatedWork.generate(editor, options?.topic);
  });
  register('corpusLens.insertRelatedWork', () => relatedWork.insert());
  register('corpusLens.appendRelatedWorkBibtex', () => relatedWork.appendBibtex());
  register('corpusLens.showLastRelatedWork', () => relatedWork.showLast());

  /** Where a cited paper opens: its indexed file at the sentence (under a folder the user indexed), else its DOI. */
  const sourceLocation = async (paperId: string, sentenceId: number, sentence: string): Promise<vscode.Uri | vscode.Location | undefined> => {
    const { store } = await corpus.connection();
    const doi = (await store.context([sentenceId])).find((h) => h.paper.id === paperId)?.paper.doi ?? null;
    const target = await sourceTarget({ id: paperId, doi, url: null });
    if (target.kind === 'url') return vscode.Uri.parse(target.url, true);
    if (target.kind !== 'file') return undefined;
    const uri = vscode.Uri.file(target.path);
    if (!TEXT_SOURCE.test(target.path)) return uri;
    const { doc, line } = await sentenceInSource(target.path, sentence);
    return new vscode.Location(doc.uri, new vscode.Position(line, 0));
  };
  const participant = registerCorpusParticipant({ corpus, secrets, log, sourceLocation });
  if (participant) context.subscriptions.push(participant);

  // "Ask the Corpus…" opens the panel's Ask tab; with a question (scripts, tests, the chat) it also asks it there.
  // Failures (no corpus included: "no corpus at … yet") are reported by the guard of register.ts, like every command's.
  register('corpusLens.ask', async (options?: { question?: string }) => {
    await panel?.focusAsk();
    return options?.question ? ask.ask(options.question) : undefined;
  });
  register('corpusLens.clearAskConversation', async () => {
    await ask.clear();
    void vscode.window.showInformationMessage('Corpus Lens: the Ask conversation is cleared.');
  });
  // The last answer that has something to insert ("where did you find that?" and "I don't know" have not).
  register('corpusLens.insertAskAnswer', async (options?: { turn?: number }) => {
    const turns = ask.conversation().turns;
    let turn = options?.turn ?? turns.length - 1;
    while (options?.turn === undefined && turn >= 0 && turns[turn].kind !== 'answer' && turns[turn].kind !== 'extract') turn--;
    if (turn < 0) return void vscode.window.showInformationMessage('Corpus Lens: no answer to insert yet: ask the corpus first.');
    await insertAnswer(turn);
  });
  return { panelActions, attachPanel: (p) => (panel = p), ask, pdfViewer };
}

async function setApiKey(secrets: Secrets): Promise<void> {
  const settings = readSettings();
  const { provider } = settings.embedding;
  let kind: 'embedding' | 'chat' = 'embedding';
  if (settings.llm.baseUrl) {
    const pick = await vscode.window.showQuickPick(
      [
        { label: `Embeddings: ${settings.embedding.baseUrl}`, id: 'embedding' as const },
        { label: `Chat (related work): ${settings.llm.baseUrl}`, id: 'chat' as const },
      ],
      { title: 'Corpus Lens: which endpoint is the key for?' },
    );
    if (!pick) return;
    kind = pick.id;
  }
  const baseUrl = kind === 'chat' ? settings.llm.baseUrl : settings.embedding.baseUrl;
  const key = await vscode.window.showInputBox({
    title: `Corpus Lens: API key for ${new URL(baseUrl).host}`,
    prompt: `Stored in VS Code's secret storage and sent only to ${new URL(baseUrl).origin}.${kind === 'embedding' && provider === 'offline' ? ' (The offline embedder is active; set corpusLens.embedding.provider to "openai" to use it.)' : ''}`,
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) return;
  if (key === '') await secrets.delete(kind, baseUrl);
  else await secrets.set(kind, baseUrl, key.trim());
  void vscode.window.showInformationMessage(key ? 'Corpus Lens: API key saved.' : 'Corpus Lens: API key removed.');
}

/**
 * Asks which corpus to use: a recent one, the sample corpus, or a new folder / database. Returns whether the
 * corpus in use changed (the caller reconnects and offers the way back if that fails).
 */
async function connect(secrets: Secrets, corpus: CorpusService, context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Promise<boolean> {
  const config = vscode.workspace.getConfiguration('corpusLens');
  const global = vscode.ConfigurationTarget.Global;
  const current = currentChoice();
  type Item = vscode.QuickPickItem & { id: string; choice?: CorpusChoice };
  const recent: Item[] = corpus.history
    .recent()
    .filter((c) => !sameChoice(c, current))
    .map((c) => ({ label: `$(history) ${choiceLabel(c, corpus.samplePath)}`, description: c.backend === 'embedded' ? c.path : c.url, id: 'recent', choice: c }));
  const pick = await vscode.window.showQuickPick<Item>(
    [
      ...recent,
      ...(recent.some((r) => r.choice?.path === corpus.samplePath) ? [] : [{ label: '$(book) The sample corpus', description: '30 short example papers', id: 'sample' }]),
      { label: '', kind: vscode.QuickPickItemKind.Separator, id: '' },
      { label: 'Embedded corpus in a folder…', id: 'embedded' },
      { label: 'PostgreSQL + pgvector…', id: 'postgres' },
      { label: 'Supabase…', id: 'supabase' },
    ],
    { title: `Corpus Lens: switch corpus (now: ${corpus.label()})` },
  );
  if (!pick) return false;
  if (pick.choice) {
    await useChoice(pick.choice);
    return true;
  }
  if (pick.id === 'sample') {
    await openSampleCorpus(context, corpus, log);
    return true;
  }
  if (pick.id === 'embedded') {
    const folder = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: 'Use this corpus folder' });
    if (!folder?.[0]) return false;
    // The corpus folder, also when the picker landed inside its PostgreSQL files or on the folder around it.
    const chosen = corpusFolderFor(folder[0].fsPath);
    const papers = paperFilesIn(chosen);
    if (papers > 0) {
      // A folder of papers, not a corpus: the corpus in use stays; indexing the papers into it is offered.
      const index = 'Index this folder into the current corpus';
      const name = path.basename(chosen);
      log.info(`connect: ${chosen} holds ${papers} paper file(s), not a corpus; the corpus in use stays ${corpus.label()}`);
      void vscode.window
        .showWarningMessage(`Corpus Lens: "${name}" holds papers (${papers} file${papers === 1 ? '' : 's'}), not a Corpus Lens corpus. Still using ${corpus.label()}.`, index)
        .then((pick) => {
          if (pick === index) void vscode.commands.executeCommand('corpusLens.indexFolder', vscode.Uri.file(chosen));
        });
      return false;
    }
    await config.update('corpus.backend', 'embedded', global);
    await config.update('corpus.path', chosen, global);
  } else {
    const url = await vscode.window.showInputBox({
      title: pick.id === 'postgres' ? 'PostgreSQL URL (the password is asked next and kept in secret storage)' : 'Supabase project URL',
      placeHolder: pick.id === 'postgres' ? 'postgres://user@host:5432/corpus' : 'https://xyzcompany.supabase.co',
      validateInput: (v) => (isUrl(v) ? undefined : 'Enter a URL'),
      ignoreFocusOut: true,
    });
    if (!url) return false;
    const clean = new URL(url);
    const password = clean.password;
    clean.password = '';
    const secret = await vscode.window.showInputBox({
      title: pick.id === 'postgres' ? 'Password (kept in secret storage)' : 'Supabase key (kept in secret storage)',
      value: password,
      password: true,
      ignoreFocusOut: true,
    });
    if (secret === undefined) return false;
    const kind = pick.id === 'postgres' ? 'postgres' : 'supabase';
    if (secret) await secrets.set(kind, clean.toString(), secret);
    const schema = await vscode.window.showQuickPick(
      [
        { label: 'Corpus Lens schema', id: 'corpusLens' },
        { label: 'CorpusStudio database (Document/Source tables), read only', id: 'corpusStudio' },
      ],
      { title: 'Which schema does it use?' },
    );
    if (!schema) return false;
    await config.update('corpus.backend', kind, global);
    await config.update('corpus.url', clean.toString(), global);
    await config.update('corpus.schema', schema.id, global);
  }
  return true;
}

function isUrl(v: string): boolean {
  try {
    new URL(v);
    return true;
  } catch {
    return false;
  }
}
