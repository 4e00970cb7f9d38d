// The store contract on PostgreSQL through `pg`, over the real wire protocol (PGlite served by pglite-socket).
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Client } from 'pg';
import { openPostgresStore } from '../../src/core/store/postgres.js';
import type { SqlCorpusStore } from '../../src/core/store/sql.js';
import { storeContract } from '../support/db-contract.js';
import { loadFixture } from '../support/db-fixture.js';
import { startPgServer, type PgServer } from '../support/pg-server.js';

let server: PgServer;
let store: SqlCorpusStore;
let trips = 0;

before(async () => {
  server = await startPgServer();
  store = await openPostgresStore(server.url);
  // Count what goes over the wire: every client.query is one statement sent to the server.
  const client = (store.driver as unknown as { client: Client }).client;
  const orig = client.query.bind(client) as (...a: unknown[]) => unknown;
  (client as unknown as { query: unknown }).query = (...a: unknown[]) => {
    trips++;
    return orig(...a);
  };
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
