// The corpus feature: which corpus is in use (Connect, the way back after a failed switch, the panel's set-up
// menu and next actions), moving it to PostgreSQL, the API keys, and reopening it when its settings change.
import * as vscode from 'vscode';
import type { NextAction } from '../../../webview/protocol.js';
import type { CommandTable } from '../command-table.js';
import { openSampleCorpus } from '../add-papers/indexing.js';
import type { Lookups } from '../lookup/lookup.js';
import type { ResultsPanel } from '../panel/panel.js';
import { guarded } from '../shared/command-errors.js';
import { failureReporter } from '../shared/register.js';
import type { Secrets } from '../shared/secrets.js';
import { connect, setApiKey } from './connect.js';
import { connectFailure } from './failure.js';
import { NotConfiguredError, type CorpusService } from './corpus.js';
import { moveCorpusToPostgres } from './move-corpus.js';
import { choiceLabel, currentChoice, useChoice, type CorpusChoice } from './switching.js';

interface CorpusDeps {
  log: vscode.LogOutputChannel;
  secrets: Secrets;
  corpus: CorpusService;
  lookups: Lookups;
  panel: ResultsPanel;
  findSimilar(): Promise<void>;
}

export interface CorpusFeature {
  commands: Pick<CommandTable, 'corpusLens.connect' | 'corpusLens.moveToPostgres' | 'corpusLens.setApiKey'>;
  /** The panel's "set up a corpus" menu. */
  configure(): Promise<void>;
  /** Back to the corpus that last worked (after a failed switch), and look up the cursor's sentence there. */
  goBack(): Promise<void>;
  /** A next action a first-run or error state of the panel names. */
  runNextAction(action: NextAction): Promise<void>;
}

export function register(context: vscode.ExtensionContext, deps: CorpusDeps): CorpusFeature {
  const { log, secrets, corpus, lookups, panel, findSimilar } = deps;
  const reporter = failureReporter(log);

  const configure = async () => {
    const pick = await vscode.window.showQuickPick(
      [
        {
          label: '$(add) Add papers…',
          id: 'add',
          detail: 'Choose PDF, LaTeX, Markdown, arXiv HTML or .bib files to build the corpus from',
        },
        {
          label: '$(folder-library) Index papers in this workspace',
          id: 'workspace',
          detail: 'PDF, LaTeX, Markdown, arXiv HTML and .bib files, into the embedded corpus',
        },
        {
          label: '$(cloud-download) Add papers…',
          id: 'add',
          detail: "Your paper's bibliography, an arXiv / Semantic Scholar / OpenAlex search, or DOIs: open full text fetched",
        },
        { label: '$(book) Open the sample corpus', id: 'sample', detail: '30 short example papers that ship with Corpus Lens' },
        {
          label: '$(plug) Connect to a shared corpus…',
          id: 'connect',
          detail: 'PostgreSQL + pgvector, Supabase, or a CorpusStudio database',
        },
      ],
      { title: 'Corpus Lens: set up a corpus' },
    );
    if (pick?.id === 'add') await runNextAction('addPapers');
    else if (pick?.id === 'workspace')
      await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.workspace.workspaceFolders?.[0]?.uri);
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

  const runNextAction = async (action: NextAction) => {
    if (action === 'addPapers') await vscode.commands.executeCommand('corpusLens.addPapers');
    else if (action === 'openSample') await openSampleCorpus(context, corpus, log).then(() => findSimilar());
    else await vscode.commands.executeCommand('corpusLens.connect');
  };

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('corpusLens.corpus') || e.affectsConfiguration('corpusLens.embedding')) {
        void corpus.drop('settings changed');
        lookups.clear();
      } else if (e.affectsConfiguration('corpusLens.results')) lookups.clear();
    }),
  );

  const commands: CorpusFeature['commands'] = {
    'corpusLens.connect': async (choice?: CorpusChoice) => {
      const previous = corpus.history.fallback() ?? currentChoice();
      const switched = choice ? (await useChoice(choice), true) : await connect(secrets, corpus, context, log);
      if (!switched) return;
      await corpus.drop();
      await panel.reveal();
      try {
        await corpus.connection();
      } catch (err) {
        if (!(err instanceof NotConfiguredError)) {
          const back = `Go back to ${choiceLabel(previous, corpus.samplePath)}`;
          void vscode.window.showErrorMessage(`Corpus Lens: ${connectFailure(corpus.label(), err)}`, back, 'Show Log').then((pick) => {
            if (pick === back) void guarded('go back to the previous corpus', goBack, reporter)();
            else if (pick === 'Show Log') log.show();
          });
        }
      }
      await findSimilar();
    },
    'corpusLens.moveToPostgres': () => moveCorpusToPostgres(secrets, corpus, log),
    'corpusLens.setApiKey': () => setApiKey(secrets),
  };
  return { commands, configure, goBack, runNextAction };
}
