// npm test runs this file alone: it SIGKILLs an ingest at stages it sees by polling the disk every 2 ms.
// A kill -9 of the first `ingest` at any stage of creating a new embedded corpus leaves either nothing or a whole
// corpus: the next ingest runs and a query answers, with no leftovers beside the folder. The stages are recognised
// on disk (polled every few milliseconds), wherever the run builds the database (in place or beside it):
//   folder: a folder for the new database exists;
//   files: database files are written (base/), PG_VERSION not yet (the state the reliability probe found);
//   complete: PG_VERSION is written (the database is initialised);
//   locked: the corpus is open (its lock file is in place) and the run goes on to its schema and papers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE } from '../../src/core/store/ops/lock.ts';
import { projectRoot } from '../support/eval.ts';
import { runCli } from '../support/cli.ts';

const paper = join(projectRoot, 'samples', 'corpus', 'brennan2025genreaware.md');

/** The folders that may hold the new database: the corpus folder and any sibling whose name starts with its name. */
function candidates(parent: string, name: string): string[] {
  return readdirSync(parent)
    .filter((n) => n === name || n.includes(name))
    .map((n) => join(parent, n));
}

const stages: Record<string, (dirs: string[]) => boolean> = {
  folder: (dirs) => dirs.length > 0,
  files: (dirs) => dirs.some((d) => existsSync(join(d, 'base')) && !existsSync(join(d, 'PG_VERSION'))),
  complete: (dirs) => dirs.some((d) => existsSync(join(d, 'PG_VERSION'))),
  locked: (dirs) => dirs.some((d) => existsSync(join(d, LOCK_FILE))),
};

/** Starts `ingest --db db`, SIGKILLs it the moment `stage` is seen on disk; whether the stage was reached. */
function killAt(parent: string, name: string, stage: (dirs: string[]) => boolean): Promise<boolean> {
  const child = spawn(process.execPath, [join(projectRoot, 'dist', 'cli.js'), 'ingest', '--db', join(parent, name), paper], {
    stdio: 'ignore',
  });
  return new Promise((resolve) => {
    let hit = false;
    const timer = setInterval(() => {
      let dirs: string[] = [];
      try {
        dirs = candidates(parent, name);
      } catch {
        /* racing with a rename */
      }
      if (!hit && stage(dirs)) {
        hit = true;
        child.kill('SIGKILL');
      }
    }, 2);
    child.on('exit', () => {
      clearInterval(timer);
      resolve(hit);
    });
  });
}

for (const [name, stage] of Object.entries(stages)) {
  test(`a kill at stage "${name}" of corpus creation leaves nothing or a whole corpus`, { timeout: 240_000 }, async (t) => {
    const parent = mkdtempSync(join(tmpdir(), 'corpus-lens-create-kill-'));
    t.after(() => rmSync(parent, { recursive: true, force: true }));
    const db = join(parent, 'corpus');
    assert.ok(await killAt(parent, 'corpus', stage), `the run finished before stage "${name}" was seen`);
    if (existsSync(db)) {
      const entries = readdirSync(db);
      assert.ok(
        entries.length === 0 || entries.includes('PG_VERSION'),
        `after a kill at "${name}" the folder holds a partial database: ${entries.join(', ')}`,
      );
    }
    const again = await runCli(['ingest', '--db', db, '--json', paper]);
    assert.equal(again.code, 0, `ingest after a kill at "${name}": ${again.stderr}`);
    const query = await runCli(['query', '--db', db, '--mode', 'keyword', 'genre']);
    assert.equal(query.code, 0, query.stderr);
    assert.ok(JSON.parse(query.stdout).length > 0, 'the corpus answers');
    assert.deepEqual(readdirSync(parent), ['corpus'], 'nothing is left beside the corpus');
  });
}

test(
  'a folder left unfinished by an older version (database files, no PG_VERSION) says so and is recreated by ingest',
  { timeout: 240_000 },
  async (t) => {
    const parent = mkdtempSync(join(tmpdir(), 'corpus-lens-create-kill-'));
    t.after(() => rmSync(parent, { recursive: true, force: true }));
    const db = join(parent, 'corpus');
    // What an in-place initialisation killed mid-way leaves.
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(db, 'base', '1'), { recursive: true });
    mkdirSync(join(db, 'global'));
    writeFileSync(join(db, 'base', '1', '1259'), Buffer.alloc(8192));
    writeFileSync(join(db, 'postgresql.conf'), '');
    const query = await runCli(['query', '--db', db, '--mode', 'keyword', 'genre']);
    assert.equal(query.code, 1);
    assert.match(
      query.stderr,
      /was never finished \(its creation was interrupted; it holds no papers\): `corpus-lens ingest --db .*` creates it again, or delete the folder/,
    );
    const again = await runCli(['ingest', '--db', db, '--json', paper]);
    assert.equal(again.code, 0, again.stderr);
    assert.ok(JSON.parse(again.stdout).sentences > 0);
    assert.deepEqual(readdirSync(parent), ['corpus']);
  },
);
