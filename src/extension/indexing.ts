// "Index Folder…", "Index This Paper" and the sample corpus: the ingest pipeline with a cancellable
// progress notification. One bad file never stops the run; failures are listed at the end.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CorpusService } from './corpus.js';
import { heavy } from './load.js';
import { readSettings } from './settings.js';

export async function indexPaths(paths: string[], corpus: CorpusService, log: vscode.LogOutputChannel, target?: string): Promise<void> {
  const settings = readSettings();
  if (settings.corpus.schema === 'corpusStudio') {
    void vscode.window.showWarningMessage('Corpus Lens: a CorpusStudio database is read only; connect to a Corpus Lens corpus to index papers.');
    return;
  }
  // Before the first await: from here on, a lookup does not open the corpus this run writes to.
  const release = corpus.writingTo(target ?? (settings.corpus.backend === 'embedded' ? corpus.embeddedPath(settings) : settings.corpus.url));
  const summary = await Promise.resolve(vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Corpus Lens: indexing', cancellable: true },
    async (progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      const { ingest } = heavy();
      await corpus.drop(); // the embedded corpus has one writer: close the lookup connection first
      // The configured corpus and embedder (an OpenAI-built corpus refuses offline vectors); embedded: in its own process.
      const { store, embedder } = await corpus.openForIndexing(target);
      try {
        let reported = 0;
        return await ingest(store, paths, {
          embedder,
          signal: controller.signal,
          onProgress: (p) => {
            const pct = p.filesTotal ? (100 * p.filesDone) / p.filesTotal : 0;
            progress.report({ increment: pct - reported, message: `${p.filesDone}/${p.filesTotal} files · ${Math.round(p.sentencesPerSecond)} sentences/s${p.etaSeconds != null ? ` · ${Math.ceil(p.etaSeconds)} s left` : ''}` });
            reported = pct;
          },
        });
      } finally {
        await store.close();
      }
    },
  )).finally(release);
  log.info(`indexed ${paths.join(', ')}: ${JSON.stringify(summary)}`);
  for (const f of summary.failed) log.warn(`could not index ${f.file}: ${f.reason}`);
  const failed = summary.failed.length ? `, ${summary.failed.length} failed (see the log)` : '';
  const action = summary.failed.length ? await vscode.window.showInformationMessage(`Corpus Lens: ${summary.papers} papers, ${summary.sentences} sentences added, ${summary.skipped} unchanged${failed}.`, 'Show Log') : undefined;
  if (!summary.failed.length) void vscode.window.showInformationMessage(`Corpus Lens: ${summary.papers} papers, ${summary.sentences} sentences added, ${summary.skipped} unchanged.`);
  if (action === 'Show Log') log.show();
}

/** Builds the sample corpus that ships with the extension (once) and makes it the embedded corpus. */
export async function openSampleCorpus(context: vscode.ExtensionContext, corpus: CorpusService, log: vscode.LogOutputChannel): Promise<void> {
  const dir = path.join(context.globalStorageUri.fsPath, 'sample-corpus');
  const source = vscode.Uri.joinPath(context.extensionUri, 'samples', 'corpus').fsPath;
  await indexPaths([source], corpus, log, dir);
  const config = vscode.workspace.getConfiguration('corpusLens');
  await config.update('corpus.backend', 'embedded', vscode.ConfigurationTarget.Global);
  await config.update('corpus.path', dir, vscode.ConfigurationTarget.Global);
  await corpus.drop();
}
