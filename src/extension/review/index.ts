// The review feature: Generate Related Work (and insert it, append its BibTeX, show the last one again), and the
// hover over a generated citation that shows the verified quotes behind it.
import * as vscode from 'vscode';
import type { CommandTable } from '../command-table.js';
import type { PaperEditors } from '../shared/paper-editors.js';
import { ProvenanceHover } from './provenance-hover.js';
import type { RelatedWork } from './review.js';

interface ReviewDeps {
  relatedWork: RelatedWork;
  editors: PaperEditors;
}

type ReviewCommands = Pick<
  CommandTable,
  | 'corpusLens.generateRelatedWork'
  | 'corpusLens.insertRelatedWork'
  | 'corpusLens.appendRelatedWorkBibtex'
  | 'corpusLens.showLastRelatedWork'
>;

export function register(deps: ReviewDeps): { commands: ReviewCommands; hover: vscode.HoverProvider } {
  const { relatedWork, editors } = deps;
  return {
    hover: new ProvenanceHover(),
    commands: {
      'corpusLens.generateRelatedWork': async (options?: { topic?: string }) => {
        const editor = editors.current();
        if (!editor) return void vscode.window.showInformationMessage('Corpus Lens: open the paper to write related work for first.');
        await relatedWork.generate(editor, options?.topic);
      },
      'corpusLens.insertRelatedWork': () => relatedWork.insert(),
      'corpusLens.appendRelatedWorkBibtex': () => relatedWork.appendBibtex(),
      'corpusLens.showLastRelatedWork': () => relatedWork.showLast(),
    },
  };
}
