// npm test runs this file alone: request timeouts of 0.3–1.5 s against its in-process stand-ins.
// Search-to-corpus against local stand-ins of arXiv, Semantic Scholar and OpenAlex (test/support/scholarly-standin.ts,
// limits at its top): Atom with arXiv's namespaces, a gzipped tar e-print with \input files, a single gzipped .tex
// e-print, arXiv HTML, S2 and OpenAlex JSON, an open-access PDF (compiled here with pdflatex); 429 with Retry-After,
// a 5xx, a timeout, a truncated download and a resumed run. Only the first test waits arXiv's real 3 s spacing
// (3 requests); the others run the arXiv stand-in at 150 ms and check that spacing instead.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.ts';
import { openPGliteDatabase, pgliteStore } from '../../src/core/store/backends/pglite.ts';
import { SCHEMA_VERSION } from '../../src/core/store/sql/schema.ts';
import { fetchToCorpus, parseArxivAtom, search, sourceContext, sourcesConfig, type SourcesConfig } from '../../src/core/sources/index.ts';
import { HashEmbedder } from '../support/db-embedder.ts';
import { startStandins, type Standins } from '../support/scholarly-standin.ts';
import { noPdflatex } from '../support/pdflatex.ts';

const fixtures = join(__dirname, '..', 'fixtures', 'ingest');
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-sources-'));
let s: Standins;
let pdfOk = false;

const noPdf = noPdflatex;

before(async () => {
  s = await startStandins();
  if (!noPdf) {
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', '-output-directory', dir, join(fixtures, 'onecol.tex')], {
      cwd: dir,
      stdio: 'ignore',
      timeout: 60_000,
    });
    s.setPdf(readFileSync(join(dir, 'onecol.pdf')));
    pdfOk = true;
  }
  const A = (n: number) => [`Ada Lovelace${n}`, `Alan Turing${n}`];
  s.add({
    kind: 'eprint-tar',
    title: 'Graph sparsification with tar sources',
    authors: A(1),
    year: 2021,
    arxivId: '2101.00001',
    license: 'http://creativecommons.org/licenses/by/4.0/',
    topic: 'graph sparsification',
  });
  s.add({
    kind: 'eprint-tex',
    title: 'Graph sparsification from one file',
    authors: A(2),
    year: 2022,
    arxivId: '2202.00002',
    doi: '10.5555/single.tex',
    license: 'http://arxiv.org/licenses/nonexclusive-distrib/1.0/',
    topic: 'graph sparsification',
  });
  s.add({
    kind: 'html',
    title: 'Tensor sketching in HTML only',
    authors: A(3),
    year: 2023,
    arxivId: '2303.00003',
    license: 'http://creativecommons.org/licenses/by-sa/4.0/',
    topic: 'tensor sketching',
  });
  s.add({
    kind: 'oa-pdf',
    title: 'Tensor sketching as an open PDF',
    authors: A(4),
    year: 2019,
    doi: '10.5555/oa.pdf',
    license: 'cc-by',
    topic: 'tensor sketching',
  });
  s.add({
    kind: 'metadata',
    title: 'Tensor sketching behind a paywall',
    authors: A(5),
    year: 2018,
    doi: '10.5555/paywall',
    topic: 'tensor sketching',
  });
});
after(async () => {
  await db?.close();
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(over: Partial<SourcesConfig> = {}): SourcesConfig {
  return sourcesConfig({
    arxivApiUrl: s.arxivApiUrl,
    arxivUrl: s.arxivUrl,
    s2Url: s.s2Url,
    openalexUrl: s.openalexUrl,
    contact: 'tester@example.org',
    s2IntervalMs: 0,
    openalexIntervalMs: 0,
    arxivIntervalMs: 150,
    cacheDir: mkdtempSync(join(dir, 'cache-')),
    ...over,
  });
}
const http = { retryBaseMs: 20, requestTimeoutMs: 1500, deadlineMs: 20_000 };

// One embedded database for the file (opening PGlite costs seconds); each test gets a store over it, emptied.
let db: Awaited<ReturnType<typeof openPGliteDatabase>> | undefined;
async function freshStore(): Promise<SqlCorpusStore> {
  db ??= await openPGliteDatabase('memory://');
  const store = pgliteStore(db);
  const e = new HashEmbedder();
  await store.init({ model: e.model, dimensions: e.dimensions });
  await store.deletePapers((await store.sources()).map((p) => p.id));
  return store;
}

test('Atom parsing follows the namespaces the feed binds, not fixed prefixes; an arXiv error feed is an error', () => {
  const xml = `<?xml version="1.0"?><a:feed xmlns:a="http://www.w3.org/2005/Atom" xmlns:x="http://arxiv.org/schemas/atom" xmlns:os="http://a9.com/-/spec/opensearch/1.1/">
    <os:totalResults>1</os:totalResults>
    <a:entry><a:id>http://arxiv.org/abs/hep-th/9901001v3</a:id><a:published>1999-01-02T00:00:00Z</a:published>
      <a:title>A  title
        on two lines</a:title><a:summary>Text &amp; more.</a:summary><a:author><a:name>P. Q. Author</a:name></a:author>
      <x:doi>10.1000/XYZ</x:doi><x:license>http://creativecommons.org/licenses/by/4.0/</x:license></a:entry></a:feed>`;
  const feed = parseArxivAtom(xml);
  assert.equal(feed.total, 1);
  assert.deepEqual(
    { ...feed.entries[0] },
    {
      ...feed.entries[0],
      arxivId: 'hep-th/9901001',
      title: 'A title on two lines',
      abstract: 'Text & more.',
      authors: ['P. Q. Author'],
      year: 1999,
      doi: '10.1000/xyz',
      license: 'http://creativecommons.org/licenses/by/4.0/',
    },
  );
  const err = `<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id><title>Error</title><summary>incorrect id format for 1234</summary></entry></feed>`;
  assert.throws(() => parseArxivAtom(err), /arXiv: incorrect id format for 1234/);
});

test("arXiv search → e-prints (a tar with \\input files, a single gzipped .tex) at arXiv's 3 s spacing, one request at a time", async () => {
  s.arxivIntervalMs = 3000;
  s.arxivStarts.length = 0;
  s.arxivViolations.length = 0;
  const ctx = sourceContext(config({ arxivIntervalMs: 3000 }), { http });
  const found = await search(ctx, 'arxiv', 'graph sparsification', { max: 5 });
  assert.deepEqual(found.map((c) => c.arxivId).sort(), ['2101.00001', '2202.00002']);
  const store = await freshStore();
  {
    const r = await fetchToCorpus(store, ctx, found, { embedder: new HashEmbedder() });
    assert.deepEqual(r.entries.map((e) => [e.arxivId, e.outcome]).sort(), [
      ['2101.00001', 'latex'],
      ['2202.00002', 'latex'],
    ]);
    assert.equal(r.papers, 2);
    // Sentences from both \input files (one in a subfolder), the abstract, and nothing from the References section.
    assert.deepEqual((await store.sources()).map((p) => p.id).sort(), ['arxiv:2101.00001', 'doi:10.5555/single.tex']);
    const hits = await store.matchKeyword('careful design', { count: 20 });
    const sections = new Set(hits.filter((h) => h.paper.id === 'arxiv:2101.00001').map((h) => h.sentence.sectionTitle));
    assert.ok(sections.has('Introduction') && sections.has('Method'), [...sections].join(', '));
    assert.equal(
      (await store.matchKeyword('Nothing here should be read', { count: 5 })).filter((h) => /Nothing here/.test(h.sentence.text)).length,
      0,
    );
    const licence = r.entries.find((e) => e.arxivId === '2101.00001')!.license;
    assert.equal(licence, 'http://creativecommons.org/licenses/by/4.0/');
  }
  assert.equal(s.arxivStarts.length, 3, 'one search and two e-prints');
  assert.deepEqual(s.arxivViolations, []);
  for (let i = 1; i < s.arxivStarts.length; i++) assert.ok(s.arxivStarts[i] - s.arxivStarts[i - 1] >= 3000);
  s.arxivIntervalMs = 150;
});

test(
  'OpenAlex search (a 5xx first) → arXiv HTML where there is no e-print, an open-access PDF (cut once, resumed), metadata only behind a paywall',
  { skip: noPdf },
  async () => {
    s.arxivIntervalMs = 150;
    s.arxivViolations.length = 0;
    s.fault('/works', { status: 503 });
    const pdfPath = `/pdf/${encodeURIComponent('10.5555/oa.pdf')}.pdf`;
    s.fault(pdfPath, { cut: 3000 });
    const ctx = sourceContext(config(), { http });
    const found = await search(ctx, 'openalex', 'tensor sketching', { max: 10 });
    assert.equal(found.length, 3);
    const store = await freshStore();
    {
      const r = await fetchToCorpus(store, ctx, found, { embedder: new HashEmbedder() });
      const by = Object.fromEntries(r.entries.map((e) => [e.title, e]));
      assert.equal(by['Tensor sketching in HTML only'].outcome, 'html');
      assert.match(by['Tensor sketching in HTML only'].notes.join(' '), /arXiv e-print: .*HTTP 404/);
      assert.equal(by['Tensor sketching as an open PDF'].outcome, 'pdf');
      assert.equal(by['Tensor sketching as an open PDF'].license, 'cc-by');
      assert.equal(by['Tensor sketching behind a paywall'].outcome, 'metadata');
      assert.equal(r.failed.length, 0);
      assert.ok(
        (await store.sources()).some((p) => p.id === 'doi:10.5555/oa.pdf'),
        'the PDF paper is stored under its DOI',
      );
      // Each paper's source and licence are stored with it.
      const rows = (await store.driver.query('SELECT id, source, license FROM papers ORDER BY id')).rows;
      assert.deepEqual(
        rows.map((r) => ({ ...r })),
        [
          { id: 'arxiv:2303.00003', source: `${s.arxivUrl}/html/2303.00003`, license: 'http://creativecommons.org/licenses/by-sa/4.0/' },
          { id: 'doi:10.5555/oa.pdf', source: `${s.openalexUrl}${pdfPath}`, license: 'cc-by' },
          { id: 'doi:10.5555/paywall', source: 'metadata:openalex', license: null },
        ],
      );
      const pdfHits = await store.matchKeyword('Observation considerable detail', { count: 50 });
      assert.ok(
        pdfHits.some((h) => h.paper.id === 'doi:10.5555/oa.pdf'),
        'the PDF text (after the resumed download) is searchable',
      );
    }
    assert.equal(s.hits.get(pdfPath), 2, 'cut once, then resumed');
    assert.ok(pdfOk);
    assert.deepEqual(s.arxivViolations, []);
    // The contact went to OpenAlex as mailto on every request (the stand-in saw /works twice: a 503, then the page),
    // and in every User-Agent.
    const works = s.requests.filter((r) => r.path === '/works');
    assert.equal(works.length, 2);
    for (const r of works) assert.equal(r.query.get('mailto'), 'tester@example.org');
    for (const r of s.requests) assert.match(r.userAgent, /^CorpusLens\/.*mailto:tester@example\.org/);
  },
);

test(
  'Semantic Scholar search with a 429 + Retry-After; a run again stores nothing new and downloads nothing',
  { skip: noPdf },
  async () => {
    s.fault('/graph/v1/paper/search', { status: 429, retryAfter: '1' });
    const cfg = config({ s2ApiKey: 'k-123' });
    const ctx = sourceContext(cfg, { http });
    const t0 = Date.now();
    const found = await search(ctx, 's2', 'tensor sketching', { max: 2 });
    assert.ok(Date.now() - t0 >= 950, 'waited for Retry-After');
    assert.equal(found.length, 2);
    const searches = s.requests.filter((r) => r.path === '/graph/v1/paper/search');
    assert.ok(searches.length >= 2 && searches.every((r) => r.apiKey === 'k-123'), 'the API key goes in x-api-key');
    const store = await freshStore();
    {
      const first = await fetchToCorpus(store, ctx, found, { embedder: new HashEmbedder() });
      assert.equal(first.papers, 2);
      const before = new Map(s.hits);
      const again = await fetchToCorpus(store, sourceContext(cfg, { http }), found, { embedder: new HashEmbedder() });
      assert.deepEqual(
        again.entries.map((e) => e.outcome),
        ['in-corpus', 'in-corpus'],
      );
      assert.equal(again.papers, 0);
      assert.deepEqual(new Map(s.hits), before, 'no request at all on the second run');
    }
  },
);

test('a lookup that times out is reported per entry and the run goes on; openLicenseOnly keeps only the abstract of a non-open paper', async () => {
  s.fault('/works/doi:10.5555%2Fpaywall', { silent: true }, { silent: true });
  const ctx = sourceContext(config({ openLicenseOnly: true }), { http: { ...http, requestTimeoutMs: 300, maxRetries: 1 } });
  const { candidatesFromIds } = await import('../../src/core/sources/index.ts');
  const { candidates } = candidatesFromIds(['10.5555/paywall', 'arXiv:2202.00002', 'https://arxiv.org/abs/2101.00001v1']);
  const store = await freshStore();
  {
    const r = await fetchToCorpus(store, ctx, candidates, { embedder: new HashEmbedder() });
    const [paywall, nonOpen, open] = r.entries;
    assert.equal(paywall.outcome, 'not-found');
    assert.equal(paywall.failed, true);
    assert.match(paywall.notes.join(' '), /no answer within 300 ms/);
    assert.equal(nonOpen.outcome, 'metadata');
    assert.match(nonOpen.notes.join(' '), /licence http:\/\/arxiv\.org\/licenses\/nonexclusive-distrib\/1\.0\/ is not open/);
    assert.equal(open.outcome, 'latex');
    assert.equal(r.failed.length, 1);
  }
});

test('a schema v2 corpus gains the source and licence columns on open, and keeps its papers', async () => {
  const e = new HashEmbedder();
  let store = await freshStore();
  const old = {
    sectionTitle: null,
    sectionIndex: 0,
    sentenceIndex: 0,
    globalIndex: 0,
    page: null,
    text: 'Old text stays.',
    embedding: (await e.embed(['Old text stays.']))[0],
  };
  await store.writePapers([{ id: 'old', title: 'An old paper', sentences: [old] }]);
  await store.driver.exec(`ALTER TABLE papers DROP COLUMN source; ALTER TABLE papers DROP COLUMN license;
    UPDATE corpus_meta SET value = '2' WHERE key = 'schema_version'`);
  store = pgliteStore(db!); // opened again: the new store reads the version and upgrades
  assert.equal((await store.meta())?.schemaVersion, SCHEMA_VERSION);
  const { candidatesFromIds } = await import('../../src/core/sources/index.ts');
  const r = await fetchToCorpus(store, sourceContext(config(), { http }), candidatesFromIds(['2101.00001']).candidates, { embedder: e });
  assert.equal(r.entries[0].outcome, 'latex');
  const rows = (await store.driver.query('SELECT id, source, license FROM papers ORDER BY id')).rows.map((x) => ({ ...x }));
  assert.deepEqual(rows, [
    { id: 'arxiv:2101.00001', source: `${s.arxivUrl}/e-print/2101.00001`, license: 'http://creativecommons.org/licenses/by/4.0/' },
    { id: 'old', source: null, license: null },
  ]);
});
