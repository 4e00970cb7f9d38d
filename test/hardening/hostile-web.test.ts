// npm test runs this file alone: 2 s request timeouts against its stand-in, and a bound on peak RSS growth.
// Hostile web sources against a local stand-in of arXiv's e-print and PDF hosts (node:http on 127.0.0.1):
// a gzip bomb (a few hundred KB on the wire, hundreds of MB unpacked) fetched in a child process whose peak RSS is
// measured, bodies over their byte budget (announced or chunked, plain or Content-Encoding gzip), and redirects
// to other local services. Stand-in limits: loopback only, so "a public host" is modelled by a name
// (`arxiv.test`) that the client's resolver hook maps to a public documentation address while the test's fetch
// connects it to 127.0.0.1; the redirect target is a real loopback literal.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip, gzipSync } from 'node:zlib';
import { download, HttpClient, systemLookup, type HostLookup } from '../../src/core/net/index.ts';
import { emptyCandidate, readFullText, sourceContext, sourcesConfig } from '../../src/core/sources/index.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
const hits = new Map<string, number>();
const servers: Server[] = [];
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-hostile-web-'));
let base = '';
let secretBase = '';
const secretHeaders: IncomingMessage['headers'][] = [];

async function listen(handler: Handler): Promise<string> {
  const s = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    handler(req, res);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}

/** `mib` MiB of zeros, gzipped as a stream (the parent never holds the unpacked bytes). */
async function gzipBomb(mib: number): Promise<Buffer> {
  const gz = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((r) => gz.on('end', r));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mib; i++) if (!gz.write(zeros)) await new Promise((r) => gz.once('drain', r));
  gz.end();
  await done;
  return Buffer.concat(out);
}

let bomb: Buffer;
before(async () => {
  base = await listen((req, res) => {
    const h = routes.get((req.url ?? '/').split('?')[0]);
    if (!h) return void res.writeHead(404).end('not found');
    h(req, res);
  });
  secretBase = await listen((req, res) =>
    (secretHeaders.push(req.headers), res)
      .writeHead(200, { 'content-type': 'text/plain' })
      .end('\\documentclass{article}\\begin{document}internal secret token 42.\\end{document}'),
  );
  bomb = await gzipBomb(320);
});
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

const fast = { retryBaseMs: 20, maxRetries: 1, requestTimeoutMs: 2000, deadlineMs: 10_000 };
const MiB = 1024 * 1024;

test('a gzip bomb e-print (320 MiB of zeros, ~0.3 MB on the wire) fails its entry at the budget with a clear reason; peak RSS stays bounded', async () => {
  routes.set('/e-print/2401.00001', (_q, res) =>
    res.writeHead(200, { 'content-type': 'application/x-eprint-tar', 'content-length': String(bomb.length) }).end(bomb),
  );
  const cache = mkdtempSync(join(dir, 'cache-'));
  // A child process (the server here must keep answering), so that its peak RSS is the fetch's alone.
  const child = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(__dirname, '..', 'support', 'eprint-child.ts'), base, cache, String(32 * MiB), '2401.00001'],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const r = JSON.parse(child.stdout.trim().split('\n').pop()!) as {
    peakBefore: number;
    peakAfter: number;
    outcome: string;
    tried: string[];
    errored: boolean;
  };
  const growth = r.peakAfter - r.peakBefore;
  process.stdout.write(
    `# gzip bomb: ${(bomb.length / MiB).toFixed(2)} MiB on the wire, 320 MiB unpacked; peak RSS ${(r.peakBefore / MiB).toFixed(0)} → ${(r.peakAfter / MiB).toFixed(0)} MiB (+${(growth / MiB).toFixed(1)} MiB)\n`,
  );
  assert.match(r.tried.join('\n'), /arXiv e-print: the e-print unpacks to more than the 32 MB limit \(maxEprintBytes\)/);
  assert.equal(r.errored, true);
  assert.notEqual(r.outcome, 'latex');
  // The unpacked bytes never sit in memory: well under the 320 MiB of the bomb (the margin is the garbage collector's lag over freed stream buffers; it plateaus near +70 MiB whatever the budget).
  assert.ok(growth < 96 * MiB, `peak RSS grew by ${(growth / MiB).toFixed(1)} MiB`);
  // Nothing of the bomb is left unpacked in the cache.
  assert.deepEqual(
    readdirSync(join(cache, 'arxiv')).filter((f) => !/\.eprint(\.json)?$/.test(f)),
    [],
  );
});

test('downloads and bodies over their budget fail at once, not retried, and leave no partial file', async () => {
  const big = Buffer.alloc(3 * MiB, 7);
  routes.set('/announced.pdf', (_q, res) =>
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(big.length) }).end(big),
  );
  routes.set('/chunked.pdf', (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(big);
  });
  const encoded = gzipSync(Buffer.alloc(8 * MiB, 32));
  routes.set('/encoded.json', (_q, res) =>
    res
      .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(encoded.length) })
      .end(encoded),
  );
  const c = new HttpClient(fast);
  for (const name of ['announced.pdf', 'chunked.pdf']) {
    const file = join(dir, name);
    await assert.rejects(download(c, `${base}/${name}`, file, { maxBytes: MiB }), /the body is larger than the 1 MB limit/);
    assert.equal(hits.get(`/${name}`), 1, `${name}: not retried`);
    assert.equal(existsSync(`${file}.part`), false);
    assert.equal(existsSync(file), false);
  }
  // Content-Encoding is undone by fetch: the budget counts what it decodes.
  await assert.rejects(c.get(`${base}/encoded.json`, { maxBytes: 2 * MiB }), /larger than the 2 MB limit/);
  const small = new HttpClient({ ...fast, maxBodyBytes: MiB });
  await assert.rejects(small.text(`${base}/chunked.pdf`), /larger than the 1 MB limit/);
});

// "A public host": arxiv.test resolves (for the redirect rule) to a documentation address, and the test's fetch
// connects it to the stand-in on 127.0.0.1.
const publicLookup: HostLookup = (host) => (host === 'arxiv.test' ? Promise.resolve(['203.0.113.10']) : systemLookup(host));
const viaLoopback: typeof fetch = (input, init) => fetch(String(input).replace('//arxiv.test:', '//127.0.0.1:'), init);
const publicBase = () => base.replace('127.0.0.1', 'arxiv.test');

test('an e-print on a public host redirecting to a loopback service is refused, and the entry says why', async () => {
  routes.set('/e-print/2401.00002', (_q, res) => res.writeHead(301, { location: `${secretBase}/internal-secret` }).end());
  const before = hits.get('/internal-secret') ?? 0;
  const config = sourcesConfig({
    arxivUrl: publicBase(),
    arxivApiUrl: `${publicBase()}/api/query`,
    cacheDir: mkdtempSync(join(dir, 'cache-')),
    arxivIntervalMs: 0,
  });
  const ctx = sourceContext(config, { http: { ...fast, lookup: publicLookup, fetch: viaLoopback } });
  const r = await readFullText(ctx, { ...emptyCandidate('id'), arxivId: '2401.00002' });
  assert.notEqual(r.outcome, 'latex');
  assert.match(r.tried.join('\n'), /arXiv e-print: .*refused a redirect to 127\.0\.0\.1:\d+, a local or private address/);
  assert.equal(hits.get('/internal-secret') ?? 0, before, 'the local service was never asked');
});

test('redirects: only http(s), at most 5, same-host moves followed, credentials not carried to another origin', async () => {
  const c = new HttpClient({ ...fast, lookup: publicLookup, fetch: viaLoopback });
  routes.set('/to-file', (_q, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
  await assert.rejects(c.get(`${publicBase()}/to-file`), /refused a redirect to a file: URL/);
  routes.set('/loop', (_q, res) => res.writeHead(302, { location: '/loop' }).end());
  await assert.rejects(c.get(`${publicBase()}/loop`), /more than 5 redirects/);
  assert.equal(hits.get('/loop'), 6, 'the first request and five redirects, no retry');
  routes.set('/moved', (_q, res) => res.writeHead(308, { location: '/here' }).end());
  routes.set('/here', (_q, res) => res.end('arrived'));
  assert.equal(await c.text(`${publicBase()}/moved`), 'arrived');
  // A configured endpoint that is itself local (a mirror, a stand-in) may redirect to another local address;
  // the API key it was sent does not travel to the other origin.
  const local = new HttpClient(fast);
  routes.set('/elsewhere', (_q, res) => res.writeHead(302, { location: `${secretBase}/mirror-copy` }).end());
  assert.match(await local.text(`${base}/elsewhere`, { headers: { 'x-api-key': 'k-123' } }), /internal secret token/);
  assert.equal(secretHeaders.at(-1)?.['x-api-key'], undefined);
});
