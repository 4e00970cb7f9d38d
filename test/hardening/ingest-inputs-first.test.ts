// `ingest --db NEW PATH` checks its PATHs before it makes anything: a missing path, or a folder with no papers,
// fails with a sentence and leaves no corpus folder (nor its parent folders) behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.ts';

test('ingest --db NEW with a missing path or no papers creates nothing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-inputs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = join(dir, 'sub', 'corpus');
  for (const path of [join(dir, 'missing-path'), '/nope.pdf']) {
    const r = await runCli(['ingest', '--db', db, path]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, `corpus-lens: ${path}: no such file or folder (no corpus was created)\n`);
    assert.ok(!existsSync(join(dir, 'sub')), `${path}: nothing is created`);
  }
  const empty = join(dir, 'notes');
  mkdirSync(empty);
  writeFileSync(join(empty, 'todo.txt'), 'not a paper');
  const r = await runCli(['ingest', '--db', db, empty]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^corpus-lens: no paper files \(PDF, LaTeX, arXiv HTML, Markdown, \.bib\) in .*notes: nothing to add, so no corpus was created\n$/,
  );
  assert.deepEqual(readdirSync(dir), ['notes']);
});
