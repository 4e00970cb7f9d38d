// npm test runs this file alone: a deadline and an abort must end within 1 s.
// The polite HTTP client and the download cache against a local HTTP server (node:http on 127.0.0.1).
// Stand-in limits: loopback only; each route answers from a small script (status, headers, body, a cut or a
// stall); bodies are at most 64 KiB; a stalled response is closed by the test's teardown. Waits are kept short
// (Retry-After of 1 s, intervals of 300 ms) so the file runs in a few seconds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { download, HttpClient, HttpError } from '../../src/core/net/index.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;
const routes = new Map<string, Handler>();
const hits = new Map<string, { at: number; headers: IncomingMessage['headers'] }[]>();
let server: Server;
let base = '';
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-net-'));

before(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const list = hits.get(path) ?? [];
    list.push({ at: Date.now(), headers: req.headers });
    hits.set(path, list);
    const h = routes.get(path);
    if (!h) return void res.writeHead(404).end('not found');
    h(req, res, list.length);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  base = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const fast = { retryBaseMs: 20, retryMaxMs: 2000, requestTimeoutMs: 400, deadlineMs: 10_000 };

describe('HttpClient', () => {
  test('sends a User-Agent naming Corpus Lens and the contact address', async () => {
    routes.set('/ua', (_q, res) => res.end('{"ok":true}'));
    const c = new HttpClient({ contact: 'me@example.org', ...fast });
    assert.deepEqual(await c.json(`${base}/ua`), { ok: true });
    const ua = String(hits.get('/ua')![0].headers['user-agent']);
    assert.match(ua, /^CorpusLens\/\S+ .*mailto:me@example\.org/);
  });

  test('429 with Retry-After in seconds: waits that long, then succeeds', async () => {
    routes.set('/busy', (_q, res, n) => (n === 1 ? res.writeHead(429, { 'retry-after': '1' }).end('slow down') : res.end('fine')));
    const c = new HttpClient(fast);
    const r = await c.get(`${base}/busy`);
    assert.equal(Buffer.from(r.body).toString(), 'fine');
    assert.equal(r.attempts, 2);
    const [a, b] = hits.get('/busy')!;
    assert.ok(b.at - a.at >= 950, `waited ${b.at - a.at} ms, Retry-After said 1 s`);
  });

  test('429 with Retry-After as an HTTP date is honoured too', async () => {
    routes.set('/busy-date', (_q, res, n) =>
      n === 1 ? res.writeHead(429, { 'retry-after': new Date(Date.now() + 2000).toUTCString() }).end() : res.end('ok'),
    );
    const r = await new HttpClient(fast).get(`${base}/busy-date`);
    const [a, b] = hits.get('/busy-date')!;
    assert.equal(r.attempts, 2);
    // HTTP dates have 1 s resolution: at least ~1 s, and well under the 2 s cap + slack.
    assert.ok(b.at - a.at >= 900 && b.at - a.at < 2600, `waited ${b.at - a.at} ms`);
  });

  test('a Retry-After beyond the deadline fails at once with a clear message', async () => {
    routes.set('/later', (_q, res) => res.writeHead(503, { 'retry-after': '3600' }).end());
    const c = new HttpClient({ ...fast, retryMaxMs: 7_200_000, deadlineMs: 5000 });
    const t0 = Date.now();
    await assert.rejects(c.get(`${base}/later`), /HTTP 503.*gave up.*deadline/);
    assert.ok(Date.now() - t0 < 1000);
  });

  test('a 5xx is retried with backoff; a 404 is not', async () => {
    routes.set('/flaky', (_q, res, n) => (n < 3 ? res.writeHead(502).end() : res.end('third time')));
    const r = await new HttpClient(fast).get(`${base}/flaky`);
    assert.equal(r.attempts, 3);
    await assert.rejects(
      new HttpClient(fast).get(`${base}/nothing-here`),
      (e: HttpError) => e.status === 404 && hits.get('/nothing-here')!.length === 1,
    );
  });

  test('no headers within the timeout, and a body that stops arriving, are timeouts (retried, then reported)', async () => {
    routes.set('/silent', () => undefined);
    routes.set('/stall', (_q, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('x'.repeat(10));
    });
    const c = new HttpClient({ ...fast, maxRetries: 1 });
    await assert.rejects(c.get(`${base}/silent`), /no answer within 400 ms \(after 2 attempts\)/);
    await assert.rejects(c.get(`${base}/stall`), /body stopped arriving.*\(after 2 attempts\)/);
  });

  test('per-host spacing: one request at a time, starts at least the interval apart', async () => {
    routes.set('/spaced', (_q, res) => setTimeout(() => res.end('x'), 50));
    const host = new URL(base).host;
    const c = new HttpClient({ ...fast, hosts: { [host]: { minIntervalMs: 300 } } });
    await Promise.all([1, 2, 3].map(() => c.get(`${base}/spaced`)));
    const at = hits.get('/spaced')!.map((h) => h.at);
    for (let i = 1; i < at.length; i++) assert.ok(at[i] - at[i - 1] >= 295, `gap ${at[i] - at[i - 1]} ms`);
  });

  test('the spacing holds across clients of one process (a second run right after the first)', async () => {
    routes.set('/two-runs', (_q, res) => res.end('x'));
    const host = new URL(base).host;
    await new HttpClient({ ...fast, hosts: { [host]: { minIntervalMs: 300 } } }).get(`${base}/two-runs`);
    await new HttpClient({ ...fast, hosts: { [host]: { minIntervalMs: 300 } } }).get(`${base}/two-runs`);
    const [a, b] = hits.get('/two-runs')!.map((h) => h.at);
    assert.ok(b - a >= 295, `gap ${b - a} ms`);
  });

  test('cancellation rejects with an AbortError at once, also during a backoff wait', async () => {
    routes.set('/wait', (_q, res) => res.writeHead(429, { 'retry-after': '30' }).end());
    const ac = new AbortController();
    const c = new HttpClient({ ...fast, retryMaxMs: 60_000, deadlineMs: 120_000 });
    const p = c.get(`${base}/wait`, { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    const t0 = Date.now();
    await assert.rejects(p, { name: 'AbortError' });
    assert.ok(Date.now() - t0 < 1000);
  });
});

describe('download cache', () => {
  const payload = randomBytes(40_000);
  const sha = createHash('sha256').update(payload).digest('hex');

  /** Serves `payload` with Range support; the first full answer is cut after 15 000 bytes. */
  const ranged =
    (cutFirst: boolean): Handler =>
    (req, res, n) => {
      const m = /bytes=(\d+)-/.exec(String(req.headers.range ?? ''));
      const start = m ? Number(m[1]) : 0;
      const body = payload.subarray(start);
      const head: Record<string, string> = {
        'content-length': String(body.length),
        'content-type': 'application/pdf',
        'accept-ranges': 'bytes',
      };
      if (m) head['content-range'] = `bytes ${start}-${payload.length - 1}/${payload.length}`;
      res.writeHead(m ? 206 : 200, head);
      if (cutFirst && n === 1) {
        res.write(body.subarray(0, 15_000));
        setTimeout(() => res.destroy(), 200); // time for the client to store what came (a loaded machine is slow)
      } else res.end(body);
    };

  test('a truncated body is not taken as complete: the retry resumes with Range and the checksum matches', async () => {
    routes.set('/paper.pdf', ranged(true));
    const dest = join(dir, 'a', 'paper.pdf');
    const r = await download(new HttpClient(fast), `${base}/paper.pdf`, dest, { sha256: sha });
    assert.equal(r.cached, false);
    assert.equal(r.sha256, sha);
    assert.equal(r.bytes, payload.length);
    assert.deepEqual(readFileSync(dest), payload);
    const h = hits.get('/paper.pdf')!;
    assert.equal(h.length, 2);
    const from = Number(/^bytes=(\d+)-$/.exec(String(h[1].headers.range))?.[1]);
    assert.ok(from > 0 && from <= 15_000, `the retry asks for the rest: ${h[1].headers.range}`);
    assert.equal(existsSync(`${dest}.part`), false);
  });

  test('a resumed run: a partial file left by a killed run is continued, then served from the cache', async () => {
    routes.set('/resume.pdf', ranged(false));
    const dest = join(dir, 'b', 'resume.pdf');
    const c = new HttpClient(fast);
    // What a killed run leaves behind: part of the body in .part, no record.
    mkdirSync(join(dir, 'b'), { recursive: true });
    writeFileSync(`${dest}.part`, payload.subarray(0, 25_000));
    const r = await download(c, `${base}/resume.pdf`, dest);
    assert.equal(r.resumedFrom, 25_000);
    assert.equal(r.sha256, sha);
    assert.equal(hits.get('/resume.pdf')![0].headers.range, 'bytes=25000-');
    const again = await download(c, `${base}/resume.pdf`, dest);
    assert.equal(again.cached, true);
    assert.equal(hits.get('/resume.pdf')!.length, 1, 'a verified cached file needs no request');
  });

  test('a cached file that no longer matches its record is fetched again; a wrong checksum is an error', async () => {
    routes.set('/c.pdf', ranged(false));
    const dest = join(dir, 'c', 'c.pdf');
    const c = new HttpClient(fast);
    await download(c, `${base}/c.pdf`, dest);
    writeFileSync(dest, payload.subarray(0, 100)); // damaged on disk
    const r = await download(c, `${base}/c.pdf`, dest);
    assert.equal(r.cached, false);
    assert.equal(statSync(dest).size, payload.length);
    await assert.rejects(download(c, `${base}/c.pdf`, join(dir, 'c', 'other.pdf'), { sha256: '0'.repeat(64) }), /checksum mismatch/);
    assert.equal(existsSync(join(dir, 'c', 'other.pdf')), false);
  });
});
