// The store contract on Supabase: the REAL supabase-js client against the local PostgREST stand-in
// (test/support/postgrest-standin.ts), which runs the SQL of src/core/store/schema.ts on PGlite.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite' with { 'resolution-mode': 'import' };
import { freshPGlite } from '../support/db-pglite.js';
import { schemaSql } from '../../src/core/store/schema.js';
import { openSupabaseStore, type SupabaseCorpusStore } from '../../src/core/store/supabase.js';
import { storeContract } from '../support/db-contract.js';
import { loadFixture } from '../support/db-fixture.js';
import { startPostgrestStandin, type PostgrestStandin } from '../support/postgrest-standin.js';

let db: PGlite;
let standin: PostgrestStandin;
let store: SupabaseCorpusStore;

before(async () => {
  db = await freshPGlite();
  standin = await startPostgrestStandin(db, { key: 'test-service-key' });
  // Before the migration: a clear message that says what to run.
  const bare = await openSupabaseStore(standin.url, 'test-service-key');
  await assert.rejects(bare.init({ model: 'm', dimensions: 64 }), /no Corpus Lens schema: run `corpus-lens schema --print --dimensions 64`/);
  await db.exec(schemaSql(64)); // the user's migration
  store = await openSupabaseStore(standin.url, 'test-service-key');
  assert.equal(await loadFixture(store), 14); // written through PostgREST (upserts)
});

after(async () => {
  await store?.close();
  await standin?.stop();
  await db?.close();
});

storeContract({
  store: () => store,
  roundTrips: () => standin.requests.length,
  reimport: () => loadFixture(store),
  keyword: true,
});

test('every lookup is one POST /rest/v1/rpc/<fn>', async () => {
  const start = standin.requests.length;
  const { match } = await import('../../src/core/retrieve/index.js');
  const { q } = await import('../support/db-contract.js');
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
  assert.equal(await cmd.run(['--db', `supabase:${standin.url}`, '--k', '1', 'BM25 remains a strong baseline for keyword retrieval.']), 0);
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
  const page = await db.query<{ paper_id: string; section_index: number; section_title: string }>(
    `SELECT * FROM section_titles('p1', 1, 2)`,
  );
  assert.deepEqual(page.rows.map((r) => [r.paper_id, r.section_index, r.section_title]), [
    ['p2', 0, 'Introduction'],
    ['p2', 1, 'Results'],
  ]);
});

test('sectionTitles on a project migrated before section_titles() existed: one line that says what to run', async () => {
  await db.exec('DROP FUNCTION section_titles(text, int, int)');
  try {
    await assert.rejects(store.sectionTitles(), (err: Error) => {
      assert.equal(err.name, 'StoreError');
      assert.match(err.message, /no section_titles\(\) function .*run the output of `corpus-lens schema --print` as a migration/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
  } finally {
    await db.exec(schemaSql(64)); // the migration again
  }
  assert.equal((await store.sectionTitles()).length, 5);
});
