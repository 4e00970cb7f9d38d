// The panel feature: the side panel's view, Open Panel, and what its buttons do (each a call into the feature that
// owns it; none awaited by the panel, so every failure is reported here, never an unhandled rejection).
import * as vscode from 'vscode';
import type { AskCorpus } from '../ask/ask.js';
import type { AskFeature } from '../ask/index.js';
import type { CiteFeature } from '../cite/index.js';
import type { CommandTable } from '../command-table.js';
import type { CorpusFeature } from '../corpus/index.js';
import type { LookupFeature } from '../lookup/index.js';
import type { Lookups } from '../lookup/lookup.js';
import { guarded } from '../shared/command-errors.js';
import { failureReporter } from '../shared/register.js';
import type { SourceOpener } from '../source/open-source.js';
import type { ResultsPanel } from './panel.js';
import { loadFilters, normaliseFilters, saveFilters } from './filters.js';
import type { FiltersView } from '../../../webview/protocol.js';

interface PanelDeps {
  log: vscode.LogOutputChannel;
  panel: ResultsPanel;
  lookups: Lookups;
  ask: AskCorpus;
  sources: SourceOpener;
  lookup: Pick<LookupFeature, 'findSimilar'>;
  cite: Pick<CiteFeature, 'cite'>;
  corpus: Pick<CorpusFeature, 'configure' | 'goBack' | 'runNextAction'>;
  asking: Pick<AskFeature, 'sourceHit' | 'insertAnswer' | 'openElement' | 'openCited' | 'view' | 'crop' | 'cropDone'>;
}

export function register(context: vscode.ExtensionContext, deps: PanelDeps): { commands: Pick<CommandTable, 'corpusLens.openPanel'> } {
  const { log, panel, lookups, ask, sources, lookup, cite, corpus, asking } = deps;
  const reporter = failureReporter(log);
  const safeFindSimilar = guarded('find similar sentences', lookup.findSimilar, reporter);
  const safeOpenSource = guarded('open source', sources.openSource, reporter);
  lookups.filters = loadFilters(context.workspaceState);
  // After a change of filters or search text: the search box's text again, else the cursor's sentence.
  const lookUpAgain = async () => {
    panel.showFilters();
    if (lookups.searchText !== undefined) await lookups.search(lookups.searchText);
    else await safeFindSimilar();
  };
  panel.bind({
    cite: (hit) => cite.cite(hit),
    openSource: async (hit) => void (await safeOpenSource(hit)),
    setOffset: (offset) => {
      lookups.shift = offset;
      void safeFindSimilar();
    },
    configure: () => void guarded('set up a corpus', corpus.configure, reporter)(),
    retry: () => void safeFindSimilar(),
    showLog: () => log.show(),
    recover: () => void guarded('go back to the previous corpus', corpus.goBack, reporter)(),
    run: (action) => void guarded(`panel action ${action}`, corpus.runNextAction, reporter)(action),
    askView: () => asking.view(),
    ask: (question) => void guarded('ask the corpus', (q: string) => ask.ask(q), reporter)(question),
    askCancel: () => ask.cancel(),
    askClear: () => void guarded('clear the Ask conversation', () => ask.clear(), reporter)(),
    askInsert: (turn) => void guarded('insert the answer', asking.insertAnswer, reporter)(turn),
    askCite: (n) => void guarded('cite an Ask source', async (m: number) => cite.cite(await asking.sourceHit(m)), reporter)(n),
    askOpenSource: (n) =>
      void guarded('open an Ask source', async (m: number) => sources.openSource(await asking.sourceHit(m)), reporter)(n),
    askOpenCited: (n, cite) => void guarded('open a cited paper', asking.openCited, reporter)(n, cite),
    askOpenElement: (turn, element) => void guarded('open a figure, table or equation', asking.openElement, reporter)(turn, element),
    askCrop: (key) => asking.crop(key),
    askCropDone: (key, png, message) => void guarded("keep a figure's image", asking.cropDone, reporter)(key, png, message),
    search: (text) =>
      void guarded(
        'search the corpus',
        async (t: string) => {
          await lookups.search(t);
          panel.showFilters();
          if (lookups.searchText === undefined) await safeFindSimilar();
        },
        reporter,
      )(text),
    setFilters: (filters) =>
      void guarded(
        'filter the results',
        async (f: FiltersView) => {
          lookups.filters = normaliseFilters(f);
          await saveFilters(context.workspaceState, lookups.filters);
          await lookUpAgain();
        },
        reporter,
      )(filters),
    filters: () => ({ filters: lookups.filters, search: lookups.searchText ?? '' }),
  });
  return { commands: { 'corpusLens.openPanel': () => panel.reveal() } };
}
