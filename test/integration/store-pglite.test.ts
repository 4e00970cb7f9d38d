// The store contract on embedded PGlite (one database for the whole file: initdb costs ~4.5 s), with pgvector's HNSW
// index serving vector lookups, as where the native index cannot load (store-remote.test.ts runs the contract with
// the native index, in the corpus process).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { keywordSearch } from '../../src/core/retrieve/index.js';
import { openPGliteStore } from '../../src/core/store/backends/pglite.js';
import { SCHEMA_VERSION } from '../../src/core/store/sql/schema.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import { toHit } from '../../src/core/store/rows.js';
import { hashEmbed } from '../support/db-embedder.js';
import { countTrips } from '../support/db-trips.js';
import { storeContract } from '../support/db-contract.js';
import { loadFixture } from '../support/db-fixture.js';
import { LATIN_TITLE_KEYS, OTHER_TITLE_KEYS } from '../support/title-keys.js';

let store: SqlCorpusStore;
let trips = 0;
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-pglite-'));
const openCorpus = () => openPGliteStore(join(dir, 'nested', 'corpus'), { nativeIndex: false });

before(async () => {
  store = await openCorpus();
  countTrips(store.driver, () => trips++);
  // deferIndexesFrom 1: the first import drops the HNSW/full-text indexes and rebuilds them at the end.
  assert.equal(await loadFixture(store, 64, { deferIndexesFrom: 1 }), 14);
  const idx = await store.driver.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'sentences' ORDER BY 1`);
  assert.deepEqual(
    idx.rows.map((r) => r.indexname),
    ['sentences_embedding_hnsw', 'sentences_global', 'sentences_pkey', 'sentences_position', 'sentences_tsv'],
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
  backend: 'embedded PGlite',
});

test('a corpus persisted in a folder reopens with its metadata and rows', async () => {
  await store.close();
  store = await openCorpus();
  countTrips(store.driver, () => trips++);
  const meta = await store.meta();
  assert.equal(meta?.model, 'test-hash-64');
  assert.equal(meta?.dimensions, 64);
  assert.deepEqual(await store.counts(), { papers: 3, sentences: 14 });
  await assert.rejects(
    store.init({ model: 'other', dimensions: 64 }),
    /corpus was built with test-hash-64 \(64-d\); query embedding is other \(64-d\)/,
  );
});

test('a bulk load leaves no write-ahead log behind: 50 MB of writes, then the load ends, and pg_wal keeps ≤ 2 segments', async () => {
  const wal = () => readdirSync(join(dir, 'nested', 'corpus', 'pg_wal')).filter((f) => /^[0-9A-F]{24}$/.test(f)).length;
  // 50,000 rows of 1 kB (below the size PostgreSQL compresses): ~55 MB of log, three segments and more.
  await store.driver.exec(`CREATE TABLE wal_filler AS SELECT repeat(md5(i::text), 32) AS t FROM generate_series(1, 50000) i;
    DROP TABLE wal_filler`);
  assert.ok(wal() > 3, `the writes filled ${wal()} segments`);
  await store.dropSearchIndexes();
  await store.createSearchIndexes();
  // PGlite has no checkpointer and recycles retired segments by default: the folder kept them while open (and after).
  assert.ok(wal() <= 2, `${wal()} segments of 16 MB left`);
  assert.deepEqual(await store.counts(), { papers: 3, sentences: 14 });
});

test('a failing paper in a group is retried alone and named; the others land', async () => {
  const v = new Float32Array(64).fill(0.1);
  const good = { id: 'g1', sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, text: 'good one', embedding: v }] };
  // A NULL text violates NOT NULL: the group transaction fails, each paper is retried alone, b1 is named.
  const bad = {
    id: 'b1',
    sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, text: null as unknown as string, embedding: v }],
  };
  await assert.rejects(store.writePapers([good, bad]), /paper b1: null value in column "text"/);
  const r = await store.driver.query(`SELECT count(*)::int AS n FROM sentences WHERE paper_id = 'g1'`);
  assert.equal(r.rows[0].n, 1);
});

/** term_stats/fts_totals as the triggers keep them vs a recount from the stored lexemes. */
async function statsDrift(): Promise<{ kept: number; recount: number; differ: number; totals: boolean }> {
  const q = (sql: string) => store.driver.query(sql).then((r) => r.rows[0]);
  const differ = await q(`SELECT count(*)::int AS n FROM term_stats t
    FULL JOIN ts_stat('SELECT tsv FROM sentences') s ON s.word = t.term WHERE t.df IS DISTINCT FROM s.ndoc`);
  const totals = await q(`SELECT f.documents = (SELECT count(*) FROM sentences)
    AND f.lexemes = (SELECT coalesce(sum(length(tsv)), 0) FROM sentences) AS ok FROM fts_totals f`);
  const kept = await q(`SELECT count(*)::int AS n FROM term_stats`);
  const recount = await q(`SELECT count(*)::int AS n FROM ts_stat('SELECT tsv FROM sentences')`);
  return { kept: Number(kept.n), recount: Number(recount.n), differ: Number(differ.n), totals: Boolean(totals.ok) };
}

test('BM25 statistics stay exact through inserts, deletes and text updates', async () => {
  const start = await statsDrift();
  assert.ok(start.kept > 20, `term_stats holds the corpus's lexemes (${start.kept})`);
  assert.deepEqual(start, { ...start, differ: 0, totals: true });
  const v = new Float32Array(64).fill(0.1);
  await store.writePapers([
    {
      id: 'stats1',
      sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, text: 'Zygomorphic flowers attract bees.', embedding: v }],
    },
  ]);
  assert.equal((await statsDrift()).differ, 0);
  assert.equal((await keywordSearch(store, 'zygomorphic', { k: 3 }))[0]?.paper.id, 'stats1');
  await store.driver.query(`UPDATE sentences SET text = 'Actinomorphic flowers attract bees.' WHERE paper_id = 'stats1'`);
  assert.deepEqual(await keywordSearch(store, 'zygomorphic', { k: 3 }), []);
  await store.deletePapers(['stats1']);
  const end = await statsDrift();
  assert.deepEqual(end, { ...start });
});

test('keyword ranking with more candidates than it re-scores keeps the section signal', async () => {
  // 600 candidates (every sentence holds "quokka"), more than the 400 whose sections' lexemes are read. The target
  // sentence is long (a low BM25 of its own) in the one section about quokka burrows; its twin stands in a filler
  // section. Exact BM25 + 2 × section BM25 ranks the target within the top 25 and above its twin; a bound that
  // kept the 400 best sentences by their own score alone would drop it.
  const v = new Float32Array(64).fill(0.1);
  const long = 'The quokka rested near a wide river bank after the long dry season ended far in the north of the island.';
  const sentence = (sectionIndex: number, sentenceIndex: number, text: string) => ({
    sectionIndex,
    sentenceIndex,
    globalIndex: sectionIndex * 10 + sentenceIndex,
    text,
    embedding: v,
  });
  const papers = Array.from({ length: 60 }, (_, p) => ({
    id: `quokka${p}`,
    sentences: Array.from({ length: 10 }, (_, i) =>
      sentence(0, i, p === 0 && i === 9 ? long : `A quokka appeared in sample ${p * 10 + i}.`),
    ),
  }));
  papers.push({
    id: 'burrows',
    sentences: [
      ...Array.from({ length: 9 }, (_, i) =>
        sentence(0, i, `Each quokka burrow holds a quokka, and the burrow ${i} quokka stays in its burrow.`),
      ),
      sentence(0, 9, long),
    ],
  });
  await store.writePapers(papers);
  try {
    const { rows } = await store.driver.query(`SELECT count(*)::int AS n FROM sentences WHERE tsv @@ 'quokka'::tsquery`);
    assert.ok(Number(rows[0].n) > 400, `more candidates (${rows[0].n}) than are re-scored`);
    const hits = await keywordSearch(store, 'quokka burrow', { k: 25 });
    const rank = (paper: string) => hits.findIndex((h) => h.paper.id === paper && h.sentence.text === long);
    assert.ok(rank('burrows') >= 0, 'the long sentence of the burrow section is among the top 25');
    assert.ok(rank('quokka0') < 0 || rank('quokka0') > rank('burrows'), 'its twin in a filler section ranks below it');
  } finally {
    await store.deletePapers(papers.map((p) => p.id));
  }
});

test('ef_search grows with the corpus: 100 up to 100k sentences, 200 above, 400 at 1M (filtered 800), at most 1,000', async () => {
  const ef = async (documents: number) => {
    await store.driver.query('UPDATE fts_totals SET documents = $1', [documents]);
    const { rows } = await store.driver.query('SELECT lookup_ef_search(false) AS plain, lookup_ef_search(true) AS filtered');
    return [rows[0].plain, rows[0].filtered];
  };
  const { rows } = await store.driver.query('SELECT documents FROM fts_totals');
  try {
    assert.deepEqual(await ef(14), [100, 400]);
    assert.deepEqual(await ef(100_000), [100, 400]);
    assert.deepEqual(await ef(100_001), [200, 400]);
    assert.deepEqual(await ef(400_000), [200, 400]);
    assert.deepEqual(await ef(600_000), [240, 480]);
    assert.deepEqual(await ef(1_000_000), [400, 800]);
    assert.deepEqual(await ef(5_000_000), [1000, 1000]);
  } finally {
    await store.driver.query('UPDATE fts_totals SET documents = $1', [rows[0].documents]);
  }
  // This store's own connection (its prepared lookups) takes the size rule at its first lookup.
  await store.matchVector(new Float32Array(64).fill(0.1), { count: 1 });
  const { rows: now } = await store.driver.query(`SELECT current_setting('hnsw.ef_search') AS ef`);
  assert.equal(now[0].ef, '100');
});

test('a schema v1 corpus is upgraded in place on open: lexemes stored, BM25 statistics computed', async () => {
  await store.driver.exec(`DROP FUNCTION bm25_sentences; DROP TABLE term_stats; DROP TABLE fts_totals;
    DROP TRIGGER sentences_stats_insert ON sentences; DROP TRIGGER sentences_stats_delete ON sentences;
    DROP TRIGGER sentences_stats_update ON sentences; ALTER TABLE sentences DROP COLUMN tsv;
    UPDATE corpus_meta SET value = '1' WHERE key = 'schema_version'`);
  await store.close();
  store = await openCorpus();
  assert.equal((await store.meta())?.schemaVersion, SCHEMA_VERSION);
  const kw = await keywordSearch(store, 'BM25', { k: 5 });
  assert.equal(kw[0]?.sentence.text, 'BM25 remains a strong baseline for keyword retrieval.');
  assert.deepEqual((await statsDrift()).differ, 0);
});

test('a schema v3 corpus gains the paper ranking on open', async () => {
  await store.driver.exec(`DROP FUNCTION rank_papers; UPDATE corpus_meta SET value = '3' WHERE key = 'schema_version'`);
  await store.close();
  store = await openCorpus();
  assert.equal((await store.meta())?.schemaVersion, SCHEMA_VERSION);
  const text = 'BM25 remains a strong baseline for keyword retrieval.';
  const { rows } = await store.driver.query(`SELECT embedding::text AS embedding FROM sentences WHERE text = $1`, [text]);
  const vector = Float32Array.from(JSON.parse(String(rows[0].embedding)) as number[]);
  const hits = await store.matchPapers(vector, text, { count: 2 });
  assert.equal(hits[0]?.sentence.text, text);
});

test('a schema v5 corpus gains the section index and whole heap rows on open; hybrid hits are unchanged', async () => {
  const text = 'BM25 remains a strong baseline for keyword retrieval.';
  const { rows } = await store.driver.query(`SELECT embedding::text AS embedding FROM sentences WHERE text = $1`, [text]);
  const vector = Float32Array.from(JSON.parse(String(rows[0].embedding)) as number[]);
  const hits = async () => (await store.matchHybrid(vector, text, { count: 10 })).map((h) => `${h.sentence.id}:${h.score.toFixed(9)}`);
  const before = await hits();
  assert.ok(before.length > 0);
  await store.driver.exec(`DROP INDEX sections_embedding_hnsw; ALTER TABLE sections RESET (toast_tuple_target);
    ALTER TABLE sentences RESET (toast_tuple_target); UPDATE corpus_meta SET value = '5' WHERE key = 'schema_version'`);
  await store.close();
  store = await openCorpus();
  assert.equal((await store.meta())?.schemaVersion, SCHEMA_VERSION);
  const idx = await store.driver.query(`SELECT to_regclass('sections_embedding_hnsw') IS NOT NULL AS ok`);
  assert.equal(idx.rows[0].ok, true);
  const opts = await store.driver.query(
    `SELECT relname, reloptions::text AS o FROM pg_class WHERE relname IN ('sections', 'sentences') ORDER BY relname`,
  );
  assert.deepEqual(
    opts.rows.map((r) => [r.relname, r.o]),
    [
      ['sections', '{toast_tuple_target=8160}'],
      ['sentences', '{toast_tuple_target=8160}'],
    ],
  );
  assert.deepEqual(await hits(), before);
  assert.deepEqual((await statsDrift()).differ, 0);
});

test('a schema v6 corpus gains the elements table and lookups on open, nothing else recounted; its papers take elements', async () => {
  await store.driver.exec(`DROP FUNCTION match_elements; DROP FUNCTION linked_elements; DROP FUNCTION list_elements; DROP TABLE elements;
    UPDATE corpus_meta SET value = '6' WHERE key = 'schema_version'`);
  await store.close();
  store = await openCorpus();
  assert.equal((await store.meta())?.schemaVersion, SCHEMA_VERSION);
  assert.deepEqual(await store.listElements({ count: 10 }), []);
  const v = new Float32Array(64).fill(0.2);
  const w = await store.writePapers([
    {
      id: 'v7',
      sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, text: 'A paper written after the upgrade.', embedding: v }],
      elements: [
        {
          type: 'figure',
          label: 'Figure 1',
          caption: 'After the upgrade.',
          content: null,
          sectionTitle: null,
          sectionIndex: 0,
          afterSentence: 0,
          page: null,
          bbox: null,
          elementIndex: 0,
          embedding: v,
        },
      ],
    },
  ]);
  assert.equal(w.elements, 1);
  assert.equal((await store.matchElements(v, 'upgrade', { count: 1 }))[0].element.label, 'Figure 1');
  await store.deletePapers(['v7']);
  assert.deepEqual((await statsDrift()).differ, 0);
});

test('a schema v7 corpus gains the PDF line range columns on open (its rows keep null lines); its papers take lines', async () => {
  const v = new Float32Array(64).fill(0.3);
  await store.writePapers([
    {
      id: 'pdf7',
      contentHash: 'abc',
      sentences: [
        { sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, page: 2, text: 'A PDF sentence indexed under schema v7.', embedding: v },
      ],
    },
    {
      id: 'tex7',
      contentHash: 'def',
      sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, text: 'A LaTeX sentence indexed under schema v7.', embedding: v }],
    },
  ]);
  const before = (await store.counts()).sentences;
  await store.driver.exec(`ALTER TABLE sentences DROP COLUMN line_start, DROP COLUMN line_end, DROP COLUMN page_end;
    UPDATE corpus_meta SET value = '7' WHERE key = 'schema_version'`);
  await store.close();
  store = await openCorpus();
  assert.equal((await store.meta())?.schemaVersion, SCHEMA_VERSION);
  const old = await store.driver.query(
    `SELECT count(*)::int AS n FROM sentences WHERE line_start IS NULL AND line_end IS NULL AND page_end IS NULL`,
  );
  assert.equal(old.rows[0].n, before, 'the rows already there have no lines until their PDF is indexed again');
  const hashes = await store.driver.query(`SELECT id, content_hash FROM papers WHERE id IN ('pdf7', 'tex7') ORDER BY id`);
  assert.deepEqual(
    hashes.rows.map((r) => [r.id, r.content_hash === null]),
    [
      ['pdf7', true],
      ['tex7', false],
    ],
    'a paper read from a PDF forgets its content hash, so that the next index run reads it again; others keep theirs',
  );
  await store.deletePapers(['pdf7', 'tex7']);
  await store.writePapers([
    {
      id: 'v8',
      sentences: [
        {
          sectionIndex: 0,
          sentenceIndex: 0,
          globalIndex: 0,
          page: 5,
          lineStart: 7,
          lineEnd: 9,
          pageEnd: 5,
          text: 'A PDF sentence written after the upgrade.',
          embedding: v,
        },
      ],
    },
  ]);
  const { rows } = await store.driver.query(`SELECT id FROM sentences WHERE paper_id = 'v8'`);
  assert.deepEqual(await store.sentencePages([Number(rows[0].id)]), [
    { id: Number(rows[0].id), page: 5, lineStart: 7, lineEnd: 9, pageEnd: 5 },
  ]);
  await store.deletePapers(['v8']);
  assert.deepEqual((await statsDrift()).differ, 0);
});

test('a schema v11 corpus gets the v12 size rule on open: ef_search 200 above 100k sentences', async () => {
  const efAt = async (documents: number) => {
    const { rows } = await store.driver.query('SELECT documents FROM fts_totals');
    await store.driver.query('UPDATE fts_totals SET documents = $1', [documents]);
    try {
      return (await store.driver.query('SELECT lookup_ef_search(false) AS ef')).rows[0].ef;
    } finally {
      await store.driver.query('UPDATE fts_totals SET documents = $1', [rows[0].documents]);
    }
  };
  // The v11 function: 100 up to 250k sentences, then n / 2,500.
  await store.driver.exec(`CREATE OR REPLACE FUNCTION lookup_ef_search(filtered boolean DEFAULT false) RETURNS int
    LANGUAGE sql STABLE AS $fn$
      SELECT least(1000, greatest(CASE WHEN filtered THEN 400 ELSE 100 END,
        (CASE WHEN filtered THEN 2 ELSE 1 END) * ceil(coalesce(max(documents), 0) / 2500.0)::int)) FROM fts_totals
    $fn$; UPDATE corpus_meta SET value = '11' WHERE key = 'schema_version'`);
  assert.equal(await efAt(300_000), 120);
  await store.close();
  store = await openCorpus();
  assert.equal((await store.meta())?.schemaVersion, SCHEMA_VERSION);
  assert.equal(await efAt(300_000), 200);
});

test('a schema v8 corpus gets the current match_sentences on open: a filtered match searches with ef_search ≥ 400', async () => {
  const def = async () => String((await store.driver.query(`SELECT pg_get_functiondef('match_sentences'::regproc) AS d`)).rows[0].d);
  assert.match(
    await def(),
    /set_config\('hnsw\.ef_search', greatest\(current_setting\('hnsw\.ef_search'\)::int,\s+lookup_ef_search\(year_min IS NOT NULL/,
  );
  // The v8 function: the same body without the raise.
  const v8 = (await def()).replace(/\n\s*PERFORM set_config\('hnsw\.ef_search'[\s\S]*?true\);/, '');
  assert.doesNotMatch(v8, /set_config\('hnsw\.ef_search'/);
  await store.driver.exec(`${v8}; UPDATE corpus_meta SET value = '8' WHERE key = 'schema_version'`);
  await store.close();
  store = await openCorpus();
  assert.equal((await store.meta())?.schemaVersion, SCHEMA_VERSION);
  assert.match(await def(), /set_config\('hnsw\.ef_search', greatest/);
  const v = new Float32Array(64).fill(0.3);
  await store.writePapers([
    {
      id: 'v9',
      year: 2024,
      sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, text: 'A sentence after the v9 upgrade.', embedding: v }],
    },
  ]);
  const hits = await store.matchVector(v, { count: 5, yearMin: 2024 });
  assert.ok(
    hits.some((h) => h.paper.id === 'v9'),
    'a filtered lookup still finds the paper of that year',
  );
  assert.ok(hits.every((h) => (h.paper.year ?? 0) >= 2024));
  await store.deletePapers(['v9']);
});

test("the unfiltered lookups' prepared statements (one JSON array a hit) give the lookup functions' hits, context and papers", async () => {
  const text = 'sentences retrieval writing authors strong baseline BM25';
  const v = hashEmbed(text, 64);
  for (const offset of [0, 1]) {
    const vector = await store.matchVector(v, { count: 25, offset });
    assert.ok(vector.length >= 8 && vector.some((h) => h.previous) && vector.some((h) => h.next), `${vector.length} hits`);
    const rows = await store.driver.lookup(`SELECT * FROM match_sentences($1, NULL, 25, $2)`, v, [offset]);
    assert.deepEqual(vector, rows.map(toHit));
    const hybrid = await store.matchHybrid(v, text, { count: 25, offset });
    assert.ok(hybrid.length >= 8);
    const fused = await store.driver.lookup(`SELECT * FROM hybrid_sentences($1, $2, 25, $3, candidate_count => 100)`, v, [text, offset]);
    assert.deepEqual(hybrid, fused.map(toHit));
  }
});

test('title_key (schema v18): Latin titles keep their v17 keys; Chinese, Japanese, Russian, Greek and Korean ones keep their letters', async () => {
  // A v17 corpus (its title_key kept only [a-z0-9]) gets the v18 function on open.
  await store.driver.exec(`CREATE OR REPLACE FUNCTION title_key(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
      SELECT regexp_replace(lower(t), '[^a-z0-9]+', '', 'g') $fn$; UPDATE corpus_meta SET value = '17' WHERE key = 'schema_version'`);
  await store.close();
  store = await openCorpus();
  assert.equal((await store.meta())?.schemaVersion, SCHEMA_VERSION);
  const all = [...LATIN_TITLE_KEYS, ...OTHER_TITLE_KEYS];
  const { rows } = await store.driver.query('SELECT title_key(t) AS k FROM unnest($1::text[]) WITH ORDINALITY u(t, i) ORDER BY i', [
    all.map(([t]) => t),
  ]);
  assert.deepEqual(
    rows.map((r) => r.k),
    all.map(([, k]) => k),
  );
});
