// The README stays a README (issue 33.6): the two set-up commands come first, it stays within ~200 lines (longer
// material goes to docs/), it keeps the markers the CLI table is generated between, and every relative link in it
// and in docs/*.md points at a file (and heading) that exists, so moving a section cannot leave a dead link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { projectRoot } from '../support/eval.js';

const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');

test('the README starts with the two set-up commands and stays within 200 lines', () => {
  const blocks = [...readme.matchAll(/^```sh\n([^]*?)\n```$/gm)].map((m) => m[1]);
  assert.deepEqual(blocks.slice(0, 2), ['npm ci && npm start', 'npm ci && npm test']);
  const beforeFirst = readme.slice(0, readme.indexOf('```sh'));
  assert.deepEqual(
    beforeFirst.split('\n').filter((l) => l.trim() && !l.startsWith('#')),
    [],
    'nothing but headings before the first command',
  );
  const lines = readme.split('\n').length;
  assert.ok(lines <= 200, `README.md has ${lines} lines; move detail to docs/`);
});

test('the README keeps the markers the CLI table goes between', () => {
  const start = readme.indexOf('<!-- cli-table:start -->');
  const end = readme.indexOf('<!-- cli-table:end -->');
  assert.ok(start >= 0 && end > start, 'both markers, in order');
  assert.match(readme.slice(start, end), /\bquery\b[^]*\bingest\b|\bingest\b[^]*\bquery\b/, 'with the commands between them');
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

test('relative links in the README and docs/ point at files and headings that exist', () => {
  const files = [
    'README.md',
    'CHANGELOG.md',
    ...readdirSync(join(projectRoot, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const dead: string[] = [];
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(join(projectRoot, file), 'utf8').replace(/^```[^]*?^```$/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#');
      const to = path ? join(projectRoot, dirname(file), path) : join(projectRoot, file);
      checked++;
      if (!existsSync(to)) {
        dead.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (anchor && to.endsWith('.md')) {
        const headings = [...readFileSync(to, 'utf8').matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1]));
        if (!headings.includes(anchor)) dead.push(`${file}: ${target} (no such heading)`);
      }
    }
  }
  assert.ok(checked >= 10, `links found: ${checked}`);
  assert.deepEqual(dead, []);
});
