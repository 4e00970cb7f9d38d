// Zotero in the editor. "Cite from Zotero…": a picker over the whole library (indexed or not), fuzzy over title,
// authors, year and key; the key goes where a citation belongs (the Cite path of cite.ts) and the item's entry
// is added to the project's .bib unless it is there (same DOI, title or key). "Add Papers… → From Zotero": the
// library or one collection through the shared indexing run (progress, cancel, report).
import * as vscode from 'vscode';
import type { ZoteroItem } from '../../core/sources/zotero/index.js';
import type { AddPapersDeps } from '../add-papers/types.js';
import { citePaper } from '../cite/cite.js';
import { indexWith } from '../add-papers/indexing.js';
import { heavy } from '../load.js';
import { readSettings } from '../shared/settings.js';

/** The configured data directory, else the one Zotero uses (a profile's custom directory, else ~/Zotero). */
export async function zoteroDataDir(): Promise<string> {
  return readSettings().zotero.dataDir || heavy().findZoteroDataDir();
}

interface CiteDeps {
  log: vscode.LogOutputChannel;
  paperEditor(): vscode.TextEditor | undefined;
}

/** The library's works, or undefined after telling the user why it cannot be read. */
async function readLibrary(dir: string, log: vscode.LogOutputChannel): Promise<ZoteroItem[] | undefined> {
  try {
    return await heavy().readZoteroLibrary(dir);
  } catch (err) {
    log.error(`Zotero: ${(err as Error).message}`);
    void vscode.window.showErrorMessage(
      `Corpus Lens: cannot read the Zotero library: ${(err as Error).message}. Set "corpusLens.zotero.dataDir" to Zotero's data directory (Zotero: Settings → Advanced → Files and Folders).`,
    );
    return undefined;
  }
}

/** Runs the picker; `query` pre-fills its filter (as if typed). Resolves with the chosen item, or undefined. */
function pickItem(items: ZoteroItem[], query = ''): Promise<ZoteroItem | undefined> {
  const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { item: ZoteroItem }>();
  qp.title = `Corpus Lens: cite from Zotero (${items.length} items)`;
  qp.placeholder = 'Title, author, year or citation key';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.items = items.map((item) => ({
    label: item.title ?? '(untitled)',
    description: [item.citationKey, item.year].filter(Boolean).join(' · '),
    detail: [item.authors.join(', '), item.venue].filter(Boolean).join(' — '),
    item,
  }));
  qp.value = query;
  return new Promise((resolve) => {
    let chosen: ZoteroItem | undefined;
    qp.onDidAccept(() => {
      chosen = qp.selectedItems[0]?.item ?? qp.activeItems[0]?.item;
      qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(chosen);
    });
    qp.show();
  });
}

/** "Cite from Zotero…": returns the key inserted, or undefined when nothing was cited. */
export async function citeFromZotero(deps: CiteDeps, options: { query?: string } = {}): Promise<string | undefined> {
  const editor = deps.paperEditor();
  if (!editor) return void vscode.window.showInformationMessage('Corpus Lens: open the paper to cite into first.');
  const dir = await zoteroDataDir();
  const items = await readLibrary(dir, deps.log);
  if (!items) return undefined;
  if (!items.length) return void vscode.window.showInformationMessage(`Corpus Lens: the Zotero library at ${dir} has no items.`);
  const item = await pickItem(items, options.query);
  if (!item) return undefined;
  const meta = heavy().zoteroMeta(item);
  const entry = (await betterBibtexEntry(item, deps.log)) ?? meta.bibtex!;
  const key = await citePaper(meta, { editor }, { key: item.citationKey, entry });
  deps.log.info(`cited Zotero item ${item.key} as ${key} in ${editor.document.uri.fsPath}`);
  return key;
}

/** The entry as Better BibTeX exports it, when its endpoint is configured and answers; else undefined (the database's entry is used). */
async function betterBibtexEntry(item: ZoteroItem, log: vscode.LogOutputChannel): Promise<string | undefined> {
  const url = readSettings().zotero.betterBibtexUrl;
  if (!url || !item.keyFromZotero) return undefined;
  try {
    const text = (await new (heavy().BetterBibtex)({ baseUrl: url, timeoutMs: 5_000 }).export([item.citationKey])).trim();
    if (text.startsWith('@') && text.includes(`{${item.citationKey},`)) return text;
    log.warn(`Better BibTeX exported no entry for ${item.citationKey}; the entry is written from the Zotero database`);
  } catch (err) {
    log.warn(`Better BibTeX: ${(err as Error).message}; the entry is written from the Zotero database`);
  }
  return undefined;
}

/** "Add Papers… → From Zotero": the whole library or one collection, indexed like a folder; `chosen` skips the picker. */
export async function addFromZotero(deps: AddPapersDeps, chosen?: { collection?: string }): Promise<void> {
  const dir = await zoteroDataDir();
  const h = heavy();
  let collections: Awaited<ReturnType<typeof h.listZoteroCollections>>;
  try {
    collections = await h.listZoteroCollections(dir);
  } catch (err) {
    void vscode.window.showErrorMessage(
      `Corpus Lens: cannot read the Zotero library: ${(err as Error).message}. Set "corpusLens.zotero.dataDir" to Zotero's data directory.`,
    );
    return;
  }
  const pick = chosen
    ? { collection: chosen.collection || undefined }
    : await vscode.window.showQuickPick(
        [
          { label: '$(library) The whole library', detail: dir, collection: undefined as string | undefined },
          ...collections.map((c) => ({
            label: `$(folder) ${c.name}`,
            description: c.parent ? `in ${c.parent}` : undefined,
            detail: `${c.items} items, with its subcollections`,
            collection: c.name,
          })),
        ],
        { title: 'Corpus Lens: add papers from Zotero', matchOnDescription: true },
      );
  if (!pick) return;
  const { units } = await h.zoteroUnits(dir, { collection: pick.collection });
  const what = `Zotero ${pick.collection ? `collection "${pick.collection}"` : 'library'} at ${dir}`;
  await indexWith(
    { what, unit: 'items', sources: async () => units.length, run: (store, options) => heavy().ingestUnits(store, units, options) },
    deps.corpus,
    deps.log,
  );
}
