// Cite: the citation goes in at the end of the sentence under the cursor (core/bib/place.ts: before the full
// stop, merged into a citation already there) as one undoable edit, and the paper's BibTeX entry is added to
// the project's .bib unless the .bib has the paper already (BibIndex.find: DOI, arXiv id, title or own key; then
// its key is used).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { heavy } from '../load.js';
import type { HitView } from '../../../webview/protocol.js';
import type { CitablePaper } from '../../core/bib/format.js';
import { formatOf } from '../shared/documents.js';
import { readSettings } from '../shared/settings.js';
import { projectBibFiles } from './project-bib.js';

export interface CiteTarget {
  editor: vscode.TextEditor;
  /** The cursor whose sentence is cited (default: the editor's cursor). */
  position?: vscode.Position;
}

/**
 * Inserts the citation and adds the entry; returns the key used. `bibtex`: the paper's source entry from the corpus
 * (its type and venue field are kept: `@inproceedings` with `booktitle` stays so).
 */
export function citeHit(hit: HitView, target: CiteTarget, bibtex?: string | null): Promise<string> {
  return citePaper({ ...hit.paper, authors: hit.paper.authors, bibtex }, target);
}

/**
 * Cites any paper (a corpus hit, a Zotero item): the key of an entry already in the .bib for it, else `own` (the
 * paper's own key and entry, e.g. Zotero's), else a new key; returns the key used.
 */
export async function citePaper(paper: CitablePaper, target: CiteTarget, own?: { key: string; entry: string }): Promise<string> {
  const { editor } = target;
  const doc = editor.document;
  const format = formatOf(doc) === 'markdown' ? 'markdown' : 'latex';
  const settings = readSettings(doc.uri);
  const bibUri = await resolveBibFile(doc, format, settings.citation.bibFile);
  const bibDoc = await openIfExists(bibUri);
  const { planCitation, placeCitation } = heavy();
  const plan = await planCitation(bibDoc?.getText() ?? '', paper, own);

  const cursor = target.position ?? editor.selection.active;
  const text = doc.getText();
  const edit = placeCitation(text, format, Math.min(doc.offsetAt(cursor), text.length), plan.key, { command: settings.citation.command });
  if (edit.text) {
    const at = doc.positionAt(edit.offset);
    const inserted = await editor.edit((b) => b.insert(at, edit.text));
    if (!inserted) throw new Error(`could not insert the citation into ${path.basename(doc.fileName)}`);
  }
  if (plan.entry) await appendEntry(bibUri, bibDoc, plan.entry);
  return plan.key;
}

/** The .bib a new entry goes into: the project's (project-bib.ts), as the citation checker reads it. */
export async function resolveBibFile(doc: vscode.TextDocument, format: 'latex' | 'markdown', setting: string): Promise<vscode.Uri> {
  return (await projectBibFiles(doc, format, setting)).target;
}

export async function openIfExists(uri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    return undefined;
  }
  return vscode.workspace.openTextDocument(uri);
}

/** Appends BibTeX text to a .bib (created if missing) as one edit, and saves it. */
export async function appendEntry(uri: vscode.Uri, doc: vscode.TextDocument | undefined, entry: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  if (!doc) {
    edit.createFile(uri, { ignoreIfExists: true });
    edit.insert(uri, new vscode.Position(0, 0), `${entry.trimEnd()}\n`);
  } else {
    const text = doc.getText();
    const end = doc.positionAt(text.length);
    const gap = text.length === 0 ? '' : text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
    edit.insert(uri, end, `${gap}${entry.trimEnd()}\n`);
  }
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not add the BibTeX entry to ${uri.fsPath}`);
  const bib = await vscode.workspace.openTextDocument(uri);
  await bib.save();
}
