// "Index Folder…", "Index This Paper" and the sample corpus: the ingest pipeline with a cancellable
// progress notification. One bad file never stops the run; the end reports papers, sentences, failed files and
// warnings (core/ingest/report.ts), the problems grouped in the log with their file. With an LLM configured (the
// corpusLens.llm settings Ask uses), a PDF without a title, no .bib match and no Zotero entry gets title, authors and
// year proposed by the model from its first page, stored as proposed (core/ingest/propose-metadata.ts).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { IngestOptions, IngestSummary } from '../../core/ingest/pipeline.js';
import type { ChatModel } from '../../core/llm/chat.js';
import type { CorpusStore } from '../../core/store/types.js';
import type { CorpusService } from '../corpus/corpus.js';
import { heavy } from '../load.js';
import { configuredChat } from '../shared/chat.js';
import type { Secrets } from '../shared/secrets.js';
import { readSettings } from '../shared/settings.js';
import { errorText } from '../../core/redact.js';
import { corpusCapacityWarning, type LoadEstimate } from '../../core/store/ops/capacity.js';

const MOVE_TO_POSTGRES = 'Move Corpus to PostgreSQL…';

/** What an indexing run uses of the extension's services. */
export interface IndexingDeps {
  corpus: CorpusService;
  log: vscode.LogOutputChannel;
  /** Where the LLM's key is kept: with it, the configured chat model proposes metadata for a PDF that has none; without (the sample corpus), none is asked. */
  secrets?: Secrets;
}

/** Indexes `paths`; false when the run failed or was stopped (reported and logged here). */
export function indexPaths(paths: string[], deps: IndexingDeps, target?: string): Promise<boolean> {
  return indexWith(
    {
      what: paths.join(', '),
      unit: 'files',
      sources: async () => (await heavy().collectFiles(paths)).length,
      run: (store, options) => heavy().ingest(store, paths, options),
    },
    deps,
    target,
  );
}

/**
 * The configured chat model, made when a PDF without metadata first needs it (a run of titled papers never selects
 * a VS Code language model nor opens an endpoint); null when no LLM is configured. A model that cannot be had (the
 * "vscode" provider with none offered) is logged once and the papers keep what the offline reader found.
 */
function proposingChat(secrets: Secrets, log: vscode.LogOutputChannel): ChatModel | null {
  const { llm } = readSettings();
  if (llm.provider !== 'vscode' && !llm.baseUrl) return null;
  let made: Promise<ChatModel | null> | undefined;
  let model = llm.model;
  return {
    get model() {
      return model;
    },
    async complete(request) {
      made ??= configuredChat(secrets).catch((err: unknown) => {
        log.warn(`metadata for papers without any is not proposed: ${errorText(err)}`);
        return null;
      });
      const chat = await made;
      if (!chat) throw new Error('no chat model');
      model = chat.model;
      return chat.complete(request);
    },
  };
}

/** What to index: `run` writes into the store it is given (the pipeline's ingest, or ingestUnits for a Zotero library). */
export interface IndexingRun {
  /** For the log: the paths, or 'Zotero library …'. */
  what: string;
  /** What the progress counts: 'files', 'items'. */
  unit: string;
  /**
   * The run's size for the embedded corpus's size check: how many files it will read (each counted at the corpus's
   * mean), or an estimate from the sources themselves (a library's items: estimateLoad).
   */
  sources?(): Promise<number | LoadEstimate>;
  run(store: CorpusStore, options: IngestOptions): Promise<IngestSummary>;
}

/** Runs an indexing job into the configured corpus with a cancellable progress notification and the end report. */
export async function indexWith(job: IndexingRun, deps: IndexingDeps, target?: string): Promise<boolean> {
  const { corpus, log } = deps;
  const settings = readSettings();
  if (settings.corpus.schema === 'corpusStudio') {
    void vscode.window.showWarningMessage(
      'Corpus Lens: a CorpusStudio database is read only; connect to a Corpus Lens corpus to index papers.',
    );
    return false;
  }
  const embedded = target !== undefined || settings.corpus.backend === 'embedded';
  let moveInstead = false;
  // Before the first await: from here on, a lookup does not open the corpus this run writes to.
  const release = corpus.writingTo(
    target ?? (settings.corpus.backend === 'embedded' ? corpus.embeddedPath(settings) : settings.corpus.url),
  );
  const run = Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Corpus Lens: indexing', cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        await corpus.drop(); // the embedded corpus has one writer: close the lookup connection first
        // The configured corpus and embedder (an OpenAI-built corpus refuses offline vectors); embedded: in its own process.
        const { store, embedder } = await corpus.openForIndexing(target);
        try {
          // An embedded corpus has a measured size limit (core/store/ops/capacity.ts): before a load that would pass its
          // safe share, offer the move to PostgreSQL instead.
          if (embedded && job.sources) {
            progress.report({ message: 'estimating the size of the load…' });
            const warning = await corpusCapacityWarning(store, await job.sources(), process.env);
            if (warning) {
              log.warn(`corpus size: ${warning.message}`);
              const pick = await vscode.window.showWarningMessage(
                `Corpus Lens: ${warning.message}.`,
                { modal: true },
                MOVE_TO_POSTGRES,
                'Index Anyway',
              );
              if (pick !== 'Index Anyway') {
                moveInstead = pick === MOVE_TO_POSTGRES;
                return null;
              }
            }
          }
          let reported = 0;
          return await job.run(store, {
            embedder,
            // Without secrets (the sample corpus, whose papers have their metadata) no model is asked.
            chat: deps.secrets ? proposingChat(deps.secrets, log) : null,
            signal: controller.signal,
            onProgress: (p) => {
              const pct = p.filesTotal ? (100 * p.filesDone) / p.filesTotal : 0;
              progress.report({
                increment: pct - reported,
                message: `${p.filesDone}/${p.filesTotal} ${job.unit} · ${Math.round(p.sentencesPerSecond)} sentences/s${p.etaSeconds != null ? ` · ${Math.ceil(p.etaSeconds)} s left` : ''}`,
              });
              reported = pct;
            },
          });
        } finally {
          await store.close();
        }
      },
    ),
  ).finally(release);
  let summary: Awaited<typeof run>;
  try {
    summary = await run;
  } catch (err) {
    const message = heavy().isAbortError(err) ? 'indexing stopped' : `indexing failed: ${errorText(err)}`;
    log.error(`${message} (${job.what})`);
    void vscode.window.showErrorMessage(`Corpus Lens: ${message}.`);
    return false;
  }
  if (!summary) {
    log.info(`indexing not started (${job.what}): the embedded corpus is near its size limit`);
    if (moveInstead) await vscode.commands.executeCommand('corpusLens.moveToPostgres');
    return false;
  }
  const { indexingSummaryLine, problemLines } = heavy();
  const line = indexingSummaryLine(summary);
  log.info(`indexed ${job.what}: ${line}`);
  for (const l of problemLines(summary)) {
    if (l.startsWith('failed')) log.error(l);
    else log.warn(l);
  }
  const problems = summary.failed.length || summary.warnings.length;
  const message = `Corpus Lens: ${line}.`;
  if (!problems) {
    void vscode.window.showInformationMessage(message);
    return true;
  }
  const text = `${message} Details are in the log.`;
  const shown = summary.failed.length
    ? vscode.window.showWarningMessage(text, 'Show Log')
    : vscode.window.showInformationMessage(text, 'Show Log');
  // Not awaited: the run is over whether or not the user answers the notification.
  void Promise.resolve(shown).then((pick) => pick === 'Show Log' && log.show());
  return true;
}

/** Builds the sample corpus that ships with the extension (once) and makes it the embedded corpus. */
export async function openSampleCorpus(
  context: vscode.ExtensionContext,
  corpus: CorpusService,
  log: vscode.LogOutputChannel,
): Promise<void> {
  const dir = path.join(context.globalStorageUri.fsPath, 'sample-corpus');
  const source = vscode.Uri.joinPath(context.extensionUri, 'samples', 'corpus').fsPath;
  if (!(await indexPaths([source], { corpus, log }, dir))) return;
  const config = vscode.workspace.getConfiguration('corpusLens');
  await config.update('corpus.backend', 'embedded', vscode.ConfigurationTarget.Global);
  await config.update('corpus.path', dir, vscode.ConfigurationTarget.Global);
  await corpus.drop();
}
