// The cite feature: a corpus hit cited into the paper (the panel's Cite, the hover's and the quick fix's links,
// an Ask source's Cite), its BibTeX from the corpus where the store keeps one.
import { errorText } from '../../core/redact.js';
import * as vscode from 'vscode';
import type { HitView } from '../../../webview/protocol.js';
import type { CommandTable } from '../command-table.js';
import type { CorpusService } from '../corpus/corpus.js';
import { CITE_HIT_COMMAND } from '../lookup/originality.js';
import type { ResultsPanel } from '../panel/panel.js';
import type { PaperEditors } from '../shared/paper-editors.js';
import { citeHit } from './cite.js';

interface CiteDeps {
  log: vscode.LogOutputChannel;
  corpus: CorpusService;
  panel: ResultsPanel;
  editors: PaperEditors;
}

export interface CiteFeature {
  commands: Pick<CommandTable, typeof CITE_HIT_COMMAND>;
  /** Cites `hit` into the document `uri` (at `position`, else the cursor's sentence), or into the paper being written. */
  cite(hit: HitView, uri?: string, position?: vscode.Position): Promise<void>;
}

export function register(_context: vscode.ExtensionContext, deps: CiteDeps): CiteFeature {
  const { log, corpus, panel, editors } = deps;
  const cite = async (hit: HitView, uri?: string, position?: vscode.Position) => {
    const editor = uri
      ? (vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri) ??
        (await vscode.window.showTextDocument(vscode.Uri.parse(uri))))
      : editors.current();
    if (!editor) return void vscode.window.showWarningMessage('Corpus Lens: open the paper to cite into first.');
    try {
      const { store } = await corpus.connection();
      const source = (await store.paperBibtex?.([hit.paper.id]).catch(() => []))?.[0]?.bibtex ?? null;
      const key = await citeHit(hit, { editor, position }, source);
      panel.notice(`Cited as ${key}`);
      log.info(`cited ${hit.paper.id} as ${key} in ${editor.document.uri.fsPath}`);
    } catch (err) {
      log.error(`cite failed: ${(err as Error).message}`);
      void vscode.window.showErrorMessage(`Corpus Lens: ${errorText(err)}`);
    }
  };
  const commands: CiteFeature['commands'] = {
    // From a hover link the position arrives as plain JSON ({line, character}).
    [CITE_HIT_COMMAND]: (hit: HitView, uri?: string, position?: { line: number; character: number }) =>
      cite(hit, uri, position ? new vscode.Position(position.line, position.character) : undefined),
  };
  return { commands, cite };
}
