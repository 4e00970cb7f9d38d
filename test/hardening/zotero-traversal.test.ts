// A crafted Zotero database must not make an import read files outside the library: a `storage:` name with `..`,
// an attachment key that is a path (`../../outside`), an `attachments:` path leaving the base directory. Linked
// files (absolute paths, as Zotero stores them) are still read. Items are built in memory (no zotero.sqlite is
// needed: the paths are what the database would hold); the secret is a Zotero full-text cache and a text file
// placed beside the data directory.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachmentFile, fullTextCacheFile, zoteroUnit, type ZoteroItem } from '../../src/core/sources/zotero/index.ts';

const work = mkdtempSync(join(tmpdir(), 'cl-zotero-traversal-'));
after(() => rmSync(work, { recursive: true, force: true }));
const dataDir = join(work, 'Zotero');
const base = join(work, 'Papers');
mkdirSync(join(dataDir, 'storage', 'ABCD2345'), { recursive: true });
mkdirSync(join(work, 'outside'), { recursive: true });
mkdirSync(base, { recursive: true });
const SECRET = 'Observation 999 notes that the secret token is hunter2.';
writeFileSync(join(work, 'outside', '.zotero-ft-cache'), SECRET);
writeFileSync(join(work, 'outside', 'secret.pdf'), SECRET);
writeFileSync(join(dataDir, 'storage', 'ABCD2345', 'paper.pdf'), '%PDF-1.4 not really');

function item(attachments: ZoteroItem['attachments']): ZoteroItem {
  return {
    itemID: 1,
    key: 'ITEMKEY1',
    libraryID: 1,
    itemType: 'journalArticle',
    dateModified: '2024-01-01 00:00:00',
    citationKey: 'mallory2024',
    keyFromZotero: true,
    fields: {},
    attachments,
    collections: [],
    title: 'A harmless title',
    authors: ['Mallory'],
    year: 2024,
    venue: null,
    doi: null,
    arxivId: null,
    url: null,
    abstract: 'We study harmless things in depth.',
  };
}
const att = (key: string, path: string | null, linkMode = 0) => ({
  itemID: 2,
  key,
  linkMode,
  contentType: 'application/pdf',
  path,
  dateModified: '2024-01-01 00:00:00',
});

test('storage: paths stay inside storage/<key>/, keys must be Zotero keys, attachments: paths stay in the base directory', () => {
  assert.equal(attachmentFile(att('ABCD2345', 'storage:../../../outside/secret.pdf'), dataDir, null), null);
  assert.equal(attachmentFile(att('ABCD2345', 'storage:/etc/passwd'), dataDir, null), null);
  assert.equal(attachmentFile(att('../../outside', 'storage:secret.pdf'), dataDir, null), null);
  assert.equal(attachmentFile(att('ABCD2345', 'attachments:../outside/secret.pdf', 2), dataDir, base), null);
  assert.equal(fullTextCacheFile(att('../../outside', null), dataDir), null);
  assert.equal(fullTextCacheFile(att('../outside', null), join(dataDir, 'storage')), null);
  // What Zotero itself writes is still found.
  assert.equal(attachmentFile(att('ABCD2345', 'storage:paper.pdf'), dataDir, null), join(dataDir, 'storage', 'ABCD2345', 'paper.pdf'));
  assert.equal(
    attachmentFile(att('ABCD2345', 'storage:sub/paper.pdf'), dataDir, null),
    join(dataDir, 'storage', 'ABCD2345', 'sub', 'paper.pdf'),
  );
  assert.equal(attachmentFile(att('ABCD2345', 'attachments:2024/x.pdf', 2), dataDir, base), join(base, '2024', 'x.pdf'));
  assert.equal(
    attachmentFile(att('ABCD2345', join(work, 'outside', 'secret.pdf'), 2), dataDir, null),
    join(work, 'outside', 'secret.pdf'),
    'a linked file is read where it is',
  );
});

test('importing an item whose attachments point outside the library indexes its abstract only, with a warning per refused attachment', async () => {
  const unit = zoteroUnit(item([att('../../outside', 'storage:secret.pdf'), att('ABCD2345', 'storage:../../../outside/secret.pdf')]), {
    dataDir,
    baseAttachmentPath: null,
  });
  const r = await unit.read();
  const text = r.papers.flatMap((p) => p.sentences.map((s) => s.text)).join(' ');
  assert.doesNotMatch(text, /hunter2/);
  assert.match(text, /harmless things/);
  const warnings = (r.warnings ?? []).map((w) => w.reason).join('\n');
  assert.match(warnings, /mallory2024: attachment key '\.\.\/\.\.\/outside' is not a Zotero key/);
  assert.match(
    warnings,
    /mallory2024: attachment ABCD2345: 'storage:\.\.\/\.\.\/\.\.\/outside\/secret\.pdf' leaves its storage folder; not read/,
  );
});
