// A PDF compiled from a LaTeX source the corpus holds is a worse copy of that paper's work: ingest skips it and,
// since it is recorded as such a copy, later runs skip it unread (a real PDF took seconds to parse on every run) until
// it changes, its paper is deleted, or the run is a re-index; a copy of the corpus (corpus-lens copy) keeps that record.
// Real pdflatex, real PGlite, corpus-lens ingest's units, each unit's read counted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineEmbedder } from '../../src/core/embed/index.ts';
import { fileUnits, ingestUnits, type IngestOptions } from '../../src/core/ingest/pipeline.ts';
import { openStore } from '../../src/core/store/index.ts';
import { openPGliteStore } from '../../src/core/store/backends/pglite.ts';
import { copyCorpus } from '../../src/core/store/ops/copy.ts';
import type { CorpusStore } from '../../src/core/store/types.ts';
import { projectRoot } from '../support/eval.ts';
import { noPdflatex } from '../support/pdflatex.ts';

const SAMPLE = join(projectRoot, 'samples', 'corpus', 'falk2024quantization.tex');
const embedder = createOfflineEmbedder();
const dirs: string[] = [];
let compiled = '';
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

before(() => {
  if (noPdflatex) return;
  compiled = folder();
  copyFileSync(SAMPLE, join(compiled, 'paper.tex'));
  execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', 'paper.tex'], {
    cwd: compiled,
    stdio: 'ignore',
    timeout: 60_000,
  });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cl-source-copies-'));
  dirs.push(dir);
  return dir;
}

/** A folder holding paper.tex and the paper.pdf compiled from it. */
function texAndPdf(): { dir: string; tex: string; pdf: string } {
  const dir = folder();
  for (const f of ['paper.tex', 'paper.pdf']) copyFileSync(join(compiled, f), join(dir, f));
  return { dir, tex: join(dir, 'paper.tex'), pdf: join(dir, 'paper.pdf') };
}

/** corpus-lens ingest of `inputs`, with the names of the files it read (parsed). */
async function run(store: CorpusStore, inputs: string[], options: Partial<IngestOptions> = {}) {
  const { units } = await fileUnits(inputs);
  const read: string[] = [];
  const counted = units.map((u) => ({
    ...u,
    read: (signal?: AbortSignal) => {
      read.push(u.label.replace(/.*\//, ''));
      return u.read(signal);
    },
  }));
  const summary = await ingestUnits(store, counted, { embedder, ...options });
  assert.deepEqual(summary.failed, []);
  return { ...summary, read };
}

test(
  'paper.tex and its paper.pdf in one folder: the PDF is parsed once, then skipped unread until it changes, its paper goes or a re-index',
  { skip: noPdflatex, timeout: 120_000 },
  async () => {
    const { dir, pdf } = texAndPdf();
    const store = await openStore(join(dir, 'corpus'));
    try {
      const first = await run(store, [dir]);
      assert.deepEqual(first.read, ['paper.pdf', 'paper.tex']);
      const [paper] = await store.sources();
      assert.equal((await store.counts()).papers, 1, 'one paper: the LaTeX text');

      const second = await run(store, [dir]);
      assert.deepEqual(second.read, ['paper.tex'], 'the PDF is not parsed again (a LaTeX project is always read)');
      assert.deepEqual([second.papers, second.skipped], [0, 2], 'both unchanged');

      appendFileSync(pdf, '\n% compiled again\n');
      const changed = await run(store, [dir]);
      assert.deepEqual(changed.read, ['paper.pdf', 'paper.tex'], 'a changed PDF is read');
      assert.deepEqual(await store.sources(), [paper], 'and still skipped as the worse copy');
      assert.deepEqual((await run(store, [dir])).read, ['paper.tex'], 'then skipped unread again');

      assert.deepEqual((await run(store, [dir], { reindex: true })).read, ['paper.pdf', 'paper.tex'], '--reindex reads it');
      assert.deepEqual((await run(store, [dir])).read, ['paper.tex'], 'and it is still recorded as a copy');

      // The LaTeX text's paper deleted (and its source not indexed with it): the PDF is indexed on its own.
      await store.deletePapers([paper.id]);
      const alone = await run(store, [pdf]);
      assert.deepEqual([alone.read, alone.papers], [['paper.pdf'], 1], 'the PDF is read and written');
      assert.equal((await store.sources())[0].sourcePath, pdf);
    } finally {
      await store.close();
    }
  },
);

test(
  'the .tex in one run and the PDF in a later one, or the PDF first and then the .tex: the PDF is parsed at most once more',
  { skip: noPdflatex, timeout: 120_000 },
  async () => {
    const { dir, tex, pdf } = texAndPdf();
    const store = await openStore(join(dir, 'corpus'));
    try {
      await run(store, [tex]);
      assert.deepEqual((await run(store, [pdf])).read, ['paper.pdf']);
      assert.deepEqual((await run(store, [pdf])).read, [], 'skipped as a worse copy, then unread');
    } finally {
      await store.close();
    }
    const other = folder();
    const store2 = await openStore(join(other, 'corpus'));
    try {
      await run(store2, [pdf]);
      const texAfter = await run(store2, [tex]);
      assert.deepEqual([texAfter.read, texAfter.papers], [['paper.tex'], 1], "the LaTeX text replaces the PDF's");
      assert.equal((await store2.sources())[0].sourcePath, tex);
      assert.deepEqual((await run(store2, [dir])).read, ['paper.tex'], 'the PDF the LaTeX text replaced is not read again');
    } finally {
      await store2.close();
    }
  },
);

test(
  'a corpus copied to another (corpus-lens copy, Move Corpus) carries its source copies: ingest over the copy skips the PDF unread',
  { skip: noPdflatex, timeout: 120_000 },
  async () => {
    const { dir } = texAndPdf();
    const source = await openPGliteStore(join(dir, 'corpus'));
    const target = await openPGliteStore(join(dir, 'copied'));
    try {
      await run(source, [dir]);
      const recorded = await source.sourceCopies();
      assert.equal(recorded.length, 1, 'the PDF is recorded as a copy of the LaTeX text');
      const summary = await copyCorpus(source, target);
      assert.equal(summary.checksum.match, true);
      assert.deepEqual(summary.sourceCopies, { source: 1, copied: 1, target: 1 });
      assert.deepEqual(await target.sourceCopies(), recorded);
      assert.deepEqual((await run(target, [dir])).read, ['paper.tex'], 'the PDF is not parsed again after the copy');
      assert.deepEqual((await copyCorpus(source, target)).sourceCopies, { source: 1, copied: 0, target: 1 }, 'a rerun writes none');
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  },
);

test('a source corpus from before schema v17 (no source_copies table) copies with none and no error', { timeout: 120_000 }, async () => {
  const dir = folder();
  const source = await openPGliteStore(join(dir, 'corpus'));
  await run(source, [SAMPLE]);
  await source.driver.exec(`DROP TABLE source_copies; UPDATE corpus_meta SET value = '16' WHERE key = 'schema_version'`);
  await source.close();
  const old = await openPGliteStore(join(dir, 'corpus'), { create: false });
  const target = await openPGliteStore(join(dir, 'copied'));
  try {
    const summary = await copyCorpus(old, target);
    assert.equal(summary.checksum.match, true);
    assert.deepEqual(summary.sourceCopies, { source: 0, copied: 0, target: 0 });
    assert.deepEqual(await target.sourceCopies(), []);
  } finally {
    await Promise.all([old.close(), target.close()]);
  }
});
