// Where the citation checker's papers come from, for one document: the project's .bib files (one BibIndex over all of
// them, as Cite reads them), the corpus (core's PaperCatalog: ids, keys, DOIs, titles) and the Zotero library. What
// cannot be read (no corpus yet, no Zotero) gives an empty source and a log line, never an error in the editor.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BibIndex } from '../../core/bib/bib-index.js';
import type { CheckContext, PaperCatalogLike } from '../../core/cite-check/types.js';
import type { ZoteroItem } from '../../core/sources/zotero/index.js';
import type { CorpusService } from '../corpus/corpus.js';
import { formatOf } from '../shared/documents.js';
import { resolveBibFile } from '../cite/cite.js';
import { heavy } from '../load.js';
import { readSettings } from '../shared/settings.js';
import { zoteroDataDir } from '../zotero/zotero.js';

export interface ProjectBib {
  /** Every entry of the project's .bib files. */
  index: BibIndex;
  /** Their text, joined (what Cite plans a new key against). */
  text: string;
  files: vscode.Uri[];
  /** Where a new entry goes (Cite's choice: the setting, the first .bib the document names, references.bib). */
  target: vscode.Uri;
}

/** How long a read of the Zotero library is reused (completion asks on every keystroke). */
const ZOTERO_TTL_MS = 60_000;

export class CiteSources {
  private zotero: { dir: string; at: number; items: Promise<ZoteroItem[]> } | undefined;

  constructor(
    private readonly corpus: CorpusService,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The document's format for citations, or undefined for a document that is not a paper. */
  static format(doc: vscode.TextDocument): 'latex' | 'markdown' | undefined {
    const f = formatOf(doc);
    return f === 'latex' || f === 'markdown' ? f : undefined;
  }

  /**
   * The project's .bib files: those the document names (`\bibliography`, `\addbibresource`, front matter), else
   * those its main file names (an `\input` file), else every .bib of its workspace folder; plus the configured one. Open documents are
   * read with their unsaved edits.
   */
  async bib(doc: vscode.TextDocument): Promise<ProjectBib> {
    const format = CiteSources.format(doc) ?? 'latex';
    const setting = readSettings(doc.uri).citation.bibFile;
    let target = resolveBibFile(doc, format, setting);
    let dir = path.dirname(doc.uri.fsPath);
    let named = heavy().bibFilesNamedBy(doc.getText(), format);
    if (!named.length && format === 'latex') {
      // An \input file: the .bib files its main file names.
      const main = await mainFileOf(doc);
      const text = main !== doc.uri.fsPath ? await readText(vscode.Uri.file(main)) : undefined;
      if (text) {
        named = heavy().bibFilesNamedBy(text, format);
        dir = path.dirname(main);
      }
    }
    let files = named.map((n) => vscode.Uri.file(path.resolve(dir, n)));
    // A new entry goes where Cite puts it; for an \input file, into the main file's first .bib (not one beside it).
    if (!setting && files.length) target = files[0];
    if (!files.length) {
      const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
      files = folder ? await filesUnder(folder.uri, '.bib') : [];
    }
    const all = [...new Map([...files, target].map((u) => [u.fsPath, u])).values()];
    const texts: string[] = [];
    const found: vscode.Uri[] = [];
    for (const uri of all) {
      const text = await readText(uri);
      if (text === undefined) continue;
      texts.push(text);
      found.push(uri);
    }
    const text = texts.join('\n\n');
    return { index: await heavy().BibIndex.read(text), text, files: found, target };
  }

  /** The open corpus and its embedder (throws NotConfiguredError without a corpus). */
  async context(): Promise<CheckContext> {
    const { store, embedder } = await this.corpus.connection();
    return { store, embedder };
  }

  /** The context with the corpus catalog loaded against this .bib; undefined (logged) when the corpus cannot be opened. */
  async checkContext(bib: BibIndex): Promise<(CheckContext & { catalog: PaperCatalogLike }) | undefined> {
    try {
      const ctx = await this.context();
      return { ...ctx, catalog: await heavy().PaperCatalog.load(ctx.store, bib) };
    } catch (err) {
      this.log.info(`citation check: no corpus to check against (${(err as Error).message})`);
      return undefined;
    }
  }

  /** The Zotero library's items ([] when there is none or it cannot be read; the reason is logged once per read). */
  zoteroItems(): Promise<ZoteroItem[]> {
    return (async () => {
      const dir = await zoteroDataDir().catch(() => '');
      if (!dir) return [];
      if (this.zotero && this.zotero.dir === dir && Date.now() - this.zotero.at < ZOTERO_TTL_MS) return this.zotero.items;
      const items = heavy()
        .readZoteroLibrary(dir)
        .catch((err: Error) => {
          this.log.info(`citation completion: no Zotero library at ${dir} (${err.message})`);
          return [] as ZoteroItem[];
        });
      this.zotero = { dir, at: Date.now(), items };
      return items;
    })();
  }
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
