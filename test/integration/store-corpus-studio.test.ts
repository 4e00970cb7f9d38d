// The read-only CorpusStudio schema ("Document", "Source", match_documents) on PGlite (one SQL statement per
// lookup) and on Supabase through supabase-js and the PostgREST stand-in (the RPC plus one batched context GET
// sent together with one Source GET: 2 sequential round trips, 3 requests, for any k) — and both again on a real
// PostgreSQL 15 + pgvector server (`pg` store; the stand-in forwarding to the server), skipped with a reason where
// the server is absent, except CI=true.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite' with { 'resolution-mode': 'import' };
import { match } from '../../src/core/retrieve/index.js';
import { corpusStudioSql, openCorpusStudioSupabase } from '../../src/core/store/backends/corpus-studio.js';
import { pgliteStore } from '../../src/core/store/backends/pglite.js';
import type { CorpusStore } from '../../src/core/store/types.js';
import { MODEL, q, storeContract } from '../support/db-contract.js';
import { hashEmbed } from '../support/db-embedder.js';
import { loadCorpusStudio } from '../support/db-fixture.js';
import { startPostgrestStandin, type PostgrestStandin } from '../support/postgrest-standin.js';
import { countTrips } from '../support/db-trips.js';
import { freshPGlite } from '../support/db-pglite.js';
import { openPostgresStore } from '../../src/core/store/backends/postgres.js';
import { realPgSkip, startRealPg, type RealPg } from '../support/pg-real.js';
import { pgStandinDb } from '../support/postgrest-standin.js';

let db: PGlite;
let sqlStore: CorpusStore;
let sqlTrips = 0;
let standin: PostgrestStandin;
let sbStore: CorpusStore;

before(async () => {
  db = await freshPGlite();
  await loadCorpusStudio(db, (t) => hashEmbed(t, 64));
  const base = pgliteStore(db);
  countTrips(base.driver, () => sqlTrips++);
  sqlStore = corpusStudioSql(base.driver, { model: MODEL });
  standin = await startPostgrestStandin(db, { key: 'cs-key' });
  sbStore = await openCorpusStudioSupabase(standin.url, 'cs-key', { model: MODEL });
});

after(async () => {
  await standin?.stop();
  await db?.close();
});

describe('CorpusStudio schema over SQL (PGlite)', () => {
  storeContract({ store: () => sqlStore, roundTrips: () => sqlTrips, keyword: false, backend: 'CorpusStudio schema on PGlite' });

  test('writes are refused: the schema is read only', async () => {
    await assert.rejects(sqlStore.init({ model: MODEL, dimensions: 64 }), /read only/);
    await assert.rejects(sqlStore.matchKeyword('x', { count: 5 }), /need the Corpus Lens schema/);
    assert.deepEqual(await sqlStore.counts(), { papers: 3, sentences: 14 });
  });
});

describe('CorpusStudio schema over Supabase (supabase-js → PostgREST stand-in)', () => {
  storeContract({
    store: () => sbStore,
    roundTrips: () => standin.requests.length,
    keyword: false,
    tripsPerLookup: 3,
    sections: false,
    backend: 'CorpusStudio schema, supabase-js → stand-in → PGlite',
  });

  test('a lookup is the RPC, then one batched Document GET and one Source GET, whatever k is', async () => {
    const start = standin.requests.length;
    const hits = await match(sbStore, q('sentences retrieval writing authors'), { k: 14, dedupe: false });
    assert.ok(hits.length >= 10);
    const reqs = standin.requests.slice(start).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(reqs.slice(0, 1), ['POST /rest/v1/rpc/match_documents']);
    assert.deepEqual(reqs.slice(1).sort(), ['GET /rest/v1/Document', 'GET /rest/v1/Source']);
  });
});

test('CLI: query --db supabase:<url> --schema corpusStudio prints the hit contract', async () => {
  const { createQueryCommand } = await import('../../src/cli/commands/query.js');
  const { HashEmbedder } = await import('../support/db-embedder.js');
  const out: string[] = [];
  const cmd = createQueryCommand({
    env: { SUPABASE_KEY: 'cs-key' },
    stdout: (t) => void out.push(t),
    makeEmbedder: async () => new HashEmbedder(64),
  });
  const code = await cmd.run([
    '--db',
    `supabase:${standin.url}`,
    '--schema',
    'corpusStudio',
    '--k',
    '2',
    '--offset',
    '1',
    'Sentence embeddings map similar sentences to nearby vectors.',
  ]);
  assert.equal(code, 0);
  const hits = JSON.parse(out.join(''));
  assert.equal(hits[0].sentence.text, 'We retrieve sentences from prior papers that phrase an idea similarly.');
  assert.equal(hits[0].next, null);
  assert.equal(hits[0].paper.title, 'Dense retrieval of scientific sentences');
  const wrong = createQueryCommand({
    env: { SUPABASE_KEY: 'nope' },
    stdout: () => undefined,
    makeEmbedder: async () => new HashEmbedder(64),
  });
  await assert.rejects(wrong.run(['--db', `supabase:${standin.url}`, '--schema', 'corpusStudio', 'x']), /rejected the key \(HTTP 401/);
});

describe('CorpusStudio schema on a real PostgreSQL 15 + pgvector server', { skip: realPgSkip() }, () => {
  let server: RealPg;
  let pgStore: CorpusStore & { close(): Promise<void> };
  let closeBase: () => Promise<void>;
  let pgTrips = 0;
  let pgStandin: PostgrestStandin;
  let pgSb: CorpusStore;
  let endDb: () => Promise<void>;

  before(async () => {
    server = await startRealPg();
    const url = await server.createDatabase('corpus_studio');
    const db = await pgStandinDb(url);
    endDb = db.end;
    await loadCorpusStudio({ exec: (sql) => db.query(sql), query: (sql, params) => db.query(sql, params) }, (t) => hashEmbed(t, 64));
    const base = await openPostgresStore(url);
    closeBase = () => base.close();
    countTrips(base.driver, () => pgTrips++);
    pgStore = corpusStudioSql(base.driver, { model: MODEL }) as CorpusStore & { close(): Promise<void> };
    pgStandin = await startPostgrestStandin(db, { key: 'cs-key' });
    pgSb = await openCorpusStudioSupabase(pgStandin.url, 'cs-key', { model: MODEL });
  });

  after(async () => {
    await pgStandin?.stop();
    await closeBase?.();
    await endDb?.();
    await server?.stop();
  });

  describe('over SQL (pg)', () => {
    storeContract({
      store: () => pgStore,
      roundTrips: () => pgTrips,
      keyword: false,
      backend: 'CorpusStudio schema on postgres 15 (real server)',
    });
  });

  describe('over Supabase (supabase-js → PostgREST stand-in → real server)', () => {
    storeContract({
      store: () => pgSb,
      roundTrips: () => pgStandin.requests.length,
      keyword: false,
      tripsPerLookup: 3,
      sections: false,
      backend: 'CorpusStudio schema, supabase-js → stand-in → postgres 15 (real server)',
    });
  });
});
