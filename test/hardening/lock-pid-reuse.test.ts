// A corpus lock names its owner by pid AND start time: a pid reused by another process (pid 1 after a reboot, a
// shell) does not keep the corpus locked, and the message advises `kill` only for a process known to be the owner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorpusInUseError, LOCK_FILE, lockCorpus, processStarted } from '../../src/core/store/ops/lock.ts';

const linux = processStarted(process.pid) !== null;

function lockNaming(dir: string, pid: number, started?: string): void {
  writeFileSync(
    join(dir, LOCK_FILE),
    JSON.stringify({
      pid,
      host: hostname(),
      command: 'corpus-lens ingest',
      since: '2026-01-01T00:00:00.000Z',
      ...(started ? { started } : {}),
    }),
  );
}

test(
  'a lock whose pid now belongs to another process is stale; kill is advised only for the verified owner',
  { skip: !linux && 'needs /proc' },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-pid-reuse-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const node = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const shell = spawn('sleep', ['60']);
    t.after(() => {
      node.kill('SIGKILL');
      shell.kill('SIGKILL');
    });
    await new Promise((r) => setTimeout(r, 300));

    // Pid 1 (this machine's init, running) named by a lock written at another start: taken over.
    lockNaming(dir, 1, 'another-boot:12345');
    const lock = await lockCorpus(dir);
    const mine = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'));
    assert.equal(mine.pid, process.pid);
    assert.equal(mine.started, processStarted(process.pid), 'the lock records its owner start time');
    lock.release();

    // An older lock without a start time naming pid 1 or a process that is no Node/VS Code one: stale too.
    for (const pid of [1, shell.pid!]) {
      lockNaming(dir, pid);
      (await lockCorpus(dir)).release();
    }

    // The real owner (its start time matches) holds the corpus, and only then is `kill` suggested.
    lockNaming(dir, node.pid!, processStarted(node.pid!)!);
    await assert.rejects(lockCorpus(dir), (err: Error) => {
      assert.ok(err instanceof CorpusInUseError);
      assert.match(err.message, new RegExp(`or stop it \\(kill ${node.pid}\\)`));
      return true;
    });
    // The same pid with another start time is some other process: stale.
    lockNaming(dir, node.pid!, `${processStarted(node.pid!)}0`);
    (await lockCorpus(dir)).release();
    // A Node process named by a lock without a start time may be the owner: it holds, but no kill is advised.
    lockNaming(dir, node.pid!);
    await assert.rejects(lockCorpus(dir), (err: Error) => {
      assert.ok(err instanceof CorpusInUseError);
      assert.doesNotMatch(err.message, /kill/);
      assert.match(err.message, /if no such process runs, delete .*corpus-lens\.lock/);
      return true;
    });
  },
);
