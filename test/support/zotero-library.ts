// Zotero data directories for tests, built from Zotero's own schema (../shared/eval/zotero/userdata.sql, the
// DDL Zotero runs for a new database) with sql.js. Zotero fills `itemTypes`/`fields` from its data schema at
// startup; here they get IDs unlike the real ones (and unlike zotero-trimmed.sqlite's), so a reader that
// assumed fixed IDs would fail.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestAttachment {
  key: string;
  /** 0 imported file, 1 imported URL, 2 linked file, 3 linked URL. */
  linkMode: number;
  contentType?: string;
  path: string | null;
  /** Written to storage/<key>/<name> for `storage:` paths. */
  file?: { name: string; bytes: Uint8Array | string };
  /** Written to storage/<key>/.zotero-ft-cache. */
  ftCache?: string;
  deleted?: boolean;
}

export interface TestItem {
  key: string;
  type: string;
  fields: Record<string, string>;
  creators?: Array<[first: string, last: string, type?: string]>;
  attachments?: TestAttachment[];
  collections?: string[];
  deleted?: boolean;
  dateModified?: string;
}

export interface TestCollection {
  name: string;
  parent?: string;
}

const ITEM_TYPES = ['webpage', 'note', 'preprint', 'book', 'attachment', 'conferencePaper', 'journalArticle', 'annotation'];
const FIELDS = [
  'url',
  'extra',
  'DOI',
  'volume',
  'publicationTitle',
  'abstractNote',
  'citationKey',
  'date',
  'title',
  'proceedingsTitle',
  'archiveID',
  'pages',
];

export async function buildZoteroLibrary(
  dataDir: string,
  schemaSql: string,
  items: TestItem[],
  collections: TestCollection[] = [],
): Promise<string> {
  const init = (await import('sql.js')).default;
  const SQL = await init();
  const db = new SQL.Database();
  db.exec(schemaSql);
  ITEM_TYPES.forEach((t, i) => db.run('INSERT INTO itemTypes (itemTypeID, typeName) VALUES (?, ?)', [200 + i * 3, t]));
  FIELDS.forEach((f, i) => {
    db.run('INSERT INTO fields (fieldID, fieldName) VALUES (?, ?)', [300 + i * 7, f]);
    db.run('INSERT INTO fieldsCombined (fieldID, fieldName, custom) VALUES (?, ?, 0)', [300 + i * 7, f]);
  });
  db.run("INSERT INTO creatorTypes (creatorTypeID, creatorType) VALUES (51, 'editor'), (52, 'author')");
  db.run("INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1)");
  const typeId = (t: string) => 200 + ITEM_TYPES.indexOf(t) * 3;
  const fieldId = (f: string) => {
    if (!FIELDS.includes(f)) throw new Error(`test library: add field ${f} to FIELDS`);
    return 300 + FIELDS.indexOf(f) * 7;
  };
  const collectionIds = new Map<string, number>();
  collections.forEach((c, i) => {
    const id = 10 + i;
    collectionIds.set(c.name, id);
    db.run('INSERT INTO collections (collectionID, collectionName, parentCollectionID, libraryID, key) VALUES (?, ?, ?, 1, ?)', [
      id,
      c.name,
      c.parent ? collectionIds.get(c.parent)! : null,
      `COLL${id}`,
    ]);
  });
  let nextItem = 1;
  let nextValue = 1;
  let nextCreator = 1;
  const addItem = (key: string, type: string, modified: string): number => {
    const id = nextItem++;
    db.run(
      'INSERT INTO items (itemID, itemTypeID, dateAdded, dateModified, clientDateModified, libraryID, key) VALUES (?, ?, ?, ?, ?, 1, ?)',
      [id, typeId(type), modified, modified, modified, key],
    );
    return id;
  };
  const values = new Map<string, number>(); // itemDataValues.value is UNIQUE: items share equal values
  const creators = new Map<string, number>(); // so is (lastName, firstName, fieldMode)
  const setField = (itemID: number, name: string, value: string) => {
    let valueID = values.get(value);
    if (valueID === undefined) {
      valueID = nextValue++;
      values.set(value, valueID);
      db.run('INSERT INTO itemDataValues (valueID, value) VALUES (?, ?)', [valueID, value]);
    }
    db.run('INSERT INTO itemData (itemID, fieldID, valueID) VALUES (?, ?, ?)', [itemID, fieldId(name), valueID]);
  };
  for (const item of items) {
    const modified = item.dateModified ?? '2025-01-02 03:04:05';
    const id = addItem(item.key, item.type, modified);
    for (const [name, value] of Object.entries(item.fields)) setField(id, name, value);
    (item.creators ?? []).forEach(([first, last, type], i) => {
      let creatorID = creators.get(`${first}\u0000${last}`);
      if (creatorID === undefined) {
        creatorID = nextCreator++;
        creators.set(`${first}\u0000${last}`, creatorID);
        db.run('INSERT INTO creators (creatorID, firstName, lastName, fieldMode) VALUES (?, ?, ?, ?)', [
          creatorID,
          first,
          last,
          first ? 0 : 1,
        ]);
      }
      db.run('INSERT INTO itemCreators (itemID, creatorID, creatorTypeID, orderIndex) VALUES (?, ?, ?, ?)', [
        id,
        creatorID,
        type === 'editor' ? 51 : 52,
        i,
      ]);
    });
    for (const name of item.collections ?? [])
      db.run('INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)', [collectionIds.get(name)!, id]);
    if (item.deleted) db.run('INSERT INTO deletedItems (itemID) VALUES (?)', [id]);
    for (const att of item.attachments ?? []) {
      const attId = addItem(att.key, 'attachment', modified);
      db.run('INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, ?, ?, ?)', [
        attId,
        id,
        att.linkMode,
        att.contentType ?? 'application/pdf',
        att.path,
      ]);
      if (att.deleted) db.run('INSERT INTO deletedItems (itemID) VALUES (?)', [attId]);
      const storage = join(dataDir, 'storage', att.key);
      if (att.file) {
        mkdirSync(storage, { recursive: true });
        writeFileSync(join(storage, att.file.name), att.file.bytes);
      }
      if (att.ftCache !== undefined) {
        mkdirSync(storage, { recursive: true });
        writeFileSync(join(storage, '.zotero-ft-cache'), att.ftCache);
      }
    }
  }
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'zotero.sqlite');
  writeFileSync(file, db.export());
  db.close();
  return file;
}

/** Zotero's DDL, or undefined where ../shared is absent. */
export function readSchema(path: string | undefined): string | undefined {
  return path ? readFileSync(path, 'utf8') : undefined;
}

/** A valid one-page PDF with no text layer (a scan without OCR, as far as a reader can tell). */
export function blankPdf(): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << >> >>',
    '<< /Length 0 >>\nstream\n\nendstream',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}
