// `corpus-lens stats` (the built CLI, as users run it) on an embedded corpus with what a real one collects: a LaTeX
// paper and the PDF compiled from it stored as two papers (as a corpus built before one-paper-per-work, or written by
// a source that does not match works, has them), a LaTeX project whose `\input{authors}` is missing (an `anon…` key, no authors), and a three-sentence note
// (a stub). The report finds each with its fix, and the duplicate's fix command, run as printed, leaves one paper.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { runCli } from '../support/cli.ts';
import { createOfflineEmbedder } from '../../src/core/embed/offline-default.ts';
import { readPaperFile } from '../../src/core/ingest/index.ts';
import { ingest, ingestPapers } from '../../src/core/ingest/pipeline.ts';
import { openStore } from '../../src/core/store/index.ts';
import { compileFixture, noPdflatex } from '../support/pdflatex.ts';

const fixtures = join(__dirname, '..', 'fixtures', 'ingest');
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-stats-cli-'));
const db = join(dir, 'corpus');
after(() => rmSync(dir, { recursive: true, force: true }));

interface Brief {
  id: string;
  title: string | null;
  citationKey: string | null;
  sourcePath: string | null;
  kind: string;
  sentences: number;
}
interface Fix {
  action: string;
  text: string;
  command: string | null;
}
interface Report {
  papers: number;
  sentences: number;
  bySource: { kind: string; papers: number; sentences: number }[];
  missingTitle: { paper: Brief; fix: Fix }[];
  missingAuthors: { paper: Brief; fix: Fix }[];
  missingYear: { paper: Brief; fix: Fix }[];
  anonymousKeys: { paper: Brief; fix: Fix }[];
  stubs: { paper: Brief; fix: Fix }[];
  duplicates: { reason: string; key: string; papers: Brief[]; fix: Fix }[];
  missingInputs: { paper: Brief; file: string; missing: string[]; fix: Fix }[];
  notes: string[];
}

async function cli(...args: string[]): Promise<string> {
  const r = await runCli(args);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

async function stats(): Promise<Report> {
  return JSON.parse(await cli('stats', '--db', db, '--json'));
}

const tex = join(dir, 'work', 'onecol.tex');
const pdf = join(dir, 'typeset', 'onecol.pdf');
const anon = join(dir, 'anon', 'main.tex');
const note = join(dir, 'notes', 'hedging.md');

before(async () => {
  for (const d of ['work', 'typeset', 'anon', 'notes']) mkdirSync(join(dir, d));
  copyFileSync(join(fixtures, 'onecol.tex'), tex);
  const parts: string[] = [];
  if (!noPdflatex) {
    const built = compileFixture('onecol', join(dir, 'typeset'));
    assert.equal(built, pdf);
    parts.push(pdf);
  }
  // The SymPy case: the author block lives in a generated file that is not in the folder.
  writeFileSync(anon, readFileSync(join(fixtures, 'kestrel2024cache.tex'), 'utf8').replace(/\\author\{[^}]*\}/, '\\input{authors}'));
  writeFileSync(
    note,
    '---\ntitle: A Short Note on Hedging\nauthor: Mia Tanabe\ndate: 2020\n---\n\n# Note\n\nHedging softens claims. Writers hedge often. Readers notice it.\n',
  );
  // Written in this process (one embedded store opened once, the CLI's offline embedder): the PDF goes in through the
  // path of papers already read, which never matches works, so the LaTeX and its PDF are two papers.
  const store = await openStore(db, { create: true });
  try {
    const embedder = createOfflineEmbedder();
    const first = await ingest(store, [tex, anon, note], { embedder });
    assert.equal(first.papers, 3);
    for (const p of parts) {
      const read = await readPaperFile(p);
      assert.equal((await ingestPapers(store, read.papers, { embedder })).papers, 1);
    }
  } finally {
    await store.close();
  }
});

test('stats --json: papers and sentences by source, anonymous keys, stubs, missing authors and \\input files, each with its fix', async () => {
  const r = await stats();
  const kinds = Object.fromEntries(r.bySource.map((s) => [s.kind, s]));
  assert.equal(kinds.latex.papers, 2);
  assert.equal(kinds.markdown.papers, 1);
  assert.equal(kinds.markdown.sentences, 3);
  assert.equal(
    r.sentences,
    r.bySource.reduce((n, s) => n + s.sentences, 0),
  );
  assert.equal(r.papers, noPdflatex ? 3 : 4);

  const anonKey = r.anonymousKeys.find((f) => f.paper.sourcePath === anon);
  assert.ok(anonKey, JSON.stringify(r.anonymousKeys));
  assert.match(anonKey.paper.citationKey!, /^anon/);
  assert.ok(r.missingAuthors.some((f) => f.paper.sourcePath === anon));
  assert.equal(anonKey.fix.action, 'metadata');
  assert.equal(anonKey.fix.command, `corpus-lens ingest --db ${db} --reindex ${anon}`);

  const stub = r.stubs.find((f) => f.paper.sourcePath === note);
  assert.ok(stub, JSON.stringify(r.stubs));
  assert.equal(stub.paper.sentences, 3);
  assert.ok(!r.stubs.some((f) => f.paper.sourcePath === tex), 'a 78-sentence paper is no stub');

  assert.deepEqual(
    r.missingInputs.map((m) => [m.file, m.missing]),
    [[anon, ['authors']]],
  );
  assert.match(r.missingInputs[0].fix.command!, /--reindex/);
  assert.ok(!r.missingTitle.length, JSON.stringify(r.missingTitle));
});

test(
  'stats: a LaTeX paper and its compiled PDF stored as two papers are one likely duplicate; its fix command merges them',
  { skip: noPdflatex },
  async () => {
    const r = await stats();
    assert.equal(r.duplicates.length, 1, JSON.stringify(r.duplicates));
    const [dup] = r.duplicates;
    assert.deepEqual(
      dup.papers.map((p) => [p.kind, p.sourcePath]),
      [
        ['latex', tex],
        ['pdf', pdf],
      ],
      'the LaTeX (best text) first',
    );
    assert.equal(dup.fix.action, 'merge');
    assert.equal(dup.fix.command, `corpus-lens ingest --db ${db} --reindex ${tex} ${pdf}`);

    // The fix as printed (the temp paths hold no spaces).
    const [, ...args] = dup.fix.command!.split(' ');
    await cli(...args, '--json');
    const fixed = await stats();
    assert.deepEqual(fixed.duplicates, []);
    assert.equal(fixed.papers, 3);
    const kinds = Object.fromEntries(fixed.bySource.map((s) => [s.kind, s.papers]));
    assert.equal(kinds.pdf, undefined, 'the LaTeX text is kept');
    assert.equal(kinds.latex, 2);
  },
);

test('stats without --json: the report as Markdown with the fix commands; a bad flag or an empty corpus is one clear line', async () => {
  const text = await cli('stats', '--db', db);
  assert.match(text, /^# Corpus health\n/);
  assert.match(text, /\| latex \| 2 \|/);
  assert.match(text, /## Anonymous keys \(1\)/);
  assert.ok(text.includes(`corpus-lens ingest --db ${db} --reindex ${anon}`));
  const bad = await runCli(['stats', '--db', db, '--jsn']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--json/);
  const empty = await runCli(['stats', '--db', join(dir, 'nothing-here')]);
  assert.equal(empty.code, 1);
  assert.equal(empty.stderr.trim().split('\n').length, 1, empty.stderr);
});
