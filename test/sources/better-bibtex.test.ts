// The Better BibTeX JSON-RPC client against a local stand-in speaking JSON-RPC 2.0 as Better BibTeX does
// (test/support/bbt-standin.ts, its limits at its top): live keys, BibTeX export, and a clear message for
// each way it goes wrong (method missing: Better BibTeX too old; Zotero not ready; Zotero not running).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { BetterBibtex, BetterBibtexError, DEFAULT_BBT_URL } from '../../src/core/sources/zotero/index.ts';
import { startBbtStandin, type BbtStandin } from '../support/bbt-standin.ts';

const ENTRY =
  '@article{shannon1948,\n  title = {A Mathematical Theory of Communication},\n  author = {Shannon, C. E.},\n  year = {1948}\n}';
let bbt: BbtStandin;
before(async () => {
  bbt = await startBbtStandin([
    {
      citekey: 'shannon1948',
      title: 'A Mathematical Theory of Communication',
      authors: [{ family: 'Shannon', given: 'C. E.' }],
      year: 1948,
      bibtex: ENTRY,
    },
    {
      citekey: 'bearman2004',
      title: 'Chains of Affection',
      authors: [{ family: 'Bearman', given: 'Peter S.' }],
      year: 2004,
      bibtex: '@article{bearman2004,\n  title = {Chains of Affection}\n}',
    },
  ]);
});
after(() => bbt.close());

test("the default endpoint is Zotero's on loopback", () => {
  assert.equal(DEFAULT_BBT_URL, 'http://127.0.0.1:23119/better-bibtex/json-rpc');
});

test('api.ready, item.search with keys, item.export as BibTeX', async () => {
  bbt.mode = 'ready';
  const client = new BetterBibtex({ baseUrl: bbt.url });
  assert.deepEqual(await client.ready(), { zotero: '7.0.11', betterbibtex: '7.0.5' });
  const hits = await client.search('shannon');
  assert.deepEqual(
    hits.map((h) => [h.citekey, h.title]),
    [['shannon1948', 'A Mathematical Theory of Communication']],
  );
  assert.equal(await client.export(['shannon1948']), `${ENTRY}\n`);
  assert.deepEqual(
    bbt.calls.slice(-3).map((c) => c.method),
    ['api.ready', 'item.search', 'item.export'],
  );
  assert.deepEqual(bbt.calls.at(-1)!.params, [['shannon1948'], 'Better BibTeX']);
});

test('-32601: Better BibTeX is too old for the method', async () => {
  bbt.mode = 'old';
  const err = await new BetterBibtex({ baseUrl: bbt.url }).export(['shannon1948']).catch((e) => e);
  assert.ok(err instanceof BetterBibtexError);
  assert.equal(err.code, -32601);
  assert.match(
    err.message,
    /Better BibTeX has no method item\.export: it is too old for Corpus Lens; update Better BibTeX in Zotero \(Method not found\)/,
  );
});

test('-32603: Zotero is not ready', async () => {
  bbt.mode = 'starting';
  const err = await new BetterBibtex({ baseUrl: bbt.url }).ready().catch((e) => e);
  assert.equal(err.code, -32603);
  assert.match(err.message, /Zotero is not ready yet \(still starting, or busy\); try again in a moment \(Zotero not ready\)/);
});

test("an unknown key in item.export is the server's -32603 with its message", async () => {
  bbt.mode = 'ready';
  const err = await new BetterBibtex({ baseUrl: bbt.url }).export(['nobody1999']).catch((e) => e);
  assert.match(err.message, /nobody1999 not found/);
});

test('something else on the port (no JSON-RPC reply) is named as such', async () => {
  bbt.mode = 'not-json';
  const err = await new BetterBibtex({ baseUrl: bbt.url }).ready().catch((e) => e);
  assert.equal(err.code, 'http');
  assert.match(err.message, /no JSON-RPC reply: is Better BibTeX installed in Zotero\?/);
});

test('connection refused: Zotero is not running', async () => {
  // A port that was just free: nothing listens on it.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const url = `http://127.0.0.1:${port}/better-bibtex/json-rpc`;
  const err = await new BetterBibtex({ baseUrl: url }).ready().catch((e) => e);
  assert.equal(err.code, 'unreachable');
  assert.equal(
    err.message,
    `Zotero is not running (nothing answers at ${url}); start Zotero with Better BibTeX, or let Corpus Lens read the Zotero data directory`,
  );
});

test('a Zotero that accepts the connection but never answers times out with a message', async () => {
  const sockets: import('node:net').Socket[] = [];
  const silent = createServer((s) => sockets.push(s)).listen(0, '127.0.0.1');
  await new Promise((r) => silent.once('listening', r));
  try {
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/better-bibtex/json-rpc`;
    const err = await new BetterBibtex({ baseUrl: url, timeoutMs: 300 }).ready().catch((e) => e);
    assert.equal(err.code, 'timeout');
    assert.match(err.message, /Zotero did not answer within 0\.3 s/);
  } finally {
    for (const s of sockets) s.destroy();
    silent.close();
  }
});
