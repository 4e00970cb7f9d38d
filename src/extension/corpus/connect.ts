// "Corpus Lens: Connect to Corpus…" (which corpus: a recent one, the sample corpus, a folder, PostgreSQL or
// Supabase) and "Corpus Lens: Set API Key" (kept in secret storage, bound to its endpoint's host).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { corpusFolderFor, paperFilesIn } from '../../core/store/ops/corpus-folder.js';
import { openSampleCorpus } from '../add-papers/indexing.js';
import type { Secrets } from '../shared/secrets.js';
import { readSettings } from '../shared/settings.js';
import type { CorpusService } from './corpus.js';
import { choiceLabel, currentChoice, sameChoice, useChoice, type CorpusChoice } from './switching.js';

export async function setApiKey(secrets: Secrets): Promise<void> {
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
export async function connect(
  secrets: Secrets,
  corpus: CorpusService,
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): Promise<boolean> {
  const config = vscode.workspace.getConfiguration('corpusLens');
  const global = vscode.ConfigurationTarget.Global;
  const current = currentChoice();
  type Item = vscode.QuickPickItem & { id: string; choice?: CorpusChoice };
  const recent: Item[] = corpus.history
    .recent()
    .filter((c) => !sameChoice(c, current))
    .map((c) => ({
      label: `$(history) ${choiceLabel(c, corpus.samplePath)}`,
      description: c.backend === 'embedded' ? c.path : c.url,
      id: 'recent',
      choice: c,
    }));
  const pick = await vscode.window.showQuickPick<Item>(
    [
      ...recent,
      ...(recent.some((r) => r.choice?.path === corpus.samplePath)
        ? []
        : [{ label: '$(book) The sample corpus', description: '30 short example papers', id: 'sample' }]),
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
    const folder = await vscode.window.showOpenDialog({
      canSelectFolders: true,
      canSelectFiles: false,
      openLabel: 'Use this corpus folder',
    });
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
        .showWarningMessage(
          `Corpus Lens: "${name}" holds papers (${papers} file${papers === 1 ? '' : 's'}), not a Corpus Lens corpus. Still using ${corpus.label()}.`,
          index,
        )
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
