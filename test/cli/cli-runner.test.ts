/**
 * The tests' CLI runner (test/support/cli.ts) stops a CLI child when the test that started it times out, instead of
 * leaving it to run on against the file's shared stand-ins while the next tests run. A fixture test file, run by
 * Node's test runner in its own process, starts `corpus-lens query` against a server that accepts the connection and
 * never answers (the CLI would wait 10 s for PostgreSQL), times out after 4 s, and its next test waits for that
 * connection to close.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { projectRoot } from '../support/eval.js';

const FIXTURE = (cli: string) => `
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { runCli } from ${JSON.stringify(cli)};

let closed;
const server = createServer((socket) => {
  socket.resume(); // read (and drop) what the CLI sends, so that its hang-up ends the socket
  closed = new Promise((done) => socket.on('close', () => done(performance.now())));
});
await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
server.unref(); // a failed check below must not leave this file's process waiting on its listener

// 4 s: time for a CLI started on a loaded machine to connect (it then waits 10 s for PostgreSQL's answer).
test('a CLI run that outlives its test', { timeout: 4000 }, async () => {
  await runCli(['query', '--db', 'postgres://nobody@127.0.0.1:' + server.address().port + '/corpus', 'a sentence']);
});

test('the next test', async () => {
  const start = performance.now();
  assert.ok(closed, 'the CLI connected');
  const at = await Promise.race([closed, new Promise((later) => setTimeout(later, 5000, Infinity).unref())]);
  server.close();
  assert.ok(at - start < 5000, 'the CLI child still holds its connection');
});
`;

test('a CLI child is killed when its test times out, before the next test runs on', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-cli-runner-'));
  try {
    const file = join(dir, 'timeout.test.mjs');
    writeFileSync(file, FIXTURE(pathToFileURL(join(projectRoot, 'test', 'support', 'cli.ts')).href));
    // Without the variable the test runner sets in the files it runs, this is a runner of its own that prints TAP.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', file], {
      cwd: projectRoot,
      env,
      encoding: 'utf8',
      // spawnSync holds this file's event loop, so the test's own timeout cannot fire: the child's must.
      timeout: 50_000,
    });
    assert.equal(r.signal, null, `the fixture's run was stopped after 50 s: ${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /^not ok 1 - a CLI run that outlives its test$/m, r.stdout);
    assert.match(r.stdout, /test timed out after 4000ms/, r.stdout);
    assert.match(r.stdout, /^ok 2 - the next test$/m, r.stdout + r.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
