// Open source: what may be opened from (untrusted) corpus data.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { lineOfSentence, openTarget } from '../../../src/core/open-target.ts';

const roots = ['/home/ana/papers'];

test('a paper indexed from a file under an indexed folder opens that file, before its DOI', () => {
  assert.deepEqual(openTarget({ sourcePath: '/home/ana/papers/a/main.tex', doi: '10.1/x' }, roots), {
    kind: 'file',
    path: '/home/ana/papers/a/main.tex',
  });
});

test('a source path elsewhere, or climbing out with .., is not opened; the DOI then, else the URL', () => {
  assert.deepEqual(openTarget({ sourcePath: '/etc/passwd', doi: '10.1234/abc(1)' }, roots), {
    kind: 'url',
    url: 'https://doi.org/10.1234/abc(1)',
  });
  assert.deepEqual(openTarget({ sourcePath: '/home/ana/papers/../.ssh/id_rsa', url: 'https://example.org/p' }, roots), {
    kind: 'url',
    url: 'https://example.org/p',
  });
  const none = openTarget({ sourcePath: '/home/ana/papersX/a.pdf' }, roots);
  assert.equal(none.kind, 'none');
});

test('only https:/http: URLs from corpus data: file:, command:, javascript:, vscode: are refused', () => {
  for (const url of [
    'file:///etc/passwd',
    'command:workbench.action.terminal.new',
    'javascript:alert(1)',
    'vscode://x.y/z',
    'https://user:pw@example.org/',
  ]) {
    const t = openTarget({ url }, roots);
    assert.equal(t.kind, 'none', url);
    if (t.kind === 'none') assert.match(t.reason, /not an https:\/http: link/);
  }
  assert.deepEqual(openTarget({ url: 'http://example.org/a b' }, roots), { kind: 'url', url: 'http://example.org/a%20b' });
  assert.deepEqual(openTarget({}, roots), { kind: 'none', reason: 'no DOI, URL or source file is recorded' });
});

test('the line of a corpus sentence in its LaTeX source, across a line break and a tie', () => {
  const tex = '\\section{Intro}\nFirst line here.\nDense retrieval is\nfast on~long documents.\n';
  assert.equal(lineOfSentence(tex, 'Dense retrieval is fast on long documents.'), 2);
  assert.equal(lineOfSentence(tex, 'Not in the file at all.'), 0);
});
