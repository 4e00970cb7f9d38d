// The Zotero feature's command, "Cite from Zotero…" (Add Papers' "From Zotero" entry runs addFromZotero, in zotero.ts).
import type * as vscode from 'vscode';
import type { CommandTable } from '../command-table.js';
import type { ResultsPanel } from '../panel/panel.js';
import type { PaperEditors } from '../shared/paper-editors.js';
import { citeFromZotero } from './zotero.js';

interface ZoteroDeps {
  log: vscode.LogOutputChannel;
  panel: ResultsPanel;
  editors: PaperEditors;
}

export function register(
  _context: vscode.ExtensionContext,
  deps: ZoteroDeps,
): { commands: Pick<CommandTable, 'corpusLens.citeFromZotero'> } {
  const { log, panel, editors } = deps;
  return {
    commands: {
      'corpusLens.citeFromZotero': async (options?: { query?: string }) => {
        const key = await citeFromZotero({ log, paperEditor: () => editors.current() }, options);
        if (key) panel.notice(`Cited as ${key}`);
        return key;
      },
    },
  };
}
