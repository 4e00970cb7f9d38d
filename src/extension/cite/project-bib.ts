// The project's bibliography, as every feature that reads or writes BibTeX resolves it (Cite, Ask's insert, related
// work, the citation checker): the configured file, else the .bib files the document names (`\bibliography`,
// `\addbibresource`, Markdown front matter), else, for an `\input` file, those its root document names; a new entry
// goes into the first of them, and only when no file names one into references.bib beside the root document.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { heavy } from '../load.js';

export interface BibFiles {
  /** The .bib files named (resolved against the file that names them); empty when none is. */
  named: vscode.Uri[];
  /** Where a new entry goes. */
  target: vscode.Uri;
}

export async function projectBibFiles(doc: vscode.TextDocument, format: 'latex' | 'markdown', setting: string): Promise<BibFiles> {
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.fsPath ?? path.dirname(doc.uri.fsPath);
  let dir = path.dirname(doc.uri.fsPath);
  let names = heavy().bibFilesNamedBy(doc.getText(), format);
  if (!names.length && format === 'latex') {
    // An \input file: the .bib files its root document names, resolved from the root's folder.
    const main = await mainFileOf(doc);
    const text = main !== doc.uri.fsPath ? await readText(vscode.Uri.file(main)) : undefined;
    dir = path.dirname(main);
    if (text) names = heavy().bibFilesNamedBy(text, format);
  }
  const named = names.map((n) => vscode.Uri.file(path.resolve(dir, n)));
  const target = setting
    ? vscode.Uri.file(path.isAbsolute(setting) ? setting : path.join(folder, setting))
    : (named[0] ?? vscode.Uri.file(path.join(dir, 'references.bib')));
  return { named, target };
}

/** A file's text (its open document's, with unsaved edits), or undefined when it does not exist. */
export async function readText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === uri.fsPath);
  if (open) return open.getText();
  try {
    return Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * Files with this extension under a folder (three levels deep, hidden folders and node_modules skipped), read with
 * the file system API: workspace.findFiles needs the search service, which a remote or web host may lack.
 */
export async function filesUnder(root: vscode.Uri, ext: string, depth = 3): Promise<vscode.Uri[]> {
  const out: vscode.Uri[] = [];
  const walk = async (dir: vscode.Uri, level: number): Promise<void> => {
    let entries: [string, vscode.FileType][];
    try {
      entries = await vscode.workspace.fs.readDirectory(dir);
    } catch {
      return;
    }
    for (const [name, type] of entries.sort(([a], [b]) => a.localeCompare(b))) {
      if (out.length >= 200) return;
      const uri = vscode.Uri.joinPath(dir, name);
      if (type === vscode.FileType.File && name.toLowerCase().endsWith(ext)) out.push(uri);
      else if (type === vscode.FileType.Directory && level < depth && !name.startsWith('.') && name !== 'node_modules')
        await walk(uri, level + 1);
    }
  };
  await walk(root, 0);
  return out;
}

/** The LaTeX main file of a document: itself when it has `\documentclass`, else a workspace .tex that does and reaches it. */
export async function mainFileOf(doc: vscode.TextDocument): Promise<string> {
  if (/^[^%\n]*\\documentclass/m.test(doc.getText())) return doc.uri.fsPath;
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  if (!folder) return doc.uri.fsPath;
  for (const uri of await filesUnder(folder.uri, '.tex')) {
    const text = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
    if (!/^[^%\n]*\\documentclass/m.test(text)) continue;
    try {
      if (heavy().findProjectCitations(uri.fsPath).files.includes(doc.uri.fsPath)) return uri.fsPath;
    } catch {
      // an unreadable project is not this one's
    }
  }
  return doc.uri.fsPath;
}
