// The Zotero library as a source of papers (issue 11): its database, attachments and Zotero's extracted text,
// read without Zotero running; and, where Zotero runs with Better BibTeX, its JSON-RPC for live keys and BibTeX.
import type { IngestUnit } from '../../ingest/pipeline.js';
import { defaultZoteroDataDir, findBaseAttachmentPath } from './attachments.js';
import { readZoteroLibrary, type ReadLibraryOptions, type ZoteroItem } from './library.js';
import { zoteroUnit } from './papers.js';

export { readZoteroLibrary, listZoteroCollections, type ZoteroItem, type ReadLibraryOptions } from './library.js';
export { attachmentFile, findZoteroDataDir, findBaseAttachmentPath, fullTextCacheFile, readPref } from './attachments.js';
export { zoteroMeta, zoteroUnit } from './papers.js';
export { BetterBibtex, BetterBibtexError, DEFAULT_BBT_URL } from './better-bibtex.js';

export interface ZoteroSourceOptions extends ReadLibraryOptions {
  /** Where prefs.js files are looked for (Zotero's profile folders by default). */
  profileRoots?: string[];
}

/** The library's items as pipeline units (for ingestUnits), with the items themselves. */
export async function zoteroUnits(
  dataDir: string = defaultZoteroDataDir(),
  options: ZoteroSourceOptions = {},
): Promise<{ items: ZoteroItem[]; units: IngestUnit[] }> {
  const items = await readZoteroLibrary(dataDir, options);
  const baseAttachmentPath = await findBaseAttachmentPath(dataDir, options.profileRoots);
  return { items, units: items.map((item) => zoteroUnit(item, { dataDir, baseAttachmentPath })) };
}
