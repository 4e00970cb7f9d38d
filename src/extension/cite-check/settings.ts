// The citation checker's settings (package.json `corpusLens.citations.*`).
import * as vscode from 'vscode';
import { DEFAULT_CITE_COMMANDS } from '../../core/cite-check/types.js';

/** The LaTeX commands read as citations: the setting's, without backslashes, else the default set. */
export function citeCommands(scope?: vscode.ConfigurationScope): string[] {
  const set = vscode.workspace.getConfiguration('corpusLens', scope).get<string[]>('citations.commands');
  const clean = (set ?? []).map((c) => String(c).replace(/^\\+/, '').trim()).filter((c) => /^[a-zA-Z]+$/.test(c));
  return clean.length ? clean : [...DEFAULT_CITE_COMMANDS];
}

/** Whether a sentence stating a finding with no citation is flagged when a corpus paper supports it closely. */
export function citationNeededEnabled(scope?: vscode.ConfigurationScope): boolean {
  return vscode.workspace.getConfiguration('corpusLens', scope).get<boolean>('citations.citationNeeded', false);
}

/** Whether citations are checked when a paper is saved. */
export function checkOnSave(scope?: vscode.ConfigurationScope): boolean {
  return vscode.workspace.getConfiguration('corpusLens', scope).get<boolean>('citations.checkOnSave', true);
}
