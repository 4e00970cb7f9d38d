// Corpus Lens: Describe Figures and Tables — `corpus-lens elements --enrich` in VS Code: the configured chat model
// writes a searchable description of every figure, table and equation of the open corpus that has none, from its
// caption, content and the text of its page (src/core/ingest/enrich.ts), in a cancellable progress notification.
// Without an LLM it says so and offers Open Settings (at corpusLens.llm); nothing is changed.
import * as vscode from 'vscode';
import type { CommandTable } from '../command-table.js';
import type { CorpusService } from '../corpus/corpus.js';
import { NotConfiguredError } from '../corpus/corpus.js';
import { heavy } from '../load.js';
import { configuredChat } from '../shared/chat.js';
import type { Secrets } from '../shared/secrets.js';
import type { ChatModel } from '../../core/llm/chat.js';

export const DESCRIBE_ELEMENTS_COMMAND = 'corpusLens.describeElements';
const OPEN_SETTINGS = 'Open Settings';

interface ElementsDeps {
  log: vscode.LogOutputChannel;
  corpus: CorpusService;
  secrets: Secrets;
}

export function register(deps: ElementsDeps): { commands: Pick<CommandTable, typeof DESCRIBE_ELEMENTS_COMMAND> } {
  const { log, corpus, secrets } = deps;
  const run = async () => {
    try {
      corpus.target();
    } catch (err) {
      if (err instanceof NotConfiguredError) return void vscode.window.showInformationMessage(`Corpus Lens: ${err.message}`);
      throw err;
    }
    let chat: ChatModel | null;
    let why = 'no LLM is configured (corpusLens.llm.baseUrl is empty)';
    try {
      chat = await configuredChat(secrets);
    } catch (err) {
      // corpusLens.llm.provider "vscode" with no language model offered.
      chat = null;
      why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    }
    if (!chat) {
      log.warn(`describe figures and tables: ${why}`);
      const pick = await vscode.window.showWarningMessage(
        `Corpus Lens: describing figures and tables needs a chat model, and ${why}. Set corpusLens.llm.baseUrl (an OpenAI-compatible endpoint) or corpusLens.llm.provider "vscode".`,
        OPEN_SETTINGS,
      );
      if (pick === OPEN_SETTINGS) await vscode.commands.executeCommand('workbench.action.openSettings', 'corpusLens.llm');
      return;
    }
    const summary = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Corpus Lens: describing figures and tables', cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        const { store, embedder } = await corpus.connection();
        if (!store.listElements || !store.describeElements) return null;
        let last = 0;
        try {
          return await heavy().enrichElements(store, embedder, chat, {
            signal: controller.signal,
            onProgress: (done, total) => {
              progress.report({ message: `${done} of ${total}`, increment: total ? ((done - last) * 100) / total : 0 });
              last = done;
            },
          });
        } catch (err) {
          if (heavy().isAbortError(err)) return 'cancelled' as const;
          throw err;
        }
      },
    );
    if (summary === null)
      return void vscode.window.showInformationMessage(
        'Corpus Lens: this corpus keeps no figures, tables or equations that can be described.',
      );
    if (summary === 'cancelled')
      return void vscode.window.showInformationMessage('Corpus Lens: stopped; the descriptions written so far are kept.');
    const line = `${summary.enriched} of ${summary.elements} figures, tables and equations described; ${summary.skipped} already had a description; ${summary.failed.length} failed`;
    log.info(`describe figures and tables: ${line}${summary.stopped ? `; stopped: ${summary.stopped}` : ''}`);
    for (const f of summary.failed) log.warn(`  ${f.label ?? '(unnumbered)'} [${f.paperId}]: ${f.reason}`);
    if (summary.stopped) void vscode.window.showErrorMessage(`Corpus Lens: ${line}. The model could not be used: ${summary.stopped}`);
    else void vscode.window.showInformationMessage(`Corpus Lens: ${line}.`);
  };
  return { commands: { [DESCRIBE_ELEMENTS_COMMAND]: run } };
}
