// Warnings are not failures: a LaTeX project whose .bib gives hundreds of parser warnings indexes with 0 failed
// files, the entries kept (an undefined @string macro as its name, as BibTeX does), the warnings grouped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBibtex } from '../../src/core/bib/parse.ts';
import { failedFiles, groupProblems, indexingSummaryLine, problemLines } from '../../src/core/ingest/report.ts';
import { runCli } from '../support/cli.ts';
import { WARNING_ENTRIES, writeWarningProject } from '../support/warning-project.ts';

test('an entry with an undefined @string macro is kept with the macro name as text, plus a warning', async () => {
  const r = await parseBibtex(
    '@article{k1, title={On Search}, author={Doe, Jane}, journal=IEEE_J_PROC, year=2001}\n@article{k2, title={Broken, year=2001}\n',
    'x.bib',
  );
  const k1 = r.records.find((x) => x.key === 'k1');
  assert.equal(k1?.venue, 'IEEE_J_PROC');
  assert.deepEqual(
    r.warnings.map((w) => w.reason),
    ['@string macro IEEE_J_PROC is not defined here: kept as the text "IEEE_J_PROC"'],
  );
  assert.equal(r.errors.length, 1, 'a malformed entry is still an error');
});

test('indexing a LaTeX project with ~600 .bib warnings: 0 files failed, the warnings grouped by file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cl-warn-project-'));
  const expected = writeWarningProject(join(dir, 'paper'));
  const db = join(dir, 'corpus');
  const run = await runCli(['ingest', '--db', db, '--json', join(dir, 'paper')]);
  assert.equal(run.code, 0, run.stderr);
  const s = JSON.parse(run.stdout);
  assert.deepEqual(s.failed, []);
  assert.equal(s.warnings.length, expected.warnings);
  assert.ok(s.papers >= 1 && s.sentences >= 3, JSON.stringify({ papers: s.papers, sentences: s.sentences }));
  assert.equal(failedFiles(s.failed), 0);
  assert.match(indexingSummaryLine(s), new RegExp(`; 0 files failed; ${expected.warnings} warnings$`));
  const groups = groupProblems(s.warnings);
  assert.deepEqual(groups.map((g) => `${g.count} ${g.reason}`).sort(), [
    `1 unknown LaTeX macro kept as written: \\law (×${WARNING_ENTRIES})`,
    '200 @string macro AIJ is not defined here: kept as the text "AIJ"',
    '200 @string macro IEEE_J_PROC is not defined here: kept as the text "IEEE_J_PROC"',
  ]);
  assert.ok(groups.every((g) => g.file.endsWith('refs.bib')));
  assert.equal(problemLines(s).length, 3);
});
