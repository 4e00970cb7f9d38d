// The add-papers feature: Add Papers… (every way of getting papers into the corpus), Index Folder… and Index This
// Paper; the folders indexed are remembered, so their files open from corpus data (source/open-source.ts).
import * as vscode from 'vscode';
import type { CommandTable } from '../command-table.js';
import type { CorpusService } from '../corpus/corpus.js';
import type { PaperEditors } from '../shared/paper-editors.js';
import type { Secrets } from '../shared/secrets.js';
import type { SourceOpener } from '../source/open-source.js';
import { addPapers } from './add-papers.js';
import type { AddPapersInput } from './types.js';
import { indexPaths } from './indexing.js';

interface AddPapersFeatureDeps {
  log: vscode.LogOutputChannel;
  secrets: Secrets;
  corpus: CorpusService;
  editors: PaperEditors;
  sources: SourceOpener;
}

export function register(
  context: vscode.ExtensionContext,
  deps: AddPapersFeatureDeps,
): { commands: Pick<CommandTable, 'corpusLens.addPapers' | 'corpusLens.indexFolder' | 'corpusLens.indexThisPaper'> } {
  const { log, secrets, corpus, editors, sources } = deps;
  const paperEditor = () => editors.current();
  return {
    commands: {
      'corpusLens.addPapers': (entryId?: string, input?: AddPapersInput) =>
        addPapers({ context, log, secrets, corpus, paperEditor }, entryId, input),
      'corpusLens.indexFolder': async (folder?: vscode.Uri) => {
        const chosen = folder
          ? [folder]
          : await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: true, canSelectMany: true, openLabel: 'Index' });
        if (chosen?.length) {
          await sources.rememberRoots(chosen.map((u) => u.fsPath));
          await indexPaths(
            chosen.map((u) => u.fsPath),
            { corpus, log, secrets },
          );
        }
      },
      'corpusLens.indexThisPaper': async () => {
        const editor = paperEditor();
        if (!editor) return void vscode.window.showInformationMessage('Corpus Lens: open the paper to index first.');
        if (editor.document.isDirty) await editor.document.save();
        await sources.rememberRoots([editor.document.uri.fsPath]);
        await indexPaths([editor.document.uri.fsPath], { corpus, log, secrets });
      },
    },
  };
}
