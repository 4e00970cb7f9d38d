// Which documents are papers, and their text models: one per document version, so the outline is built at
// most once per edit and every lookup in between reuses it.
import * as vscode from 'vscode';
import type { TextModel, Format } from '../../core/text/index.js';
import { heavy } from '../load.js';

const FORMAT_BY_LANGUAGE: Record<string, Format> = {
  latex: 'latex',
  tex: 'latex',
  markdown: 'markdown',
  quarto: 'markdown',
  rmd: 'markdown',
  rmarkdown: 'markdown',
};

/** The languages Corpus Lens's hovers and quick fixes serve. */
export const PAPER_SELECTOR: vscode.DocumentSelector = ['latex', 'markdown', 'quarto', 'rmd'].map((language) => ({ language }));

export function formatOf(doc: vscode.TextDocument): Format | undefined {
  return FORMAT_BY_LANGUAGE[doc.languageId];
}

/**
 * Corpus papers' own files, opened by Open source to read (until closed): not the author's paper, so their cursor
 * neither replaces the panel's results nor becomes where Cite writes.
 */
const references = new Set<string>();

export function openedAsReference(doc: vscode.TextDocument): void {
  references.add(doc.uri.toString());
}

export function closedDocument(doc: vscode.TextDocument): void {
  references.delete(doc.uri.toString());
}

export function isPaperDocument(doc: vscode.TextDocument): boolean {
  return formatOf(doc) !== undefined && doc.uri.scheme !== 'output' && !references.has(doc.uri.toString());
}

const models = new WeakMap<vscode.TextDocument, { version: number; model: TextModel }>();

export function documentModel(doc: vscode.TextDocument): TextModel {
  const cached = models.get(doc);
  if (cached && cached.version === doc.version) return cached.model;
  // The text code (its tables of LaTeX commands, abbreviations, character classes) loads with the heavy part.
  const model = new (heavy().TextModel)(doc.getText(), formatOf(doc) ?? 'text');
  models.set(doc, { version: doc.version, model });
  return model;
}

/** The editor range of a sentence. */
export function sentenceRange(doc: vscode.TextDocument, s: { start: number; end: number }): vscode.Range {
  return new vscode.Range(doc.positionAt(s.start), doc.positionAt(s.end));
}
