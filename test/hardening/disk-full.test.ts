// A full disk mid-ingest: one line naming the problem and the fix, and the corpus still answers queries after.
// Needs a small file system to fill: a tmpfs mounted for the test (root with mount rights); skipped otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../support/eval.ts';

const cli = (args: string[]) =>
  spawnSync(process.execPath, [join(projectRoot, 'dist', 'cli.js'), ...args], { encoding: 'utf8', timeout: 60_000 });

function canMount(dir: string): boolean {
  if (process.getuid?.() !== 0) return false;
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]).status !== 0) return false;
  spawnSync('umount', [dir]);
  return true;
}

const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-full-'));
const mnt = join(dir, 'mnt');
mkdirSync(mnt);
const mountable = canMount(mnt);

test(
  'ingest onto a full disk says so and what to do; the corpus stays usable',
  { skip: !mountable && 'needs root and tmpfs mount rights', timeout: 180_000 },
  async (t) => {
    t.after(() => {
      spawnSync('umount', [mnt]);
      rmSync(dir, { recursive: true, force: true });
    });
    const samples = join(projectRoot, 'samples', 'corpus');
    const base = join(dir, 'corpus');
    assert.equal(cli(['ingest', '--db', base, join(samples, 'achterberg2019bm25sentences.tex')]).status, 0);
    const mb = Number(spawnSync('du', ['-sm', base], { encoding: 'utf8' }).stdout.split('\t')[0]);
    assert.equal(spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${mb + 2}m`, 'tmpfs', mnt]).status, 0);
    assert.equal(spawnSync('cp', ['-r', base, join(mnt, 'corpus')]).status, 0);
    const r = spawnSync(process.execPath, [join(projectRoot, 'dist', 'cli.js'), 'ingest', '--db', join(mnt, 'corpus'), samples], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.notEqual(r.status, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /(No space left on device|disk .*is full).*free some space/i);
    assert.doesNotMatch(r.stderr, /\[object Object\]/);
    // Opening on the still-full disk is refused at once (PGlite would hang writing its WAL), naming the fix.
    const q = spawnSync(
      process.execPath,
      [join(projectRoot, 'dist', 'cli.js'), 'query', '--db', join(mnt, 'corpus'), 'sentence retrieval'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(q.status, 1, q.stderr);
    assert.match(q.stderr, /the disk holding .* is full: free some space/);
    // With room again (a bigger file system), the corpus answers: nothing was damaged.
    assert.equal(spawnSync('mount', ['-o', `remount,size=${mb + 64}m`, mnt]).status, 0);
    const ok = cli(['query', '--db', join(mnt, 'corpus'), '--k', '2', 'sentence retrieval']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.ok(JSON.parse(ok.stdout).length > 0);
  },
);
