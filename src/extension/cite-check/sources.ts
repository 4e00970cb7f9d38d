// Where the citation checker's papers come from, for one document: the project's .bib files (one BibIndex over all of
// them, as Cite reads them), the corpus (core's PaperCatalog: ids, keys, DOIs, titles) and the Zotero library. What
// cannot be read (no corpus yet, no Zotero) gives an empty source and a log line, never an error in the editor.
import * as vscode from 'vscode';
import type { BibIndex } from '../../core/bib/bib-index.js';
import type { CheckContext, PaperCatalogLike } from '../../core/cite-check/types.js';
import type { ZoteroItem } from '../../core/sources/zotero/index.js';
import type { CorpusService } from '../corpus/corpus.js';
import { formatOf } from '../shared/documents.js';
import { filesUnder, projectBibFiles, readText } from '../cite/project-bib.js';
import { heavy } from '../load.js';
import { readSettings } from '../shared/settings.js';
import { zoteroDataDir } from '../zotero/zotero.js';

export interface ProjectBib {
  /** Every entry of the project's .bib files. */
  index: BibIndex;
  /** Their text, joined (what Cite plans a new key against). */
  text: string;
  files: vscode.Uri[];
  /** Where a new entry goes (project-bib.ts: the setting, the first .bib the project names, references.bib). */
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
    const { named, target } = await projectBibFiles(doc, format, readSettings(doc.uri).citation.bibFile);
    let files = named;
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
