// The store contract on a real PostgreSQL 15 + pgvector server through `pg` (a throwaway cluster:
// test/support/pg-real.ts), plus what the connection pool adds: concurrent lookups on several connections, and a
// clear error when every connection stays busy. Skipped with a reason where the server is absent, except CI=true.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { openPostgresStore } from '../../src/core/store/backends/postgres.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import { DIM, MODEL, storeContract } from '../support/db-contract.js';
import { loadFixture } from '../support/db-fixture.js';
import { countTrips } from '../support/db-trips.js';
import { realPgSkip, startRealPg, type RealPg } from '../support/pg-real.js';
import { LATIN_TITLE_KEYS, OTHER_TITLE_KEYS } from '../support/title-keys.js';

const skip = realPgSkip();

describe('store contract on a real PostgreSQL 15 + pgvector server', { skip }, () => {
  let server: RealPg;
  let url: string;
  let store: SqlCorpusStore;
  let trips = 0;

  before(async () => {
    server = await startRealPg();
    url = await server.createDatabase('contract');
    store = await openPostgresStore(url);
    // Every statement the store sends (one pooled query, one exec, one lookup, one transaction).
    countTrips(store.driver, () => trips++);
    assert.equal(await loadFixture(store), 14);
  });

  after(async () => {
    await store?.close();
    await server?.stop();
  });

  storeContract({
    store: () => store,
    roundTrips: () => trips,
    reimport: () => loadFixture(store),
    keyword: true,
    backend: 'postgres 15 + pgvector (real server, pg pool)',
  });

  test("a server's own higher hnsw.ef_search is kept on every pooled connection, a lower one is raised to 100", async () => {
    for (const [set, want] of [
      ['400', '400'],
      ['20', '100'],
    ]) {
      const db = `ef${set}`;
      const dbUrl = await server.createDatabase(db);
      await server.sql(`ALTER DATABASE ${db} SET hnsw.ef_search = ${set}`);
      const s = await openPostgresStore(dbUrl);
      try {
        const rows = await Promise.all(
          Array.from({ length: 3 }, () => s.driver.query(`SELECT current_setting('hnsw.ef_search') AS ef, pg_sleep(0.1)`)),
        );
        for (const r of rows) assert.equal(r.rows[0].ef, want, `database set to ${set}`);
      } finally {
        await s.close();
      }
    }
  });

  test('a corpus of a million sentences searches its HNSW graph wider: ef_search 400 (filtered 800) on every connection', async () => {
    const dbUrl = await server.createDatabase('ef1m');
    const writer = await openPostgresStore(dbUrl);
    try {
      await writer.init({ model: MODEL, dimensions: DIM });
      // The size the statistics triggers would have counted after a million-sentence load.
      await writer.driver.query('UPDATE fts_totals SET documents = 1000000');
    } finally {
      await writer.close();
    }
    const s = await openPostgresStore(dbUrl);
    try {
      const rows = await Promise.all(
        Array.from({ length: 3 }, () => s.driver.query(`SELECT current_setting('hnsw.ef_search') AS ef, pg_sleep(0.1)`)),
      );
      for (const r of rows) assert.equal(r.rows[0].ef, '400');
      const { rows: fn } = await s.driver.query('SELECT lookup_ef_search(false) AS plain, lookup_ef_search(true) AS filtered');
      assert.deepEqual([fn[0].plain, fn[0].filtered], [400, 800]);
      // The lookups still answer (an empty corpus: no hits, no error) with those settings.
      assert.deepEqual(await s.matchVector(new Float32Array(DIM).fill(0.1), { count: 5, yearMin: 2020 }), []);
    } finally {
      await s.close();
    }
  });

  test('title_key (schema v18) in a database whose LC_CTYPE is C: the same keys, non-Latin letters kept and Cyrillic case folded', async () => {
    // There [[:alnum:]] takes only ASCII and lower() folds only ASCII: the key must depend on neither.
    await server.sql(`CREATE DATABASE c_ctype TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
    await server.sql('CREATE EXTENSION IF NOT EXISTS vector', 'c_ctype');
    const c = await openPostgresStore(server.url('c_ctype'));
    try {
      await c.init({ model: MODEL, dimensions: DIM });
      const all = [...LATIN_TITLE_KEYS, ...OTHER_TITLE_KEYS];
      const { rows } = await c.driver.query('SELECT title_key(t) AS k FROM unnest($1::text[]) WITH ORDINALITY u(t, i) ORDER BY i', [
        all.map(([t]) => t),
      ]);
      assert.deepEqual(
        rows.map((r) => r.k),
        all.map(([, k]) => k),
      );
    } finally {
      await c.close();
    }
  });

  test('the server is PostgreSQL 15 with pgvector 0.8', async () => {
    const { rows } = await store.driver.query(
      `SELECT current_setting('server_version_num')::int AS v, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector`,
    );
    assert.ok(Number(rows[0].v) >= 150000 && Number(rows[0].v) < 160000, `server_version_num ${rows[0].v}`);
    assert.match(String(rows[0].vector), /^0\.8\./);
  });

  test('lookups run concurrently on pooled connections, each with the session settings', async () => {
    const rows = await Promise.all(
      Array.from({ length: 4 }, () =>
        store.driver.query(`SELECT pg_backend_pid() AS pid, current_setting('hnsw.ef_search') AS ef, pg_sleep(0.3)`),
      ),
    );
    const pids = new Set(rows.map((r) => r.rows[0].pid));
    assert.equal(pids.size, 4, 'four concurrent statements on four connections');
    for (const r of rows) assert.equal(r.rows[0].ef, '100');
  });

  test('an exhausted pool is one clear line, and the pool recovers', async () => {
    const small = await openPostgresStore(url, { max: 2, connectTimeoutMs: 300 });
    try {
      // The writer holds one connection; a long statement takes the other.
      const busy = small.driver.query('SELECT pg_sleep(1.5)');
      await new Promise((r) => setTimeout(r, 200));
      await assert.rejects(small.counts(), (err: Error) => {
        assert.equal(err.name, 'StoreError');
        assert.match(
          err.message,
          /^all 2 connections to postgres:\/\/postgres@127\.0\.0\.1:\d+\/contract stayed busy for 300 ms \(connection pool exhausted\)/,
        );
        assert.doesNotMatch(err.message, /\n/);
        return true;
      });
      await busy;
      assert.deepEqual(await small.counts(), { papers: 3, sentences: 14 });
    } finally {
      await small.close();
    }
  });

  test('a login the server refuses is reported as authentication, not reachability, without the password', async () => {
    // The test cluster trusts every password; an unknown role is refused at login (SQLSTATE 28000).
    await assert.rejects(openPostgresStore(url.replace('postgres@', 'nobody:secret@')), (err: Error) => {
      assert.match(err.message, /^authentication failed for postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:\d+\/contract: .*nobody/);
      assert.doesNotMatch(err.message, /secret|\n/);
      return true;
    });
  });
});

test('an unreachable server is one clear line naming the URL without its password', async () => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  await assert.rejects(openPostgresStore(`postgres://me:secret@127.0.0.1:${port}/db`), (err: Error) => {
    assert.match(err.message, /^cannot reach the corpus at postgres:\/\/me:\*\*\*@127\.0\.0\.1:\d+\/db: .*ECONNREFUSED/);
    assert.doesNotMatch(err.message, /secret|\n/);
    return true;
  });
});
