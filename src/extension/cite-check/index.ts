// The citation checker in the editor: completion of citation keys, diagnostics with quick fixes, the hover over a
// cited key, and "Check Citations in This Paper". One `register` wires it all; the rest of the extension gives it
// the corpus, the log and the panel.
import * as vscode from 'vscode';
import type { Evidence } from '../../core/cite-check/types.js';
import type { PaperRef } from '../../core/store/types.js';
import type { CommandTable } from '../command-table.js';
import type { CorpusService } from '../corpus/corpus.js';
import { isPaperDocument } from '../shared/documents.js';
import type { PaperEditors } from '../shared/paper-editors.js';
import { toHitView } from '../panel/hit-view.js';
import type { ResultsPanel } from '../panel/panel.js';
import { ADD_TO_CORPUS_COMMAND, CitationFixes, SAVE_BIB_COMMAND, SHOW_CLOSEST_COMMAND } from './actions.js';
import { ADD_ENTRY_COMMAND, CitationCompletion, addEntry, type NewEntry } from './completion.js';
import { CitationChecker, clip, paperName, where } from './diagnostics.js';
import { ADD_LOCATOR_COMMAND, CitationHover, addLocator } from './hover.js';
import { checkOnSave } from './settings.js';
import { CiteSources } from './sources.js';
import { heavy } from '../load.js';

const CHECK_CITATIONS_COMMAND = 'corpusLens.checkCitations';

interface CiteCheckDeps {
  log: vscode.LogOutputChannel;
  corpus: CorpusService;
  panel: ResultsPanel;
  editors: PaperEditors;
}

type CiteCheckCommands =
  | typeof CHECK_CITATIONS_COMMAND
  | typeof ADD_ENTRY_COMMAND
  | typeof ADD_LOCATOR_COMMAND
  | typeof SAVE_BIB_COMMAND
  | typeof SHOW_CLOSEST_COMMAND
  | typeof ADD_TO_CORPUS_COMMAND;

/** The commands, and the providers the activation shell registered for the checker. */
interface CiteCheckFeature {
  commands: Pick<CommandTable, CiteCheckCommands>;
  completion: vscode.CompletionItemProvider;
  fixes: vscode.CodeActionProvider;
  hover: vscode.HoverProvider;
  /** A paper was saved: its citations are checked if corpusLens.citeCheck.onSave says so. */
  onSave(doc: vscode.TextDocument): void;
}

export function register(context: vscode.ExtensionContext, deps: CiteCheckDeps): CiteCheckFeature {
  const { log, corpus, panel, editors } = deps;
  const sources = new CiteSources(corpus, log);
  const checker = new CitationChecker(sources, log);
  context.subscriptions.push(checker);
  const onSave = (doc: vscode.TextDocument) => {
    if (!isPaperDocument(doc) || !checkOnSave(doc.uri)) return;
    checker.checkDocument(doc).catch((err: Error) => log.warn(`check citations on save: ${err.message}`));
  };

  const checkCitations = async () => {
    const editor = editors.current();
    if (!editor) return void vscode.window.showInformationMessage('Corpus Lens: open a LaTeX or Markdown paper to check its citations.');
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Corpus Lens: checking citations' },
      (progress) => checker.checkProject(editor.document, (file) => progress.report({ message: file })),
    );
    const files = result.files.length === 1 ? '' : ` in ${result.files.length} files`;
    void vscode.window.showInformationMessage(
      `Corpus Lens: ${result.problems ? `${result.problems} citation problem${result.problems === 1 ? '' : 's'}${files} (see Problems)` : `every citation checked${files} is supported or noted`}.`,
    );
    // Focus, not workbench.actions.view.problems: that one toggles, so a second check would close the view.
    if (result.problems) await vscode.commands.executeCommand('workbench.panel.markers.view.focus');
    return result;
  };
  const showClosest = async (shown: { sentence: string; paper: PaperRef | null; evidence: Evidence[] }) => {
    const ids = shown.evidence.map((e) => e.sentenceId).filter((id): id is number => id !== null);
    const { store } = await corpus.connection();
    const hits = ids.length ? await store.context(ids, 0) : [];
    const byId = new Map(hits.map((h) => [h.sentence.id, h]));
    const views = shown.evidence.flatMap((e) => {
      const hit = e.sentenceId !== null ? byId.get(e.sentenceId) : undefined;
      return hit
        ? [
            {
              ...toHitView(hit),
              similarity: e.score,
              location:
                where(e)
                  .trim()
                  .replace(/^\(|\)$/g, '') || null,
            },
          ]
        : [];
    });
    await panel.reveal();
    panel.showHits({ clean: shown.sentence, section: null }, views, `Where ${clip(paperName(shown.paper), 80)} comes closest`);
  };
  const addToCorpus = async (key: string, bibFiles: string[]) => {
    let text = '';
    for (const f of bibFiles) text += `${Buffer.from(await vscode.workspace.fs.readFile(vscode.Uri.file(f))).toString('utf8')}\n\n`;
    const record = (await heavy().BibIndex.read(text)).records.find((r) => r.key === key);
    const id = record?.doi ?? record?.arxivId;
    if (id) return vscode.commands.executeCommand('corpusLens.addPapers', 'ids', { ids: id });
    void vscode.window.showInformationMessage(
      `Corpus Lens: "${key}" has no DOI or arXiv id in the .bib to fetch it by: add its PDF or source with Add Papers… (From a folder, From Zotero).`,
    );
    return vscode.commands.executeCommand('corpusLens.addPapers');
  };
  return {
    completion: new CitationCompletion(sources, log),
    fixes: new CitationFixes(checker, sources, corpus),
    hover: new CitationHover(checker, sources),
    onSave,
    commands: {
      [CHECK_CITATIONS_COMMAND]: checkCitations,
      [ADD_ENTRY_COMMAND]: (plan: NewEntry) => addEntry(plan, log),
      [ADD_LOCATOR_COMMAND]: addLocator,
      [SHOW_CLOSEST_COMMAND]: showClosest,
      [ADD_TO_CORPUS_COMMAND]: addToCorpus,
      [SAVE_BIB_COMMAND]: async (uri: string) => {
        const bib = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
        if (bib?.isDirty) await bib.save();
      },
    },
  };
}
