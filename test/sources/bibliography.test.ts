// "My bibliography as a corpus" against the stand-ins (test/support/scholarly-standin.ts, limits at its top), which
// serve one generated record per entry: some resolve to an arXiv e-print (tar or single .tex), some to arXiv HTML,
// some to an open-access PDF, some to metadata only, some to nothing. Checked: the per-entry report matches what
// the stand-in holds, every stored paper keeps its .bib key, a second run fetches nothing, and a related-work run
// (`corpus-lens review`, offline outline) cites only keys of that .bib. The arXiv stand-in is run (and checked) at
// 20 ms spacing here (one request at a time, never closer): at arXiv's real 3 s the 180-entry run would take minutes
// (web.test.ts checks the 3 s).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBibtex, type BibRecord } from '../../src/core/bib/index.ts';
import { openStore } from '../../src/core/store/index.ts';
import { candidatesFromBib, fetchToCorpus, sourceContext, sourcesConfig } from '../../src/core/sources/index.ts';
import { HashEmbedder } from '../support/db-embedder.ts';
import { runCli } from '../support/cli.ts';
import { projectRoot } from '../support/eval.ts';
import { startStandins, type Kind, type Standins } from '../support/scholarly-standin.ts';
import { noPdflatex } from '../support/pdflatex.ts';

const scipyBib = join(projectRoot, '..', 'shared', 'eval', 'bibtex', 'scipy-1.0-references.bib');
const sampleBib = join(projectRoot, 'samples', 'corpus', 'references.bib');
const noShared =
  existsSync(scipyBib) || process.env.CI ? false : `${scipyBib} is missing (the shared eval data sits next to the repository)`;

const KINDS: Kind[] = ['eprint-tar', 'eprint-tex', 'oa-pdf', 'metadata', 'none', 'html', 'oa-pdf', 'metadata'];
const EXPECTED: Record<Kind, string> = {
  'eprint-tar': 'latex',
  'eprint-tex': 'latex',
  html: 'html',
  'oa-pdf': 'pdf',
  metadata: 'metadata',
  none: 'not-found',
};
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-bib-'));
let s: Standins;

before(async () => {
  s = await startStandins();
  s.arxivIntervalMs = 20;
  if (!noPdflatex) {
    execFileSync(
      'pdflatex',
      [
        '-interaction=nonstopmode',
        '-halt-on-error',
        '-output-directory',
        dir,
        join(projectRoot, 'test', 'fixtures', 'ingest', 'onecol.tex'),
      ],
      { cwd: dir, stdio: 'ignore', timeout: 60_000 },
    );
    s.setPdf(readFileSync(join(dir, 'onecol.pdf')));
  }
});
after(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One stand-in record per entry (kind by position); the expected outcome per key (a repeated DOI / title: in-corpus). */
function register(records: BibRecord[], prefix: string): Map<string, string> {
  const expected = new Map<string, string>();
  const seen = new Set<string>();
  records.forEach((r, i) => {
    // An entry that names its arXiv id has an e-print there (as every arXiv paper does).
    const kind: Kind = r.arxivId ? 'eprint-tex' : KINDS[i % KINDS.length];
    const arxiv = kind.startsWith('eprint') || kind === 'html';
    const id = r.doi ?? (arxiv ? `arxiv${i}` : `title:${r.title}`);
    if (!s.records.some((x) => x.title === r.title && x.doi === (r.doi ?? undefined))) {
      s.add({
        kind,
        title: r.title ?? `Untitled ${i}`,
        authors: r.authors.length ? r.authors : ['A. Nonymous'],
        year: r.year ?? 2000,
        doi: r.doi ?? undefined,
        arxivId: r.arxivId ?? (arxiv ? `${prefix}${String(i).padStart(5, '0')}` : undefined),
        license: 'http://creativecommons.org/licenses/by/4.0/',
        topic: `scientific computing ${r.title ?? ''}`,
      });
    }
    const outcome = r.abstract && kind === 'none' ? 'metadata' : EXPECTED[kind];
    expected.set(r.key, r.doi && seen.has(id) ? 'in-corpus' : outcome);
    seen.add(id);
  });
  return expected;
}

function env() {
  return {
    CORPUS_LENS_ARXIV_URL: s.arxivUrl,
    CORPUS_LENS_ARXIV_API_URL: s.arxivApiUrl,
    CORPUS_LENS_S2_URL: s.s2Url,
    CORPUS_LENS_OPENALEX_URL: s.openalexUrl,
    CORPUS_LENS_ARXIV_INTERVAL_MS: '20',
    CORPUS_LENS_S2_INTERVAL_MS: '0',
    CORPUS_LENS_OPENALEX_INTERVAL_MS: '0',
    CORPUS_LENS_CACHE: join(dir, 'cache-cli'),
    CORPUS_LENS_CONTACT: 'tester@example.org',
  };
}

test(
  "the sample paper's .bib: every entry resolved and reported, keys preserved; a second run fetches nothing",
  { skip: noPdflatex },
  async () => {
    const text = readFileSync(sampleBib, 'utf8');
    const { records } = await parseBibtex(text, sampleBib);
    const expected = register(records, '2401.');
    const { candidates } = await candidatesFromBib(text, sampleBib);
    const config = sourcesConfig({
      arxivApiUrl: s.arxivApiUrl,
      arxivUrl: s.arxivUrl,
      s2Url: s.s2Url,
      openalexUrl: s.openalexUrl,
      arxivIntervalMs: 20,
      s2IntervalMs: 0,
      openalexIntervalMs: 0,
      cacheDir: join(dir, 'cache-sample'),
    });
    const store = await openStore('memory://');
    try {
      const r = await fetchToCorpus(store, sourceContext(config), candidates, { embedder: new HashEmbedder() });
      assert.equal(r.entries.length, records.length);
      assert.deepEqual(new Map(r.entries.map((e) => [e.key!, e.outcome])), expected);
      assert.deepEqual(r.failed, []);
      const stored = r.entries.filter((e) => e.paperId).length;
      assert.equal((await store.counts()).papers, stored);
      // A second run: every stored entry is already in the corpus; no e-print, HTML or PDF is requested again.
      const downloads = () => [...s.hits.entries()].filter(([p]) => /^\/(e-print|html|pdf)\//.test(p)).reduce((n, [, c]) => n + c, 0);
      const before = downloads();
      const again = await fetchToCorpus(store, sourceContext(config), (await candidatesFromBib(text, sampleBib)).candidates, {
        embedder: new HashEmbedder(),
      });
      assert.equal(again.papers, 0);
      for (const e of again.entries)
        assert.ok(
          e.outcome === 'in-corpus' || (e.outcome === 'not-found' && expected.get(e.key!) === 'not-found') || (!e.doi && !e.arxivId),
          `${e.key}: ${e.outcome}`,
        );
      assert.equal(downloads(), before);
    } finally {
      await store.close();
    }
    assert.deepEqual(s.arxivViolations, []);
  },
);

test(
  'the 180-entry SciPy .bib through `corpus-lens fetch --bib`: per-entry report, keys preserved, related work cites only its keys',
  { skip: noShared || noPdflatex },
  async () => {
    const text = readFileSync(scipyBib, 'utf8');
    const { records } = await parseBibtex(text, scipyBib);
    assert.ok(records.length >= 180, `${records.length} entries`);
    const expected = register(records, '1901.');
    const db = join(dir, 'scipy-db');
    const keys = new Set(records.map((r) => r.key));

    const run = await runCli(['fetch', '--db', db, '--bib', scipyBib, '--yes', '--json'], { env: env() });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const summary = JSON.parse(run.stdout) as {
      papers: number;
      entries: { key: string; outcome: string; paperId: string | null }[];
      failed: unknown[];
    };
    assert.deepEqual(new Map(summary.entries.map((e) => [e.key, e.outcome])), expected);
    assert.deepEqual(summary.failed, []);
    assert.match(run.stderr, new RegExp(`${records.length}/${records.length} papers · 0 failed`));
    const outcomes = new Set(summary.entries.map((e) => e.outcome));
    for (const o of ['latex', 'html', 'pdf', 'metadata', 'not-found']) assert.ok(outcomes.has(o), `some entry ends as ${o}`);
    assert.deepEqual(s.arxivViolations, []);

    // Without --yes and without a terminal: a clear error, nothing fetched.
    const ask = await runCli(['fetch', '--db', join(dir, 'other-db'), '--ids', '10.1000/x'], { env: env() });
    assert.equal(ask.code, 2, 'a usage error');
    assert.match(ask.stderr, /pass --yes/);

    // Related work from this corpus (offline outline) with the author's .bib: every cited paper is found in it, under
    // the key the entry has and the paper that entry was fetched as; nothing is appended to the .bib.
    const myBib = join(dir, 'paper.bib');
    copyFileSync(scipyBib, myBib);
    const review = await runCli(
      ['review', '--db', db, '--topic', 'scientific computing with Python arrays', '--bib', myBib, '--json', '--quiet'],
      { env: { OPENAI_BASE_URL: '', OPENAI_API_KEY: '' } },
    );
    assert.equal(review.code, 0, review.stderr.slice(-1000));
    const cited = (JSON.parse(review.stdout) as { cited: { key: string; paperId: string; reused: boolean }[] }).cited;
    assert.ok(cited.length >= 3, `${cited.length} papers cited`);
    const keyOf = new Map(summary.entries.filter((e) => e.paperId).map((e) => [e.paperId!, e.key]));
    for (const c of cited) {
      assert.ok(keys.has(c.key) && c.reused, `${c.key} is a key of the .bib`);
      assert.equal(keyOf.get(c.paperId), c.key, `${c.paperId} is stored under its .bib key`);
    }
    assert.equal(readFileSync(myBib, 'utf8'), text, 'no entry appended: every cited paper is already in the .bib');
  },
);
