// The store contract on Supabase: the REAL supabase-js client against the local PostgREST stand-in
// (test/support/postgrest-standin.ts), which runs the SQL of src/core/store/sql/ on PGlite AND on a real
// PostgreSQL 15 + pgvector server (skipped with a reason where absent, except CI=true): the functions Supabase
// runs are tested on the server Supabase runs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freshPGlite } from '../support/db-pglite.js';
import { schemaSql } from '../../src/core/store/sql/schema.js';
import { openSupabaseStore, type SupabaseCorpusStore } from '../../src/core/store/backends/supabase.js';
import { storeContract } from '../support/db-contract.js';
import { loadFixture } from '../support/db-fixture.js';
import { realPgSkip, startRealPg } from '../support/pg-real.js';
import { pgStandinDb, startPostgrestStandin, type PostgrestStandin, type StandinDb } from '../support/postgrest-standin.js';

interface Database {
  db: StandinDb;
  /** Several statements (the user's migration). */
  exec(sql: string): Promise<unknown>;
  close(): Promise<void>;
}

const BACKENDS: { name: string; skip: string | false; open: () => Promise<Database> }[] = [
  {
    name: 'PGlite',
    skip: false,
    open: async () => {
      const db = await freshPGlite();
      return { db, exec: (sql) => db.exec(sql), close: () => db.close() };
    },
  },
  {
    name: 'PostgreSQL 15 + pgvector (real server)',
    skip: realPgSkip(),
    open: async () => {
      const server = await startRealPg();
      try {
        const db = await pgStandinDb(await server.createDatabase('supabase'));
        return { db, exec: (sql) => db.query(sql), close: async () => (await db.end(), await server.stop()) };
      } catch (err) {
        await server.stop();
        throw err;
      }
    },
  },
];

for (const backend of BACKENDS)
  describe(`Supabase store over the PostgREST stand-in on ${backend.name}`, { skip: backend.skip }, () => suite(backend));

function suite(backend: (typeof BACKENDS)[number]): void {
  let database: Database;
  let db: StandinDb;
  let standin: PostgrestStandin;
  let store: SupabaseCorpusStore;

  before(async () => {
    database = await backend.open();
    db = database.db;
    standin = await startPostgrestStandin(db, { key: 'test-service-key' });
    // Before the migration: a clear message that says what to run.
    const bare = await openSupabaseStore(standin.url, 'test-service-key');
    await assert.rejects(
      bare.init({ model: 'm', dimensions: 64 }),
      /no Corpus Lens schema: run `corpus-lens schema --print --dimensions 64`/,
    );
    await database.exec(schemaSql(64)); // the user's migration
    store = await openSupabaseStore(standin.url, 'test-service-key');
    assert.equal(await loadFixture(store), 14); // written through PostgREST (upserts)
  });

  after(async () => {
    await store?.close();
    await standin?.stop();
    await database?.close();
  });

  storeContract({
    store: () => store,
    roundTrips: () => standin.requests.length,
    reimport: () => loadFixture(store),
    keyword: true,
    backend: `supabase-js → PostgREST stand-in → ${backend.name}`,
  });

  test('every lookup is one POST /rest/v1/rpc/<fn> (the proposed papers its hits are marked from: read once a minute)', async () => {
    const { match } = await import('../../src/core/retrieve/index.js');
    const { q } = await import('../support/db-contract.js');
    const cold = standin.requests.length;
    await match(store, q('warm up'), { k: 3 });
    assert.deepEqual(
      standin.requests.slice(cold).map((r) => `${r.method} ${r.path}`),
      ['POST /rest/v1/rpc/match_sentences', 'GET /rest/v1/papers'],
    );
    const start = standin.requests.length;
    await match(store, q('Cosine similarity ranks the candidate sentences.'), { k: 25, offset: 1, years: { min: 2019 } });
    assert.deepEqual(
      standin.requests.slice(start).map((r) => `${r.method} ${r.path}`),
      ['POST /rest/v1/rpc/match_sentences'],
    );
  });

  test('a wrong key is refused with one clear line', async () => {
    await assert.rejects(openSupabaseStore(standin.url, 'wrong-key'), (err: Error) => {
      assert.match(err.message, /rejected the key \(HTTP 401: Invalid API key\); check SUPABASE_KEY/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
  });

  test('an unreachable project is one clear line', async () => {
    await assert.rejects(openSupabaseStore('http://127.0.0.1:9', 'k'), (err: Error) => {
      assert.match(err.message, /^cannot reach the corpus at http:\/\/127\.0\.0\.1:9: /);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
  });

  test('close() leaves no timer behind to keep a CLI run alive (supabase-js waits 10 s for a Realtime socket never opened)', async () => {
    const other = await openSupabaseStore(standin.url, 'test-service-key');
    // The client's timers only: the stand-in's pg pool sets its own idle timers in this process meanwhile.
    const timers: number[] = [];
    const real = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms?: number, ...args: unknown[]) => {
      if (/@supabase/.test(new Error().stack ?? '')) timers.push(ms ?? 0);
      return real(fn, ms, ...args);
    }) as typeof setTimeout;
    try {
      await other.close();
      await new Promise((r) => setImmediate(r));
    } finally {
      globalThis.setTimeout = real;
    }
    assert.deepEqual(timers, [], 'close() started a supabase-js timer');
  });

  test('counts come from HEAD requests with Prefer: count=exact', async () => {
    assert.deepEqual(await store.counts(), { papers: 3, sentences: 14 });
  });

  test('CLI: query --db supabase:<url> with SUPABASE_KEY, vector and keyword modes', async () => {
    const { createQueryCommand } = await import('../../src/cli/commands/query.js');
    const { HashEmbedder } = await import('../support/db-embedder.js');
    const out: string[] = [];
    const cmd = createQueryCommand({
      env: { SUPABASE_KEY: 'test-service-key' },
      stdout: (t) => void out.push(t),
      makeEmbedder: async () => new HashEmbedder(64),
    });
    assert.equal(
      await cmd.run(['--db', `supabase:${standin.url}`, '--k', '1', 'BM25 remains a strong baseline for keyword retrieval.']),
      0,
    );
    assert.equal(JSON.parse(out.join(''))[0].paper.venue, 'SIGIR');
    out.length = 0;
    assert.equal(await cmd.run(['--db', `supabase:${standin.url}`, '--mode', 'keyword', 'fusion']), 0);
    assert.equal(JSON.parse(out.join(''))[0].sentence.text, 'Hybrid retrieval with reciprocal rank fusion beats both rankings.');
  });

  test('sectionTitles: the section_titles RPC, a page at a time until an empty page', async () => {
    const start = standin.requests.length;
    const rows = await store.sectionTitles();
    assert.equal(rows.length, 5);
    assert.deepEqual(
      standin.requests.slice(start).map((r) => `${r.method} ${r.path}`),
      ['POST /rest/v1/rpc/section_titles', 'POST /rest/v1/rpc/section_titles'],
    );
    // Keyset pages: the rows after (p1, 1), two at a time.
    const page = (await db.query(`SELECT * FROM section_titles('p1', 1, 2)`)) as {
      rows: { paper_id: string; section_index: number; section_title: string }[];
    };
    assert.deepEqual(
      page.rows.map((r) => [r.paper_id, r.section_index, r.section_title]),
      [
        ['p2', 0, 'Introduction'],
        ['p2', 1, 'Results'],
      ],
    );
  });

  test('paperRows and listPapers: the paper_rows and list_papers RPCs, with pages, lines and vectors, in keyset pages', async () => {
    await database.exec(`UPDATE sentences SET page = 3, line_start = 4, line_end = 5 WHERE paper_id = 'p1' AND global_index = 1`);
    const start = standin.requests.length;
    const rows = await store.paperRows('p1', { embeddings: true });
    assert.deepEqual(
      standin.requests.slice(start).map((r) => `${r.method} ${r.path}`),
      ['POST /rest/v1/rpc/paper_rows'],
      'one request: a short page ends the read',
    );
    assert.deepEqual(
      rows.map((r) => [r.globalIndex, r.text.slice(0, 20), r.sectionTitle, r.page, r.lineStart, r.lineEnd]),
      [
        [0, 'Writing a related wo', 'Introduction', null, null, null],
        [1, 'Sentence embeddings ', 'Introduction', 3, 4, 5],
        [2, 'We retrieve sentence', 'Introduction', null, null, null],
        [3, 'We encode every corp', 'Method', null, null, null],
        [4, 'Cosine similarity ra', 'Method', null, null, null],
        [5, 'An HNSW index keeps ', 'Method', null, null, null],
      ],
    );
    assert.ok(rows.every((r) => r.embedding?.length === 64 && r.id > 0));
    assert.ok(
      (await store.paperRows('p1')).every((r) => r.embedding === null),
      'no vectors unless asked for',
    );
    assert.deepEqual(await store.paperRows('no-such-paper'), []);
    // Keyset pages: the sentences after global_index 3, two at a time.
    const page = (await db.query(`SELECT global_index FROM paper_rows('p1', 3, 2)`)) as { rows: { global_index: number }[] };
    assert.deepEqual(
      page.rows.map((r) => r.global_index),
      [4, 5],
    );

    const papers = await store.listPapers();
    assert.deepEqual(
      papers.map((p) => [p.id, p.title, p.authors, p.year, p.venue]),
      [
        ['p1', 'Dense retrieval of scientific sentences', ['Ada Lovelace', 'Alan Turing'], 2019, 'ACL'],
        ['p2', 'Keyword search still matters', ['Grace Hopper'], 2021, 'SIGIR'],
        ['p3', 'Writing assistants for scientists', ['Barbara Liskov'], 2023, 'CHI'],
      ],
    );
    const after = (await db.query(`SELECT id FROM list_papers('p1', 1)`)) as { rows: { id: string }[] };
    assert.deepEqual(
      after.rows.map((r) => r.id),
      ['p2'],
    );
  });

  test('paperStats past 1,000 proposed papers: the proposals are read in keyset pages of 1,000 after the last id', async () => {
    // PostgREST caps an answer's rows, so the model marks are read a page at a time; every proposed paper keeps its mark.
    await database.exec(
      `INSERT INTO papers (id, title, metadata_proposed_by) SELECT 'proposed-' || lpad(n::text, 4, '0'), 'Proposed ' || n, 'model-' || n FROM generate_series(1, 1001) n`,
    );
    try {
      const start = standin.requests.length;
      const stats = await store.paperStats!();
      const reads = standin.requests.slice(start).filter((r) => r.path === '/rest/v1/papers');
      assert.equal(reads.length, 2, 'two pages: 1,000 and 1');
      assert.match(decodeURIComponent(reads[1].search), /id=gt\.proposed-1000/, 'the second page starts after the last id of the first');
      const proposed = stats.filter((p) => p.id.startsWith('proposed-'));
      assert.equal(proposed.length, 1001);
      assert.ok(
        proposed.every((p) => p.metadataProposedBy === `model-${Number(p.id.slice(9))}`),
        'each paper has its own model',
      );
    } finally {
      await database.exec(`DELETE FROM papers WHERE id LIKE 'proposed-%'`);
    }
  });

  test('findPapers and venues: the find_papers and list_venues RPCs, one request each, the venues kept until a write', async () => {
    const start = standin.requests.length;
    const found = await store.findPapers({ dois: ['10.1000/p1'], titles: ['Keyword Search, Still Matters'], keys: [], texts: [] });
    assert.deepEqual(
      found.map((p) => p.id),
      ['p1', 'p2'],
    );
    assert.deepEqual(await store.venues(), ['ACL', 'CHI', 'SIGIR']);
    assert.deepEqual(await store.venues(), ['ACL', 'CHI', 'SIGIR']);
    assert.deepEqual(
      standin.requests.slice(start).map((r) => `${r.method} ${r.path}`),
      ['POST /rest/v1/rpc/find_papers', 'POST /rest/v1/rpc/list_venues'],
    );
    await store.deletePapers(['no-such-paper']);
    await store.venues();
    assert.equal(standin.requests.slice(start).filter((r) => r.path.endsWith('/list_venues')).length, 2, 'read again after a write');
    // A project migrated before v16: every paper is listed instead, as before.
    await database.exec('DROP FUNCTION find_papers(text[], text[], text[], text[])');
    try {
      assert.deepEqual(
        (await store.findPapers({ dois: ['10.1000/p1'], titles: [], keys: [], texts: [] })).map((p) => p.id),
        ['p1', 'p2', 'p3'],
      );
    } finally {
      await database.exec(schemaSql(64));
    }
  });

  test('source copies on a project migrated before v17 (no source_copies table): none listed, none recorded, no error', async () => {
    await database.exec('DROP TABLE source_copies');
    try {
      assert.deepEqual(await store.sourceCopies(), []);
      await store.updateSourceCopies([{ sourcePath: '/papers/a.pdf', contentHash: 'h1', paperId: 'p1' }], ['/papers/b.pdf']);
      assert.deepEqual(await store.sourceCopies(), []);
    } finally {
      await database.exec(schemaSql(64));
    }
    await store.updateSourceCopies([{ sourcePath: '/papers/a.pdf', contentHash: 'h1', paperId: 'p1' }], []);
    assert.deepEqual(await store.sourceCopies(), [{ sourcePath: '/papers/a.pdf', contentHash: 'h1', paperId: 'p1' }], 'migrated: recorded');
    await store.updateSourceCopies([], ['/papers/a.pdf']);
  });

  test('the citation check on Supabase resolves a paper by its DOI and quotes its sentence with page and lines', async () => {
    const { checkCitation } = await import('../../src/core/cite-check/index.js');
    const { HashEmbedder } = await import('../support/db-embedder.js');
    const check = await checkCitation(
      { store, embedder: new HashEmbedder(64) },
      { sentence: 'Sentence embeddings map similar sentences to nearby vectors.', cite: '10.1000/p1' },
    );
    assert.equal(check.paper?.id, 'p1', 'resolved through list_papers (a DOI is no paper id)');
    assert.equal(check.verdict, 'supported');
    assert.equal(check.evidence[0].text, 'Sentence embeddings map similar sentences to nearby vectors.');
    assert.deepEqual([check.evidence[0].page, check.evidence[0].lines], [3, { start: 4, end: 5 }]);
  });

  test('paperRows on a project migrated before paper_rows() existed: one line that says what to run', async () => {
    await database.exec('DROP FUNCTION paper_rows(text, int, int, boolean)');
    try {
      await assert.rejects(
        store.paperRows('p1'),
        /no paper_rows\(\) function .*run the output of `corpus-lens schema --print` as a migration/,
      );
    } finally {
      await database.exec(schemaSql(64));
    }
  });

  test('sectionTitles on a project migrated before section_titles() existed: one line that says what to run', async () => {
    await database.exec('DROP FUNCTION section_titles(text, int, int)');
    try {
      await assert.rejects(store.sectionTitles(), (err: Error) => {
        assert.equal(err.name, 'StoreError');
        assert.match(err.message, /no section_titles\(\) function .*run the output of `corpus-lens schema --print` as a migration/);
        assert.doesNotMatch(err.message, /\n/);
        return true;
      });
    } finally {
      await database.exec(schemaSql(64)); // the migration again
    }
    assert.equal((await store.sectionTitles()).length, 5);
  });
}
