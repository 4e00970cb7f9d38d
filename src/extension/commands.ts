// The commands of the "Corpus Lens" category and the panel's actions.
import * as vscode from 'vscode';
import type { HitView } from '../../webview/protocol.js';
import { citeHit } from './cite.js';
import type { CorpusService } from './corpus.js';
import { isPaperDocument } from './documents.js';
import { SHOW_IN_PANEL_COMMAND } from './hover.js';
import { indexPaths, openSampleCorpus } from './indexing.js';
import type { Lookups } from './lookup.js';
import { CITE_HIT_COMMAND } from './originality.js';
import type { PanelActions, ResultsPanel } from './panel.js';
import type { Secrets } from './secrets.js';
import { RelatedWork } from './review.js';
import { readSettings } from './settings.js';

export interface CommandDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  secrets: Secrets;
  corpus: CorpusService;
  lookups: Lookups;
  lastPaperEditor(): vscode.TextEditor | undefined;
}

export function registerCommands(deps: CommandDeps): { panelActions: PanelActions; attachPanel(panel: ResultsPanel): void } {
  const { context, log, secrets, corpus, lookups } = deps;
  let panel: ResultsPanel | undefined;

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
      const key = await citeHit(hit, { editor, position });
      panel?.notice(`Cited as ${key}`);
      log.info(`cited ${hit.paper.id} as ${key} in ${editor.document.uri.fsPath}`);
    } catch (err) {
      log.error(`cite failed: ${(err as Error).message}`);
      void vscode.window.showErrorMessage(`Corpus Lens: ${(err as Error).message}`);
    }
  };

  const openSource = async (hit: HitView) => {
    const p = hit.paper;
    const target = p.doi ? `https://doi.org/${p.doi}` : p.url;
    if (!target) return void vscode.window.showInformationMessage(`Corpus Lens: no DOI, URL or file is recorded for "${p.title ?? p.id}".`);
    await vscode.env.openExternal(vscode.Uri.parse(target));
  };

  const configure = async () => {
    const pick = await vscode.window.showQuickPick(
      [
        { label: '$(folder-library) Index papers in this workspace', id: 'workspace', detail: 'PDF, LaTeX, Markdown, arXiv HTML and .bib files, into the embedded corpus' },
        { label: '$(book) Open the sample corpus', id: 'sample', detail: '30 short example papers that ship with Corpus Lens' },
        { label: '$(plug) Connect to a shared corpus…', id: 'connect', detail: 'PostgreSQL + pgvector, Supabase, or a CorpusStudio database' },
      ],
      { title: 'Corpus Lens: set up a corpus' },
    );
    if (pick?.id === 'workspace') await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.workspace.workspaceFolders?.[0]?.uri);
    else if (pick?.id === 'sample') await openSampleCorpus(context, corpus, log).then(() => findSimilar());
    else if (pick?.id === 'connect') await vscode.commands.executeCommand('corpusLens.connect');
  };

  const panelActions: PanelActions = {
    cite: (hit) => cite(hit),
    openSource,
    setOffset: (offset) => {
      lookups.offset = offset;
      void findSimilar();
    },
    configure: () => void configure(),
    retry: () => void findSimilar(),
    showLog: () => log.show(),
  };

  const register = (id: string, fn: (...args: never[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  register('corpusLens.findSimilar', findSimilar);
  register('corpusLens.openPanel', () => panel?.reveal());
  register('corpusLens.showLog', () => log.show());
  register('corpusLens.setApiKey', () => setApiKey(secrets));
  register('corpusLens.connect', () => connect(secrets, corpus));
  register(CITE_HIT_COMMAND, (hit: HitView, uri?: string, position?: vscode.Position) => cite(hit, uri, position));
  register(SHOW_IN_PANEL_COMMAND, async (uri: string, offset: number) => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    await panel?.reveal();
    await lookups.lookupAt(doc, offset, true);
  });
  register('corpusLens.indexFolder', async (folder?: vscode.Uri) => {
    const chosen = folder ? [folder] : await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: true, canSelectMany: true, openLabel: 'Index' });
    if (chosen?.length) await indexPaths(chosen.map((u) => u.fsPath), corpus, log);
  });
  register('corpusLens.indexThisPaper', async () => {
    const editor = paperEditor();
    if (!editor) return void vscode.window.showInformationMessage('Corpus Lens: open the paper to index first.');
    if (editor.document.isDirty) await editor.document.save();
    await indexPaths([editor.document.uri.fsPath], corpus, log);
  });
  const relatedWork = new RelatedWork(corpus, secrets, log);
  register('corpusLens.generateRelatedWork', async (options?: { topic?: string }) => {
    const editor = paperEditor();
    if (!editor) return void vscode.window.showInformationMessage('Corpus Lens: open the paper to write related work for first.');
    try {
      await relatedWork.generate(editor, options?.topic);
    } catch (err) {
      log.error(`related work failed: ${(err as Error).message}`);
      void vscode.window.showErrorMessage(`Corpus Lens: ${(err as Error).message}`);
    }
  });
  register('corpusLens.insertRelatedWork', () => relatedWork.insert());
  register('corpusLens.appendRelatedWorkBibtex', () => relatedWork.appendBibtex());
  return { panelActions, attachPanel: (p) => (panel = p) };
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

async function connect(secrets: Secrets, corpus: CorpusService): Promise<void> {
  const config = vscode.workspace.getConfiguration('corpusLens');
  const global = vscode.ConfigurationTarget.Global;
  const pick = await vscode.window.showQuickPick(
    [
      { label: 'Embedded corpus in a folder', id: 'embedded' },
      { label: 'PostgreSQL + pgvector', id: 'postgres' },
      { label: 'Supabase', id: 'supabase' },
    ],
    { title: 'Corpus Lens: connect to a corpus' },
  );
  if (!pick) return;
  if (pick.id === 'embedded') {
    const folder = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: 'Use this corpus folder' });
    if (!folder?.[0]) return;
    await config.update('corpus.backend', 'embedded', global);
    await config.update('corpus.path', folder[0].fsPath, global);
  } else {
    const url = await vscode.window.showInputBox({
      title: pick.id === 'postgres' ? 'PostgreSQL URL (the password is asked next and kept in secret storage)' : 'Supabase project URL',
      placeHolder: pick.id === 'postgres' ? 'postgres://user@host:5432/corpus' : 'https://xyzcompany.supabase.co',
      validateInput: (v) => (isUrl(v) ? undefined : 'Enter a URL'),
      ignoreFocusOut: true,
    });
    if (!url) return;
    const clean = new URL(url);
    const password = clean.password;
    clean.password = '';
    const secret = await vscode.window.showInputBox({
      title: pick.id === 'postgres' ? 'Password (kept in secret storage)' : 'Supabase key (kept in secret storage)',
      value: password,
      password: true,
      ignoreFocusOut: true,
    });
    if (secret === undefined) return;
    const kind = pick.id === 'postgres' ? 'postgres' : 'supabase';
    if (secret) await secrets.set(kind, clean.toString(), secret);
    const schema = await vscode.window.showQuickPick(
      [
        { label: 'Corpus Lens schema', id: 'corpusLens' },
        { label: 'CorpusStudio database (Document/Source tables), read only', id: 'corpusStudio' },
      ],
      { title: 'Which schema does it use?' },
    );
    if (!schema) return;
    await config.update('corpus.backend', kind, global);
    await config.update('corpus.url', clean.toString(), global);
    await config.update('corpus.schema', schema.id, global);
  }
  await corpus.drop();
  await vscode.commands.executeCommand('corpusLens.findSimilar');
}

function isUrl(v: string): boolean {
  try {
    new URL(v);
    return true;
  } catch {
    return false;
  }
}
