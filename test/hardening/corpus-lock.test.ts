// npm test runs this file alone: it kills an ingest mid-run and races separate processes for one corpus.
// One process at a time on an embedded corpus (store/ops/lock.ts): concurrent ingests, queries and reviews from
// separate OS processes either run or fail with "in use by process <pid>", and the corpus is whole after (counts
// exact, queries answer); a killed owner's lock is taken over; a reader never creates a corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { CorpusInUseError, LOCK_FILE, lockCorpus } from '../../src/core/store/ops/lock.ts';
import { openPGliteStore } from '../../src/core/store/backends/pglite.ts';
import { projectRoot } from '../support/eval.ts';
import { runCli } from '../support/cli.ts';

const samples = join(projectRoot, 'samples', 'corpus');
const files = readdirSync(samples)
  .filter((f) => /\.(tex|md)$/.test(f))
  .sort()
  .map((f) => join(samples, f));

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'corpus-lens-lock-'));
}

test('a lock held by a live process names it; a dead or torn one is taken over; release removes it', async (t) => {
  const dir = tmp();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  t.after(() => sleeper.kill());
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: sleeper.pid, host: hostname(), command: 'corpus-lens ingest', since: 'now' }));
  await assert.rejects(lockCorpus(dir), (err: Error) => {
    assert.ok(err instanceof CorpusInUseError);
    assert.match(err.message, new RegExp(`in use by process ${sleeper.pid} \\(corpus-lens ingest`));
    assert.match(err.message, /wait for it to finish/);
    return true;
  });
  // Waiting: the owner exits, the waiter gets the corpus.
  const waiting = lockCorpus(dir, { waitMs: 20_000 });
  sleeper.kill('SIGKILL');
  const lock = await waiting;
  lock.release();
  assert.ok(!existsSync(join(dir, LOCK_FILE)));
  // A dead pid and a torn (empty) lock file are stale.
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), command: 'x', since: 'then' }));
  (await lockCorpus(dir)).release();
  writeFileSync(join(dir, LOCK_FILE), '');
  const again = await lockCorpus(dir);
  // The same process opening twice is refused too (two PGlite instances on one folder corrupt it just the same).
  await assert.rejects(lockCorpus(dir), CorpusInUseError);
  again.release();
  assert.deepEqual(readdirSync(dir), []);
});

test(
  'concurrent ingests, queries and reviews from separate processes leave a whole corpus with exact counts',
  { timeout: 180_000 },
  async (t) => {
    const dir = tmp();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const db = join(dir, 'corpus');
    const first = await runCli(['ingest', '--db', db, '--json', files[0]]);
    assert.equal(first.code, 0, first.stderr);
    let papers = JSON.parse(first.stdout).papers as number;
    let sentences = JSON.parse(first.stdout).sentences as number;
    const ingests = [files[1], files[2], files[3]].map((f) => runCli(['ingest', '--db', db, '--json', f]));
    const readers = [
      runCli(['query', '--db', db, '--mode', 'keyword', 'sentence embeddings for retrieval']),
      runCli(['query', '--db', db, '--mode', 'hybrid', 'citation recommendation']),
      runCli(['review', '--db', db, '--topic', 'citation recommendation', '--json']),
    ];
    const results = await Promise.all([...ingests, ...readers]);
    let ran = 0;
    for (const [i, r] of results.entries()) {
      if (r.code === 0) {
        ran++;
        if (i < ingests.length) {
          const s = JSON.parse(r.stdout);
          papers += s.papers;
          sentences += s.sentences;
        }
        continue;
      }
      // The only acceptable failure: the corpus was busy, said in one line with the owner's pid and what to do.
      assert.match(r.stderr, /^corpus-lens: the corpus at .* is in use by process \d+ \(corpus-lens (ingest|query|review)/, r.stderr);
      assert.match(r.stderr, /wait for it to finish/);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    assert.ok(ran >= 1);
    // Integrity: counts are exactly what the successful runs reported, and every query mode answers.
    const store = await openPGliteStore(db, { create: false });
    try {
      assert.deepEqual(await store.counts(), { papers, sentences });
    } finally {
      await store.close();
    }
    for (const mode of ['vector', 'keyword', 'hybrid']) {
      const q = await runCli(['query', '--db', db, '--mode', mode, '--k', '3', 'retrieval of similar sentences']);
      assert.equal(q.code, 0, q.stderr);
      assert.ok(JSON.parse(q.stdout).length > 0, `${mode}: ${q.stdout}`);
    }
    assert.ok(!existsSync(join(db, LOCK_FILE)), 'every run released the lock');
  },
);

test('an ingest killed mid-run leaves a stale lock that the next run takes over', { timeout: 120_000 }, async (t) => {
  const dir = tmp();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = join(dir, 'corpus');
  const child = spawn(process.execPath, [join(projectRoot, 'dist', 'cli.js'), 'ingest', '--db', db, '--progress', samples], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Kill it once it has written something (its first progress line).
  await new Promise<void>((resolve) => child.stderr.once('data', () => resolve()));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('close', resolve));
  assert.ok(existsSync(join(db, LOCK_FILE)), 'SIGKILL left the lock behind');
  const next = await runCli(['ingest', '--db', db, '--json', files[0]]);
  assert.equal(next.code, 0, next.stderr);
  const q = await runCli(['query', '--db', db, '--k', '2', 'retrieval']);
  assert.equal(q.code, 0, q.stderr);
});
