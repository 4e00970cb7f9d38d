// Zotero in the editor. "Cite from Zotero…": a picker over the whole library (indexed or not), fuzzy over title,
// authors, year and key; the key goes where a citation belongs (the Cite path of cite.ts) and the item's entry
// is added to the project's .bib unless it is there (same DOI, title or key). "Add Papers… → From Zotero": the
// library or the collections picked, through the shared indexing run (progress, cancel, report). A library that
// cannot be read (no ~/Zotero) offers *Choose Zotero folder…* (saved as the setting) and *Open Settings*.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ZoteroItem } from '../../core/sources/zotero/index.js';
import type { AddPapersDeps } from '../add-papers/types.js';
import { citePaper } from '../cite/cite.js';
import { estimateLoad } from '../../core/store/ops/capacity.js';
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

const CHOOSE_FOLDER = 'Choose Zotero folder…';
const OPEN_SETTINGS = 'Open Settings';

/**
 * Tells the user the library cannot be read, with the two ways out: *Choose Zotero folder…* (a folder picker; the
 * folder is saved as corpusLens.zotero.dataDir) and *Open Settings* (at that setting). True when a folder was saved,
 * so that the caller can try again.
 */
async function libraryUnreadable(err: unknown, log: vscode.LogOutputChannel): Promise<boolean> {
  const message = err instanceof Error ? err.message : String(err);
  log.error(`Zotero: ${message}`);
  const pick = await vscode.window.showErrorMessage(
    `Corpus Lens: cannot read the Zotero library: ${message}. Choose Zotero's data directory (the folder with zotero.sqlite; Zotero: Settings → Advanced → Files and Folders).`,
    CHOOSE_FOLDER,
    OPEN_SETTINGS,
  );
  if (pick === OPEN_SETTINGS) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'corpusLens.zotero.dataDir');
    return false;
  }
  if (pick !== CHOOSE_FOLDER) return false;
  const chosen = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
    title: "Corpus Lens: Zotero's data directory (the folder with zotero.sqlite)",
    openLabel: 'Use this Zotero folder',
  });
  const dir = chosen?.[0]?.fsPath;
  if (!dir) return false;
  try {
    await vscode.workspace.fs.stat(vscode.Uri.file(path.join(dir, 'zotero.sqlite')));
  } catch {
    void vscode.window.showErrorMessage(`Corpus Lens: ${dir} has no zotero.sqlite: it is not a Zotero data directory.`);
    return false;
  }
  await vscode.workspace.getConfiguration('corpusLens').update('zotero.dataDir', dir, vscode.ConfigurationTarget.Global);
  log.info(`Zotero data directory set to ${dir} (corpusLens.zotero.dataDir)`);
  return true;
}

/** The library's works, or undefined after telling the user why it cannot be read (and offering to choose the folder). */
async function readLibrary(log: vscode.LogOutputChannel): Promise<{ dir: string; items: ZoteroItem[] } | undefined> {
  const dir = await zoteroDataDir();
  try {
    return { dir, items: await heavy().readZoteroLibrary(dir) };
  } catch (err) {
    if (!(await libraryUnreadable(err, log))) return undefined;
    return readLibrary(log);
  }
}

/** Runs the picker; `query` pre-fills its filter (as if typed). Resolves with the chosen item, or undefined. */
function pickItem(items: ZoteroItem[], query = ''): Promise<ZoteroItem | undefined> {
  const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { item: ZoteroItem }>();
  qp.title = `Corpus Lens: cite from Zotero (${items.length} items)`;
  qp.placeholder = 'Title, author, year or citation key';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  // Key and year first: a long title is cut at the picker's edge, and they are what the author cites by.
  qp.items = items.map((item) => ({
    label: [item.citationKey, item.year].filter(Boolean).join(' · '),
    description: item.title ?? '(untitled)',
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
  const library = await readLibrary(deps.log);
  if (!library) return undefined;
  const { dir, items } = library;
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

/**
 * "Add Papers… → From Zotero": the whole library or the collections the user picks (several at once), indexed
 * like a folder; `chosen` skips the picker.
 */
export async function addFromZotero(deps: AddPapersDeps, chosen?: { collection?: string; collections?: string[] }): Promise<void> {
  const h = heavy();
  let dir: string;
  let collections: Awaited<ReturnType<typeof h.listZoteroCollections>>;
  for (;;) {
    dir = await zoteroDataDir();
    try {
      collections = await h.listZoteroCollections(dir);
      break;
    } catch (err) {
      if (!(await libraryUnreadable(err, deps.log))) return;
    }
  }
  let names: string[] | undefined;
  if (chosen) names = chosen.collections ?? (chosen.collection ? [chosen.collection] : undefined);
  else {
    const picks = await vscode.window.showQuickPick(
      collections.map((c) => ({
        label: `$(folder) ${c.name}`,
        description: c.parent ? `in ${c.parent}` : undefined,
        detail: `${c.items} items, with its subcollections`,
        collection: c.name,
      })),
      {
        title: 'Corpus Lens: add papers from Zotero: tick the collections to add (none ticked: the whole library)',
        canPickMany: true,
        matchOnDescription: true,
        ignoreFocusOut: true,
      },
    );
    if (!picks) return;
    names = picks.length ? picks.map((p) => p.collection) : undefined;
  }
  const units = new Map<string, Awaited<ReturnType<typeof h.zoteroUnits>>['units'][number]>();
  for (const collection of names ?? [undefined]) {
    const r = await h.zoteroUnits(dir, { collection });
    // An item in two chosen collections is indexed once.
    r.items.forEach((item, i) => units.set(item.key, r.units[i]));
  }
  const what = `Zotero ${names ? `${names.length === 1 ? 'collection' : 'collections'} ${names.map((n) => `"${n}"`).join(', ')}` : 'library'} at ${dir}`;
  await indexWith(
    {
      what,
      unit: 'items',
      // Each item estimated from what it will index (PDF pages, Zotero's text, its abstract), not at a paper's mean.
      sources: () => estimateLoad([...units.values()]),
      run: (store, options) => heavy().ingestUnits(store, [...units.values()], options),
    },
    deps,
  );
}
