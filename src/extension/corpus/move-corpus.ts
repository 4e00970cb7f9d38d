// "Corpus Lens: Move Corpus to PostgreSQL…": copies the embedded corpus to a lab's PostgreSQL + pgvector server
// (`corpus-lens copy` in a child process, core/store/copy-process.ts), with progress and cancel; the password goes
// to SecretStorage like Connect's; on a verified copy the settings switch to the server. The embedded folder is
// kept. A cancelled or failed copy changes no setting, and running it again resumes.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorText, redactUrl } from '../../core/redact.js';
import { runCopyProcess } from '../../core/store/ops/copy-process.js';
import type { CorpusService } from './corpus.js';
import type { Secrets } from '../shared/secrets.js';
import { readSettings } from '../shared/settings.js';

export async function moveCorpusToPostgres(secrets: Secrets, corpus: CorpusService, log: vscode.LogOutputChannel): Promise<void> {
  const settings = readSettings();
  if (settings.corpus.backend !== 'embedded') {
    return void vscode.window.showInformationMessage('Corpus Lens: the current corpus is not an embedded one; nothing to move.');
  }
  if (corpus.indexing) {
    return void vscode.window.showWarningMessage(
      'Corpus Lens: an indexing run is writing to the corpus; move it when the run has finished.',
    );
  }
  const from = corpus.target(settings);
  const url = await vscode.window.showInputBox({
    title: 'Move the corpus to PostgreSQL + pgvector: server URL (the password is asked next and kept in secret storage)',
    placeHolder: 'postgres://user@host:5432/corpus',
    validateInput: (v) => (/^postgres(ql)?:\/\/[^/]+/i.test(v) ? undefined : 'Enter a postgres:// URL'),
    ignoreFocusOut: true,
  });
  if (!url) return;
  const clean = new URL(url);
  const typed = clean.password;
  clean.password = '';
  const to = clean.toString();
  const password = await vscode.window.showInputBox({
    title: 'Password (kept in secret storage)',
    value: typed ? decodeURIComponent(typed) : ((await secrets.get('postgres', to)) ?? ''),
    password: true,
    ignoreFocusOut: true,
  });
  if (password === undefined) return;
  if (password) await secrets.set('postgres', to, password);
  // The embedded corpus is open in this window's corpus process, and any lookup (the panel, the status bar, a hover)
  // would reopen it: hold it closed until the copy has finished, so the copy's process can open the folder.
  const release = await corpus.hold(from, `the corpus is being moved to ${clean.host}`);
  log.info(`moving corpus ${from} to ${redactUrl(to)}`);
  try {
    const summary = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Corpus Lens: moving the corpus to ${clean.host}`, cancellable: true },
      (progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        let last = 0;
        return runCopyProcess({
          script: path.join(__dirname, 'cli.js'),
          from,
          to,
          password: password || undefined,
          signal: controller.signal,
          onProgress: (done, total) => {
            const pct = total ? (100 * done) / total : 0;
            progress.report({ increment: pct - last, message: `${done} of ${total} papers` });
            last = pct;
          },
        });
      },
    );
    // The backend last: until it changes, the settings still name the embedded corpus as a whole.
    const config = vscode.workspace.getConfiguration('corpusLens');
    await config.update('corpus.url', to, vscode.ConfigurationTarget.Global);
    await config.update('corpus.schema', 'corpusLens', vscode.ConfigurationTarget.Global);
    await config.update('corpus.backend', 'postgres', vscode.ConfigurationTarget.Global);
    await corpus.drop();
    release();
    const line =
      `moved ${summary.papers.target} papers and ${summary.sentences.target} sentences to ${clean.host} ` +
      `(${summary.papers.skipped} were already there; counts and checksum verified); the embedded folder is kept`;
    log.info(line);
    void vscode.window.showInformationMessage(`Corpus Lens: ${line}. Lookups now use the server.`);
    for (const w of summary.warnings ?? []) {
      log.warn(w);
      void vscode.window.showWarningMessage(`Corpus Lens: ${w}`);
    }
  } catch (err) {
    release();
    log.warn(`moving the corpus failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`Corpus Lens: ${errorText(err)} (the settings still name the embedded corpus)`);
  }
}
