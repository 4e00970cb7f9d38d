// Bad input at the command line gets one clear line on stderr, a non-zero exit, and changes nothing on disk
// (issue 12.8, 19.6). Runs the built dist/cli.js as users do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../support/eval.ts';
import { runCli, type CliResult } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-badin-'));
const db = join(dir, 'corpus');
const paper = join(
  projectRoot,
  'samples',
  'corpus',
  readdirSync(join(projectRoot, 'samples', 'corpus'))
    .filter((f) => f.endsWith('.tex'))
    .sort()[0],
);

before(async () => {
  const r = await runCli(['ingest', '--db', db, paper]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /creating a new corpus at /, 'ingest says it creates a corpus');
});
after(() => rmSync(dir, { recursive: true, force: true }));

function oneClearLine(r: CliResult, pattern: RegExp, code = 2): void {
  assert.equal(r.code, code, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^corpus-lens: /);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\[object Object\]|at .*\.js:\d+|ambiguous/);
}

test('empty and symbol-only query text is refused (exit 2) in every mode, also with --threshold', async () => {
  for (const text of ['', '   ', '!!! ??? …', '$$ \\\\ {}']) {
    for (const mode of ['vector', 'keyword', 'hybrid']) {
      oneClearLine(await runCli(['query', '--db', db, '--mode', mode, '--threshold', '0.5', text]), /the query text has no words/);
    }
  }
  const file = join(dir, 'q.jsonl');
  writeFileSync(file, '{"id":1,"text":"retrieval of sentences"}\n{"id":2,"text":"  ..  "}\n');
  oneClearLine(await runCli(['query', '--db', db, '--queries', file]), /q\.jsonl: query 2: the query text has no words/);
});

test('--threshold is respected: no hit below it, none without a similarity', async () => {
  const r = await runCli(['query', '--db', db, '--threshold', '0.3', '--k', '50', 'sentence retrieval for writing']);
  assert.equal(r.code, 0, r.stderr);
  const hits = JSON.parse(r.stdout) as Array<{ similarity: number | null }>;
  for (const h of hits) assert.ok(typeof h.similarity === 'number' && h.similarity >= 0.3, JSON.stringify(h.similarity));
  const strict = JSON.parse((await runCli(['query', '--db', db, '--threshold', '0.999', 'sentence retrieval for writing'])).stdout);
  assert.deepEqual(strict, []);
});

test('--k -1, --offset out of range and 1 MB of text get range messages, not parser or Postgres errors', async () => {
  oneClearLine(await runCli(['query', '--db', db, '--k', '-1', 'retrieval']), /--k must be an integer from 1 to 10000 \(got '-1'\)/);
  oneClearLine(
    await runCli(['query', '--db', db, '--offset', '99999999999', 'retrieval']),
    /--offset must be an integer from -2147483647 to 2147483647/,
  );
  const ok = await runCli(['query', '--db', db, '--offset', '-1', '--k', '3', 'retrieval of sentences']);
  assert.equal(ok.code, 0, ok.stderr);
  const big = 'word '.repeat(200_000);
  const file = join(dir, 'big.jsonl');
  writeFileSync(file, JSON.stringify({ id: 'big', text: big }) + '\n');
  oneClearLine(
    await runCli(['query', '--db', db, '--mode', 'keyword', '--queries', file]),
    /query text is 1,000,000 characters: give one sentence or paragraph/,
  );
});

test('a mistyped --db creates nothing; a file or a foreign folder as --db is named', async () => {
  const typo = join(dir, 'no', 'such', 'corpus');
  for (const args of [
    ['query', '--db', typo, 'retrieval'],
    ['review', '--db', typo, '--topic', 'retrieval'],
  ]) {
    const r = await runCli(args);
    oneClearLine(r, /no corpus at .*no\/such\/corpus: check the path/, 1);
  }
  assert.ok(!existsSync(join(dir, 'no')), 'no folder was created');
  oneClearLine(await runCli(['query', '--db', '/etc/hostname', 'retrieval']), /\/etc\/hostname is a file, not a corpus folder/, 1);
  const foreign = join(dir, 'papers');
  mkdirSync(foreign);
  writeFileSync(join(foreign, 'notes.txt'), 'mine');
  oneClearLine(await runCli(['ingest', '--db', foreign, paper]), /is not a Corpus Lens corpus \(it holds other files\)/, 1);
  assert.deepEqual(readdirSync(foreign), ['notes.txt']);
});

test('`segment … | head` ends quietly: no EPIPE stack trace', async () => {
  const big = join(dir, 'big.txt');
  writeFileSync(big, 'A sentence here. Another one follows.\n'.repeat(20_000));
  const child = spawn(process.execPath, [join(projectRoot, 'dist', 'cli.js'), 'segment', '--format', 'text', big], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  child.stdout.destroy(); // what `head` does after its first bytes
  const code = await new Promise((resolve) => child.once('close', resolve));
  assert.equal(stderr, '');
  assert.equal(code, 0);
});

const isRoot = process.getuid?.() === 0;
test('a read-only corpus folder gets a message naming the problem and the fix', async () => {
  const ro = join(dir, 'ro');
  const copy = spawnSync('cp', ['-r', db, ro]);
  assert.equal(copy.status, 0);
  rmSync(join(ro, 'corpus-lens.lock'), { force: true });
  chmodSync(dir, 0o755);
  chmodSync(ro, 0o555);
  // root writes anywhere: run the CLI as an unprivileged user then (nobody), as a user would meet the problem.
  const asUser = isRoot ? { uid: 65534, gid: 65534 } : {};
  const r = spawnSync(process.execPath, [join(projectRoot, 'dist', 'cli.js'), 'query', '--db', ro, 'retrieval'], {
    encoding: 'utf8',
    ...asUser,
  });
  chmodSync(ro, 0o755);
  oneClearLine(
    { code: r.status, stdout: r.stdout, stderr: r.stderr },
    /no permission to write in the corpus folder .*ro: give your user write access/,
    1,
  );
});
