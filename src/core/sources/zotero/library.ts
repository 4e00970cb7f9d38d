// The items of a Zotero library from zotero.sqlite: metadata looked up by field name (Zotero fills its
// `fields`/`itemTypes` tables from its data schema, so their IDs are not fixed), creators in order, the
// citation key (Zotero's `citationKey` field, which Better BibTeX writes; else one generated like the rest of
// Corpus Lens), collections, and each item's attachments. Items in the trash (`deletedItems`) are left out.
import { join } from 'node:path';
import { makeCitationKey } from '../../bib/format.js';
import type { PaperFields } from '../../paper/fields.js';
import { SqliteSnapshot } from './sqlite.js';
import { normaliseArxivId, normaliseDoi, parseYear } from '../../paper/ids.js';

export interface ZoteroAttachment {
  itemID: number;
  /** The attachment item's key: its files live in storage/<key>/. */
  key: string;
  /** 0 imported file, 1 imported URL, 2 linked file, 3 linked URL, 4 embedded image. */
  linkMode: number;
  contentType: string | null;
  /** As stored: `storage:NAME`, `attachments:REL`, an absolute path, or null. */
  path: string | null;
  dateModified: string;
}

export interface ZoteroItem extends PaperFields {
  itemID: number;
  key: string;
  libraryID: number;
  itemType: string;
  dateModified: string;
  citationKey: string;
  /** True when the key is Zotero's own (citationKey field), false when generated here. */
  keyFromZotero: boolean;
  /** Every field by name, as stored. */
  fields: Record<string, string>;
  attachments: ZoteroAttachment[];
  /** Names of the collections holding the item. */
  collections: string[];
}

export interface ReadLibraryOptions {
  /** Only items of this collection (by name, case-insensitive) and its subcollections. */
  collection?: string;
}

/** Item types that are not works to cite. */
const NOT_WORKS = new Set(['attachment', 'note', 'annotation']);
/** Where a work's venue is, by item type (the first present wins). */
const VENUE_FIELDS = [
  'publicationTitle',
  'proceedingsTitle',
  'bookTitle',
  'conferenceName',
  'websiteTitle',
  'blogTitle',
  'university',
  'institution',
];
/** Creator types that author a work, in order of preference (editors only when there is no author). */
const AUTHOR_TYPES = [
  ['author', 'programmer', 'presenter', 'inventor', 'artist', 'director', 'podcaster', 'cartographer', 'interviewee'],
  ['editor', 'seriesEditor', 'bookAuthor', 'contributor'],
];

export function zoteroDatabasePath(dataDir: string): string {
  return join(dataDir, 'zotero.sqlite');
}

/** Reads the library's works. Throws a clear error when the directory holds no readable zotero.sqlite or the collection is unknown. */
export async function readZoteroLibrary(dataDir: string, options: ReadLibraryOptions = {}): Promise<ZoteroItem[]> {
  const db = await SqliteSnapshot.open(zoteroDatabasePath(dataDir));
  try {
    for (const t of ['items', 'itemTypes', 'itemData', 'itemDataValues']) {
      if (!db.hasTable(t)) throw new Error(`${zoteroDatabasePath(dataDir)} has no ${t} table: not a Zotero database`);
    }
    const only = options.collection !== undefined ? collectionItemIds(db, options.collection) : null;
    const deleted = new Set(
      db.hasTable('deletedItems') ? db.all<{ itemID: number }>('SELECT itemID FROM deletedItems').map((r) => r.itemID) : [],
    );
    const feeds = new Set(
      db.hasTable('libraries')
        ? db.all<{ libraryID: number }>("SELECT libraryID FROM libraries WHERE type = 'feed'").map((r) => r.libraryID)
        : [],
    );
    const rows = db.all<{ itemID: number; key: string; libraryID: number; typeName: string; dateModified: string }>(
      'SELECT i.itemID, i.key, i.libraryID, t.typeName, i.dateModified FROM items i JOIN itemTypes t ON t.itemTypeID = i.itemTypeID ORDER BY i.itemID',
    );
    const works = rows.filter(
      (r) => !NOT_WORKS.has(r.typeName) && !deleted.has(r.itemID) && !feeds.has(r.libraryID) && (!only || only.has(r.itemID)),
    );
    const fields = itemFields(db);
    const creators = itemCreators(db);
    const attachments = itemAttachments(db, deleted);
    const collections = itemCollections(db);
    const items = works.map((r) =>
      toItem(r, fields.get(r.itemID) ?? {}, creators.get(r.itemID) ?? [], attachments.get(r.itemID) ?? [], collections.get(r.itemID) ?? []),
    );
    return withKeys(items);
  } finally {
    db.close();
  }
}

/** The library's collections (not in the trash) with how many works each holds directly, by name. */
export async function listZoteroCollections(dataDir: string): Promise<Array<{ name: string; parent: string | null; items: number }>> {
  const db = await SqliteSnapshot.open(zoteroDatabasePath(dataDir));
  try {
    if (!db.hasTable('collections') || !db.hasTable('collectionItems')) return [];
    const deleted = db.hasTable('deletedCollections') ? 'WHERE c.collectionID NOT IN (SELECT collectionID FROM deletedCollections)' : '';
    return db.all<{ name: string; parent: string | null; items: number }>(
      `SELECT c.collectionName AS name, p.collectionName AS parent, (SELECT count(*) FROM collectionItems ci WHERE ci.collectionID = c.collectionID) AS items
         FROM collections c LEFT JOIN collections p ON p.collectionID = c.parentCollectionID ${deleted} ORDER BY lower(c.collectionName)`,
    );
  } finally {
    db.close();
  }
}

/** The ids of the items in the named collection and its subcollections. */
function collectionItemIds(db: SqliteSnapshot, name: string): Set<number> {
  if (!db.hasTable('collections') || !db.hasTable('collectionItems'))
    throw new Error(`this Zotero library has no collections (looked for "${name}")`);
  const all = db.all<{ collectionID: number; collectionName: string; parentCollectionID: number | null }>(
    'SELECT collectionID, collectionName, parentCollectionID FROM collections',
  );
  const deleted = new Set(
    db.hasTable('deletedCollections')
      ? db.all<{ collectionID: number }>('SELECT collectionID FROM deletedCollections').map((r) => r.collectionID)
      : [],
  );
  const live = all.filter((c) => !deleted.has(c.collectionID));
  const roots = live.filter((c) => c.collectionName.toLowerCase() === name.trim().toLowerCase());
  if (!roots.length) {
    const names = [...new Set(live.map((c) => c.collectionName))].sort();
    throw new Error(
      `no Zotero collection named "${name}"${names.length ? ` (collections: ${names.join(', ')})` : ' (the library has none)'}`,
    );
  }
  // The named collections and, level by level, their subcollections.
  const ids = new Set(roots.map((c) => c.collectionID));
  let frontier = [...ids];
  while (frontier.length) {
    const parents = new Set(frontier);
    frontier = live
      .filter((c) => c.parentCollectionID != null && parents.has(c.parentCollectionID) && !ids.has(c.collectionID))
      .map((c) => c.collectionID);
    for (const id of frontier) ids.add(id);
  }
  const items = new Set<number>();
  for (const r of db.all<{ collectionID: number; itemID: number }>('SELECT collectionID, itemID FROM collectionItems'))
    if (ids.has(r.collectionID)) items.add(r.itemID);
  return items;
}

/** itemID → fieldName → value. Custom fields are in fieldsCombined where Zotero has it. */
function itemFields(db: SqliteSnapshot): Map<number, Record<string, string>> {
  const names = db.hasTable('fieldsCombined') ? 'fieldsCombined' : 'fields';
  const out = new Map<number, Record<string, string>>();
  const rows = db.all<{ itemID: number; fieldName: string; value: unknown }>(
    `SELECT d.itemID, f.fieldName, v.value FROM itemData d JOIN ${names} f ON f.fieldID = d.fieldID JOIN itemDataValues v ON v.valueID = d.valueID`,
  );
  for (const r of rows) {
    const fields = out.get(r.itemID) ?? {};
    fields[r.fieldName] = String(r.value ?? '');
    out.set(r.itemID, fields);
  }
  return out;
}

interface CreatorRow {
  itemID: number;
  firstName: string | null;
  lastName: string | null;
  fieldMode: number | null;
  creatorType: string;
}

function itemCreators(db: SqliteSnapshot): Map<number, CreatorRow[]> {
  const out = new Map<number, CreatorRow[]>();
  if (!db.hasTable('itemCreators') || !db.hasTable('creators')) return out;
  const rows = db.all<CreatorRow>(
    `SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode, COALESCE(ct.creatorType, '') AS creatorType
       FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID LEFT JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID
      ORDER BY ic.itemID, ic.orderIndex`,
  );
  for (const r of rows) out.set(r.itemID, [...(out.get(r.itemID) ?? []), r]);
  return out;
}

/** parent itemID → its attachments (those in the trash left out). */
function itemAttachments(db: SqliteSnapshot, deleted: Set<number>): Map<number, ZoteroAttachment[]> {
  const out = new Map<number, ZoteroAttachment[]>();
  if (!db.hasTable('itemAttachments')) return out;
  const rows = db.all<ZoteroAttachment & { parentItemID: number | null }>(
    `SELECT a.itemID, a.parentItemID, i.key, COALESCE(a.linkMode, 0) AS linkMode, a.contentType, a.path, i.dateModified
       FROM itemAttachments a JOIN items i ON i.itemID = a.itemID ORDER BY a.itemID`,
  );
  for (const r of rows) {
    if (r.parentItemID == null || deleted.has(r.itemID)) continue;
    const { parentItemID, ...attachment } = r;
    out.set(parentItemID, [...(out.get(parentItemID) ?? []), attachment]);
  }
  return out;
}

function itemCollections(db: SqliteSnapshot): Map<number, string[]> {
  const out = new Map<number, string[]>();
  if (!db.hasTable('collections') || !db.hasTable('collectionItems')) return out;
  const rows = db.all<{ itemID: number; collectionName: string }>(
    'SELECT ci.itemID, c.collectionName FROM collectionItems ci JOIN collections c ON c.collectionID = ci.collectionID',
  );
  for (const r of rows) out.set(r.itemID, [...(out.get(r.itemID) ?? []), r.collectionName]);
  return out;
}

function displayName(c: CreatorRow): string {
  // fieldMode 1: a single-field name (an institution), kept whole.
  if (c.fieldMode === 1 || !c.firstName) return (c.lastName ?? '').trim();
  return `${c.firstName.trim()} ${(c.lastName ?? '').trim()}`.trim();
}

function authorsOf(creators: CreatorRow[]): string[] {
  for (const types of AUTHOR_TYPES) {
    const names = creators
      .filter((c) => types.includes(c.creatorType))
      .map(displayName)
      .filter(Boolean);
    if (names.length) return names;
  }
  return creators.map(displayName).filter(Boolean);
}

function toItem(
  row: { itemID: number; key: string; libraryID: number; typeName: string; dateModified: string },
  fields: Record<string, string>,
  creators: CreatorRow[],
  attachments: ZoteroAttachment[],
  collections: string[],
): ZoteroItem {
  const f = (name: string): string | null => fields[name]?.trim() || null;
  const doi = normaliseDoi(f('DOI')) ?? normaliseDoi(/\bDOI:\s*(\S+)/i.exec(fields.extra ?? '')?.[1]);
  const arxivId =
    normaliseArxivId(f('archiveID')) ??
    (/arxiv/i.test(f('url') ?? '') ? normaliseArxivId(f('url')) : null) ??
    normaliseArxivId(/arXiv:\s*\S+/i.exec(fields.extra ?? '')?.[0]) ??
    normaliseArxivId(/^10\.48550\/arxiv\.(.+)$/i.exec(doi ?? '')?.[1]);
  return {
    itemID: row.itemID,
    key: row.key,
    libraryID: row.libraryID,
    itemType: row.typeName,
    dateModified: row.dateModified,
    title: f('title'),
    authors: authorsOf(creators),
    // Zotero stores dates as 'YYYY-MM-DD original text' (e.g. '1948-07-00 1948-07').
    year: parseYear(f('date')),
    venue: VENUE_FIELDS.map(f).find(Boolean) ?? null,
    doi,
    arxivId,
    url: f('url'),
    abstract: f('abstractNote'),
    citationKey: f('citationKey') ?? '',
    keyFromZotero: Boolean(f('citationKey')),
    fields,
    attachments,
    collections,
  };
}

/** Items without a Zotero key get a generated one that collides with no other key of the library. */
function withKeys(items: ZoteroItem[]): ZoteroItem[] {
  const taken = new Set(items.filter((i) => i.citationKey).map((i) => i.citationKey));
  for (const item of items) {
    if (item.citationKey) continue;
    item.citationKey = makeCitationKey(item, taken);
    taken.add(item.citationKey);
  }
  return items;
}
