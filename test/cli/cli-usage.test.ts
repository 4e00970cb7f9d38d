// The CLI's conventions as a person meets them: --version, "did you mean" for a mistyped flag or command, exit 2
// for a usage error and 1 for a failure, and a sentence (not a bare null) when there is no sentence at --at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/eval.ts';
import { runCli } from '../support/cli.ts';

test('--version prints the package version', async () => {
  const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
  for (const flag of ['--version', '-V']) {
    const r = await runCli([flag]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `corpus-lens ${version}\n`);
  }
});

test('a mistyped flag or command is a usage error (exit 2) that names the nearest one', async () => {
  const flag = await runCli(['query', '--db', '/nowhere', '--mdoe', 'keyword', 'x']);
  assert.equal(flag.code, 2);
  assert.equal(flag.stderr, "corpus-lens: unknown option '--mdoe' — did you mean --mode? (see --help)\n");
  const far = await runCli(['segment', '--zzzzzz'], { input: 'x' });
  assert.equal(far.code, 2);
  assert.equal(far.stderr, "corpus-lens: unknown option '--zzzzzz' (see --help)\n");
  const missing = await runCli(['ingest', '--db']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^corpus-lens: --db argument missing \(see --help\)\n$/);
  const command = await runCli(['qurey', 'x']);
  assert.equal(command.code, 2);
  assert.match(command.stderr, /^corpus-lens: unknown command 'qurey' — did you mean query\? \(try: /);
});

test('usage errors exit 2 in every command; failures exit 1', async () => {
  const usage: string[][] = [
    ['segment'],
    ['query', '--db', '/nowhere', '--mode', 'fuzzy', 'x'],
    ['query', '--db', '/nowhere'],
    ['ingest', '--db', '/nowhere'],
    ['import', '--db', '/nowhere'],
    ['review', '--db', '/nowhere'],
    ['ask', '--db', '/nowhere'],
    ['elements', '--db', '/nowhere', '--type', 'chart'],
    ['copy', '--from', '/nowhere'],
    ['fetch', '--db', '/nowhere'],
    ['schema'],
  ];
  for (const args of usage) {
    const r = await runCli(args, { input: 'x' });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  const failures: string[][] = [
    ['segment', '--format', 'latex', '/nowhere/missing.tex'],
    ['query', '--db', '/nowhere/corpus', 'x'],
  ];
  for (const args of failures) {
    const r = await runCli(args);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
  }
});

test('segment --at on a blank line prints null and says there is no sentence there', async () => {
  const doc = 'First sentence here.\n\nSecond paragraph.\n';
  const r = await runCli(['segment', '--format', 'text', '--at', String(doc.indexOf('\n\n') + 1)], { input: doc });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, 'null\n');
  assert.equal(r.stderr, `corpus-lens: no sentence at offset ${doc.indexOf('\n\n') + 1}: it is on a blank line (between paragraphs)\n`);
});
