// A corpus's index precision (float32 or half, schema v11) and the exact scan of a small paper filter, on a real
// PostgreSQL 15 + pgvector server (and the 3072-d corpus also on PGlite). What the planner does is read from its
// plans: EXPLAIN of the store's prepared statements, and auto_explain of the statements inside the lookup functions.
// Skipped with a reason where the server is absent, except CI=true.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openPGliteStore } from '../../src/core/store/backends/pglite.js';
import { openPostgresStore } from '../../src/core/store/backends/postgres.js';
import { hybridStatement, matchStatement } from '../../src/core/store/sql/ranking.js';
import { SCHEMA_VERSION, schemaSql, type IndexPrecision } from '../../src/core/store/sql/schema.js';
import { vectorIndex } from '../../src/core/store/sql/vector.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import { vectorText } from '../../src/core/store/rows.js';
import type { PaperInput } from '../../src/core/store/types.js';
import { DIM, q } from '../support/db-contract.js';
import { mulberry32 } from '../../src/core/random.js';
import { loadFixture } from '../support/db-fixture.js';
import { realPgSkip, startRealPg, type RealPg } from '../support/pg-real.js';

const skip = realPgSkip();

/** Deterministic unit vectors (components uniform in ±0.5 from a seeded mulberry32, normalised). */
function vectors(seed: number, count: number, dims: number): Float32Array[] {
  const next = mulberry32(seed);
  const u = () => next() - 0.5;
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: dims }, u);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  });
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

/** `papers` papers of `per` sentences each, one section, random vectors. */
function randomPapers(papers: number, per: number, dims: number, seed = 1): PaperInput[] {
  const vs = vectors(seed, papers * per, dims);
  return Array.from({ length: papers }, (_, p) => ({
    id: `p${p}`,
    year: 2000 + (p % 20),
    sentences: Array.from({ length: per }, (_, i) => ({
      sectionIndex: 0,
      sentenceIndex: i,
      globalIndex: i,
      text: `sentence ${i} of paper ${p}`,
      embedding: vs[p * per + i],
    })),
  }));
}

/**
 * The plan of every statement run inside `fn` (auto_explain, nested statements included; `analyze`: with what each
 * node did), one string per statement starting at its query text.
 */
async function plansOf(url: string, fn: (c: pg.Client) => Promise<unknown>, analyze = false): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const notices: string[] = [];
  c.on('notice', (n) => notices.push(n.message ?? ''));
  try {
    await c.query(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
      SET auto_explain.log_analyze = ${analyze}; SET client_min_messages = log; SET enable_seqscan = off`);
    await fn(c);
  } finally {
    await c.end();
  }
  return notices.join('\n').split('Query Text:').slice(1);
}

/** The one plan whose statement matches `re`. */
function planOf(plans: string[], re: RegExp): string {
  const found = plans.filter((p) => re.test(p));
  assert.equal(found.length, 1, `one statement matching ${re} among:\n${plans.map((p) => p.slice(0, 120)).join('\n')}`);
  return found[0];
}

describe('index precision and small paper filters on a real PostgreSQL 15 + pgvector server', { skip }, () => {
  let server: RealPg;
  const stores: SqlCorpusStore[] = [];
  const open = async (db: string) => {
    const url = await server.createDatabase(db);
    const store = await openPostgresStore(url);
    stores.push(store);
    return { url, store };
  };

  before(async () => {
    server = await startRealPg();
  });
  after(async () => {
    for (const s of stores) await s.close().catch(() => undefined);
    await server?.stop();
  });

  test('a new PostgreSQL corpus is half: its HNSW indexes are over the halfvec cast, and match, hybrid and match_sentences order through them', async () => {
    const { url, store } = await open('half');
    assert.equal(await loadFixture(store), 14);
    const meta = await store.meta();
    assert.equal(meta?.indexPrecision, 'half');
    const { rows } = await store.driver.query(`SELECT indexname, indexdef FROM pg_indexes WHERE indexdef LIKE '%hnsw%' ORDER BY 1`);
    assert.deepEqual(
      rows.map((r) => r.indexname),
      ['elements_embedding_hnsw', 'sections_embedding_hnsw', 'sentences_embedding_hnsw'],
    );
    for (const r of rows) assert.match(String(r.indexdef), new RegExp(`\\(\\(embedding\\)::halfvec\\(${DIM}\\)\\) halfvec_cosine_ops`));

    const v = vectorIndex(DIM, 'half');
    const query = vectorText(q('Sentence embeddings map similar sentences to nearby vectors.').vector);
    // With sequential scans priced out, a plan without the index would mean the ORDER BY does not match it.
    const plans = await plansOf(url, async (c) => {
      await c.query(matchStatement(5, v), [query, null, 0]);
      await c.query(hybridStatement(5, 20, v), [query, 'sentence embeddings', 0, 60, 1, 0]);
      await c.query(`SELECT * FROM match_sentences($1::vector, NULL, 5, 0, 2019, NULL, NULL)`, [query]);
      await c.query(`SELECT * FROM match_elements($1::vector, 'figure', 5)`, [query]);
    });
    // The store's prepared statements, and the statement inside match_sentences (a year filter: no exact scan).
    assert.match(planOf(plans, /^\s*WITH top AS MATERIALIZED/), /Index Scan using sentences_embedding_hnsw/);
    const hybridPlan = planOf(plans, /^\s*WITH v AS MATERIALIZED \(SELECT s\.id/);
    assert.match(hybridPlan, /Index Scan using sentences_embedding_hnsw/);
    assert.match(hybridPlan, /Index Scan using sections_embedding_hnsw/);
    assert.match(planOf(plans, /^\s*WITH top_all AS MATERIALIZED/), /Index Scan using sentences_embedding_hnsw/);
    assert.match(planOf(plans, /FROM elements e\s+WHERE query_embedding IS NOT NULL/), /Index Scan using elements_embedding_hnsw/);

    // And the hits: the sentence itself first, its similarity exact (computed from the float32 column).
    const [top] = await store.matchVector(q('Sentence embeddings map similar sentences to nearby vectors.').vector, { count: 3 });
    assert.equal(top.sentence.text, 'Sentence embeddings map similar sentences to nearby vectors.');
    assert.ok(Math.abs(top.similarity - 1) < 1e-6, `similarity ${top.similarity}`);
  });

  test('a float32 corpus from before v11 (no recorded precision) is upgraded, stays float32 and answers through its index', async () => {
    const { url, store } = await open('float32');
    await store.init({ model: `test-hash-${DIM}`, dimensions: DIM, indexPrecision: 'float32' });
    assert.equal(await loadFixture(store), 14);
    await store.driver.exec(
      `DELETE FROM corpus_meta WHERE key = 'index_precision'; UPDATE corpus_meta SET value = '10' WHERE key = 'schema_version'`,
    );
    await store.close();
    const reopened = await openPostgresStore(url);
    stores.push(reopened);
    const meta = await reopened.meta();
    assert.equal(meta?.schemaVersion, SCHEMA_VERSION);
    assert.equal(meta?.indexPrecision, 'float32');
    const recorded = await reopened.driver.query(`SELECT value FROM corpus_meta WHERE key = 'index_precision'`);
    assert.equal(recorded.rows[0]?.value, 'float32');
    const idx = await reopened.driver.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'sentences_embedding_hnsw'`);
    assert.match(String(idx.rows[0].indexdef), /USING hnsw \(embedding vector_cosine_ops\)/);
    const query = vectorText(q('Cosine similarity ranks the candidate sentences.').vector);
    const plans = await plansOf(url, (c) => c.query(`SELECT * FROM match_sentences($1::vector, NULL, 5, 0, 2019, NULL, NULL)`, [query]));
    assert.match(planOf(plans, /^\s*WITH top_all AS MATERIALIZED/), /Index Scan using sentences_embedding_hnsw on sentences s/);
    const [top] = await reopened.matchVector(q('Cosine similarity ranks the candidate sentences.').vector, { count: 3 });
    assert.equal(top.sentence.text, 'Cosine similarity ranks the candidate sentences.');
    // Its migration cannot be replaced by the other precision's functions.
    await assert.rejects(server.sql(schemaSql(DIM, 'half'), 'float32'), /vector indexes are float32, not half/);
  });

  test('3072-d embeddings: the corpus is half, its HNSW index builds, and it answers; 4001-d is refused before anything is written', async () => {
    const { store } = await open('wide');
    await checkWide(store, 'half');
    const { store: wider } = await open('wider');
    await assert.rejects(wider.init({ model: 'm', dimensions: 4001 }), (err: Error) => {
      assert.equal(err.name, 'StoreError');
      assert.match(
        err.message,
        /4001-d embeddings cannot be indexed: pgvector's HNSW index takes at most 2000 dimensions in float32 and 4000 in half precision/,
      );
      return true;
    });
    const { rows } = await wider.driver.query(`SELECT to_regclass('corpus_meta') IS NULL AS empty`);
    assert.equal(rows[0].empty, true);
    await assert.rejects(
      wider.init({ model: 'm', dimensions: 3072, indexPrecision: 'float32' }),
      /at most 2000 dimensions in float32.*\(use half\)/,
    );
  });

  test('a small paper filter is ranked by an exact scan: the exact top k where the HNSW scan with the filter misses, whatever the planner', async () => {
    const { url, store } = await open('exact');
    await store.init({ model: 'm', dimensions: DIM });
    // A sparse graph (m 2, ef_construction 4) that a filtered search at a small ef_search gets wrong.
    await store.dropSearchIndexes();
    const papers = randomPapers(60, 40, DIM);
    await store.writePapers(papers);
    await store.createSearchIndexes({ m: 2, efConstruction: 4 });
    const wanted = ['p3', 'p17', 'p41'];
    const rows = papers
      .filter((p) => wanted.includes(p.id))
      .flatMap((p) => p.sentences.map((s) => ({ p: p.id, g: s.globalIndex, v: s.embedding })));
    const [query] = vectors(99, 1, DIM);
    const exact = rows
      .map((r) => ({ key: `${r.p}/${r.g}`, sim: cosine(r.v, query) }))
      .sort((a, b) => b.sim - a.sim)
      .slice(0, 10)
      .map((r) => r.key);

    // The same filtered ORDER BY through the HNSW index (the plan the planner may pick), forced here: it misses rows.
    const forced = await plansOf(url, async (c) => {
      await c.query(`SET enable_bitmapscan = off; SET enable_sort = off; SET hnsw.ef_search = 10; SET hnsw.iterative_scan = off`);
      const r = await c.query(
        `SELECT s.paper_id || '/' || s.global_index AS key FROM sentences s WHERE s.paper_id = ANY ($2)
         ORDER BY (s.embedding)::halfvec(${DIM}) <=> ($1::vector)::halfvec(${DIM}) LIMIT 10`,
        [vectorText(query), wanted],
      );
      const keys = r.rows.map((x) => String(x.key));
      assert.notDeepEqual(keys, exact, 'the HNSW scan with the filter finds the exact top 10 (the test would prove nothing)');
    });
    assert.match(planOf(forced, /ORDER BY \(s\.embedding\)::halfvec/), /Index Scan using sentences_embedding_hnsw/);

    // match_sentences under the same settings: the exact top 10, and its HNSW branch never runs.
    const plans = await plansOf(
      url,
      async (c) => {
        await c.query(`SET enable_bitmapscan = off; SET enable_sort = off; SET hnsw.ef_search = 10; SET hnsw.iterative_scan = off`);
        const r = await c.query(`SELECT sentence FROM match_sentences($1::vector, NULL, 10, 0, NULL, NULL, $2)`, [
          vectorText(query),
          wanted,
        ]);
        assert.deepEqual(
          r.rows.map((x) => `${x.sentence.paperId}/${x.sentence.globalIndex}`),
          exact,
        );
        const h = await c.query(`SELECT sentence FROM hybrid_sentences($1::vector, 'sentence', 10, 0, NULL, NULL, $2)`, [
          vectorText(query),
          wanted,
        ]);
        assert.ok(h.rows.length > 0 && h.rows.every((x) => wanted.includes(x.sentence.paperId)));
      },
      true,
    );
    // In both functions the HNSW branch is planned but never executed (a one-time false filter), whatever it costs.
    for (const re of [/^\s*WITH top_all AS MATERIALIZED/, /^\s*WITH v_all AS MATERIALIZED/]) {
      const p = planOf(plans, re);
      assert.match(p, /Seq Scan on top_all|CTE Scan on (top_all|v_all)/);
      for (const line of p.split('\n').filter((l) => /Index Scan using (sentences|sections)_embedding_hnsw/.test(l))) {
        assert.match(line, /never executed/, line);
      }
    }
    const hits = await store.matchVector(query, { count: 10, paperIds: wanted });
    assert.deepEqual(
      hits.map((h) => `${h.sentence.paperId}/${h.sentence.globalIndex}`),
      exact,
    );
  });
});

/** A 3072-d corpus (OpenAI text-embedding-3-large): built, indexed at `precision`, answering its own sentence first. */
async function checkWide(store: SqlCorpusStore, precision: IndexPrecision): Promise<void> {
  const papers = randomPapers(2, 5, 3072, 7);
  await store.init({ model: 'openai:text-embedding-3-large', dimensions: 3072 });
  assert.equal((await store.meta())?.indexPrecision, precision);
  await store.writePapers(papers);
  const { rows } = await store.driver.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'sentences_embedding_hnsw'`);
  assert.match(String(rows[0].indexdef), /halfvec\(3072\)\) halfvec_cosine_ops/);
  const target = papers[1].sentences[2];
  const [top] = await store.matchVector(target.embedding, { count: 3 });
  assert.equal(top.sentence.text, target.text);
  assert.ok(Math.abs(top.similarity - 1) < 1e-5, `similarity ${top.similarity}`);
}

test('3072-d embeddings in PGlite: the corpus is half (float32 cannot be indexed past 2,000), builds and answers', async () => {
  // pgvector's HNSW in PGlite, which serves where the native index cannot load (a native corpus builds none).
  const store = await openPGliteStore('memory://', { nativeIndex: false });
  try {
    await checkWide(store, 'half');
  } finally {
    await store.close();
  }
});

test('a new PGlite corpus is float32; asking an existing corpus for another precision is refused, and it keeps its own', async () => {
  const store = await openPGliteStore('memory://');
  try {
    assert.equal((await store.init({ model: 'm', dimensions: 384 })).indexPrecision, 'float32');
    await assert.rejects(
      store.init({ model: 'm', dimensions: 384, indexPrecision: 'half' }),
      /indexes are float32; half precision applies to a new corpus only/,
    );
    assert.equal((await store.init({ model: 'm', dimensions: 384, indexPrecision: 'float32' })).indexPrecision, 'float32');
    assert.equal((await store.meta())?.indexPrecision, 'float32');
  } finally {
    await store.close();
  }
});
