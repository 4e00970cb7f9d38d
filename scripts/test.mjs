#!/usr/bin/env node
// The test step of `npm test`: every test/**/*.test.ts under Node's test runner, in two phases.
//   1. The files that can share the machine, CORPUS_LENS_TEST_CONCURRENCY at a time (default 1, Node's own choice on a
//      2-core machine; .ci/run sets 2). Two at a time keep the second core busy while a file waits on its CLI child,
//      PostgreSQL, pdflatex or Chromium: 14.4 min against 18.9 one at a time on an idle 2-core machine, and it passed
//      at load 7-21 too (2026-11-28, beside three engineers' builds). A user's `npm test` keeps 1: their machine may
//      be doing other work.
//   2. Then, one at a time with nothing beside them, the files whose header line says "npm test runs this file
//      alone": wall-clock bounds, kills timed against a running process, load floors, the real VS Code.
// Every file runs in its own process with its own temporary folders, PostgreSQL port and stand-in servers, and no file
// of phase 1 rebuilds dist/, so phase 1 shares nothing but the built dist/. Extra arguments go to both phases
// (e.g. `npm test -- --test-name-pattern=ingest`). After each phase, every file's wall time is listed, slowest first
// (scripts/test-file-times.mjs).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const ALONE = /^\/\/ npm test runs this file alone\b/m;

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return testFiles(p);
    return e.name.endsWith('.test.ts') ? [relative(root, p)] : [];
  });
}

const files = testFiles(join(root, 'test')).sort();
const alone = files.filter((f) => ALONE.test(readFileSync(join(root, f), 'utf8')));
const shared = files.filter((f) => !alone.includes(f));
const width = Number(process.env.CORPUS_LENS_TEST_CONCURRENCY ?? 1);
if (!Number.isInteger(width) || width < 1) throw new Error(`CORPUS_LENS_TEST_CONCURRENCY: '${width}' is not a positive integer`);
const extra = process.argv.slice(2);

function run(label, list, concurrency) {
  if (list.length === 0) return 0;
  console.log(`# npm test: ${label}: ${list.length} files, ${concurrency} at a time`);
  const r = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`],
      ...['--test-reporter=spec', '--test-reporter-destination=stdout'],
      ...['--test-reporter=./scripts/test-file-times.mjs', '--test-reporter-destination=stdout'],
      ...extra,
      ...list,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (r.error) throw r.error;
  return r.status ?? 1;
}

// Both phases run whatever the first gives, so one CI run reports every failure.
const first = run('shared', shared, width);
const second = run('alone', alone, 1);
process.exitCode = first || second;
