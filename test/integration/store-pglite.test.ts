// The store contract on embedded PGlite (one database for the whole file: initdb costs ~4.5 s).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openPGliteStore } from '../../src/core/store/pglite.js';
import type { SqlCorpusStore } from '../../src/core/store/sql.js';
import { countTrips } from '../support/db-trips.js';
import { storeContract } from '../support/db-contract.js';
import { loadFixture } from '../support/db-fixture.js';

let store: SqlCorpusStore;
let trips = 0;
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-pglite-'));

before(async () => {
  store = await openPGliteStore(join(dir, 'nested', 'corpus'));
  countTrips(store.driver, () => trips++);
  // deferIndexesFrom 1: the first import drops the HNSW/full-text indexes and rebuilds them at the end.
  assert.equal(await loadFixture(store, 64, { deferIndexesFrom: 1 }), 14);
  const idx = await store.driver.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'sentences' ORDER BY 1`);
  assert.deepEqual(
    idx.rows.map((r) => r.indexname),
    ['sentences_embedding_hnsw', 'sentences_global', 'sentences_pkey', 'sentences_position', 'sentences_text_fts'],
  );
});

after(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

storeContract({
  store: () => store,
  roundTrips: () => trips,
  reimport: () => loadFixture(store),
  keyword: true,
});

test('a corpus persisted in a folder reopens with its metadata and rows', async () => {
  await store.close();
  store = await openPGliteStore(join(dir, 'nested', 'corpus'));
  countTrips(store.driver, () => trips++);
  const meta = await store.meta();
  assert.equal(meta?.model, 'test-hash-64');
  assert.equal(meta?.dimensions, 64);
  assert.deepEqual(await store.counts(), { papers: 3, sentences: 14 });
  await assert.rejects(store.init({ model: 'other', dimensions: 64 }), /corpus was built with test-hash-64 \(64-d\); query embedding is other \(64-d\)/);
});

test('a failing paper in a group is retried alone and named; the others land', async () => {
  const v = new Float32Array(64).fill(0.1);
  const good = { id: 'g1', sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, text: 'good one', embedding: v }] };
  // A NULL text violates NOT NULL: the group transaction fails, each paper is retried alone, b1 is named.
  const bad = { id: 'b1', sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, text: null as unknown as string, embedding: v }] };
  await assert.rejects(store.writePapers([good, bad]), /paper b1: null value in column "text"/);
  const r = await store.driver.query(`SELECT count(*)::int AS n FROM sentences WHERE paper_id = 'g1'`);
  assert.equal(r.rows[0].n, 1);
});
