// Corpus Lens: Corpus Health — the `corpus-lens stats` report of the open corpus, as a read-only Markdown document
// shown in VS Code's Markdown preview. A preview rather than a webview of our own: the report is a document (read,
// searched, copied from, kept open beside the paper), VS Code renders and sanitises Markdown itself, and each fix is
// a command line in a code block to copy; "Copy Fix Commands" puts them all on the clipboard.
import * as vscode from 'vscode';
import { HEALTH_SCHEME, type CommandTable } from '../command-table.js';
import type { CorpusService } from '../corpus/corpus.js';
import { NotConfiguredError } from '../corpus/corpus.js';
import { heavy } from '../load.js';
import { redactSecrets } from '../../core/redact.js';

export const CORPUS_HEALTH_COMMAND = 'corpusLens.corpusHealth';
/** The report's document. Every address of the scheme serves the latest report; each run shows it under a new query. */
const HEALTH_URI = vscode.Uri.from({ scheme: HEALTH_SCHEME, path: '/Corpus Health.md' });

interface HealthDeps {
  log: vscode.LogOutputChannel;
  corpus: CorpusService;
}

/** The report's document content; the activation shell registers it (extension.ts) and forwards its changes. */
export type HealthProvider = vscode.TextDocumentContentProvider & { onDidChange: vscode.Event<vscode.Uri> };

export function register(
  context: vscode.ExtensionContext,
  deps: HealthDeps,
): { commands: Pick<CommandTable, typeof CORPUS_HEALTH_COMMAND>; provider: HealthProvider } {
  const { log, corpus } = deps;
  // A report VS Code restored from an earlier window: its text is not kept, so the document says how to get it again.
  let text = '# Corpus health\n\nNot run in this window yet: run **Corpus Lens: Corpus Health** to check the open corpus.\n';
  const changed = new vscode.EventEmitter<vscode.Uri>();
  let runs = 0;
  const provider: HealthProvider = { onDidChange: changed.event, provideTextDocumentContent: () => text };
  context.subscriptions.push(changed);

  const run = async () => {
    let target: string;
    try {
      target = corpus.target();
    } catch (err) {
      if (err instanceof NotConfiguredError) return void vscode.window.showInformationMessage(`Corpus Lens: ${err.message}`);
      throw err;
    }
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Corpus Lens: checking the corpus…' },
      async () => {
        const { store } = await corpus.connection();
        return heavy().healthReport(store, { db: redactSecrets(target) });
      },
    );
    text = heavy().healthMarkdown(report);
    changed.fire(HEALTH_URI);
    // Shown under an address no earlier run used. VS Code drops a virtual document no editor holds; read again, it is
    // version 1, as the earlier report was. The Markdown preview re-renders an address only on a new version, and its
    // engine caches the parsed Markdown by address and version (TokenCache in markdown-language-features), so even a
    // forced `markdown.preview.refresh` rendered the earlier report's cached text when anything had parsed it since
    // (CI of stops 42 and 43: the sample corpus's report stayed after switching corpus). A new address starts over.
    runs += 1;
    await vscode.commands.executeCommand('markdown.showPreview', HEALTH_URI.with({ query: `run=${Date.now()}-${runs}` }));
    const commands = [
      ...report.duplicates.map((d) => d.fix),
      ...[report.anonymousKeys, report.stubs, report.missingTitle, report.missingAuthors, report.missingYear].flat().map((f) => f.fix),
      ...report.missingInputs.map((m) => m.fix),
    ]
      .map((f) => f.command)
      .filter((c): c is string => !!c);
    const unique = [...new Set(commands)];
    log.info(`corpus health: ${report.papers} papers, ${report.sentences} sentences, ${unique.length} fix commands`);
    if (!unique.length) return;
    const copy = 'Copy Fix Commands';
    // Not awaited: the command ends with the report shown, whatever becomes of the notification.
    void vscode.window
      .showInformationMessage(
        `Corpus Lens: ${unique.length} fix command${unique.length === 1 ? '' : 's'} for this corpus (run them in a terminal with the corpus-lens CLI).`,
        copy,
      )
      .then((pick) => (pick === copy ? vscode.env.clipboard.writeText(unique.join('\n') + '\n') : undefined));
  };
  return { commands: { [CORPUS_HEALTH_COMMAND]: run }, provider };
}
