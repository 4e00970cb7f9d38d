// The README's first command (`npm run demo`) must keep showing a real sentence of the sample paper.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.ts';
import { projectRoot } from '../support/eval.ts';

test('the demo offset lands on a prose sentence of the sample paper, with its section', async () => {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
  const args = String(pkg.scripts.demo).split('node dist/cli.js ')[1].split(/\s+/);
  const r = await runCli(args);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.section, 'Results');
  assert.match(s.clean, /^Participants wrote faster with the tool than without it/);
  const source = readFileSync(join(projectRoot, 'samples', 'sample-paper.tex'), 'utf8');
  assert.equal(source.slice(s.start, s.end), s.text);
});
