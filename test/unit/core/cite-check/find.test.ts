// Where a document cites (findCitations) and the quick fixes' edits (locatorEdit, replaceKeyEdit).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findCitations, locatorEdit, replaceKeyEdit, type TextEdit } from '../../../../src/core/cite-check/index.js';

const apply = (text: string, e: TextEdit | null) => (e ? text.slice(0, e.range.start) + e.text + text.slice(e.range.end) : text);

describe('findCitations: LaTeX', () => {
  const tex = [
    '\\section{Results}',
    'Dense retrieval beats BM25 on open-domain questions~\\citep[p.~3]{karpukhin2020, lee2019}. Another claim \\cite{x} here \\textcite*{z}.',
    '% a comment \\cite{commented}',
    'Not a citation: \\citeauthor{q} here. \\parencite[see][12]{pre}.',
  ].join('\n');
  const sites = findCitations(tex, 'latex');

  test('every configured command, starred forms, keys with their ranges; comments and other commands skipped', () => {
    assert.deepEqual(
      sites.map((s) => [s.command, s.keys]),
      [
        ['citep', ['karpukhin2020', 'lee2019']],
        ['cite', ['x']],
        ['textcite', ['z']],
        ['parencite', ['pre']],
      ],
    );
    for (const s of sites) for (const k of s.keyRanges) assert.equal(tex.slice(k.start, k.end), k.key);
    assert.equal(tex.slice(sites[0].range.start, sites[0].range.end), '\\citep[p.~3]{karpukhin2020, lee2019}');
  });

  test('locators (the postnote of one or two optional arguments), line and column, the citing sentence without markup', () => {
    assert.deepEqual(
      sites.map((s) => s.locator),
      ['p.~3', null, null, '12'],
    );
    assert.deepEqual([sites[0].line, sites[0].character], [1, tex.split('\n')[1].indexOf('\\citep')]);
    assert.equal(sites[0].sentence.text, 'Dense retrieval beats BM25 on open-domain questions.');
    assert.equal(sites[1].sentence.text, sites[2].sentence.text);
  });

  test('a configured command set replaces the default', () => {
    assert.deepEqual(
      findCitations(tex, 'latex', { commands: ['textcite'] }).map((s) => s.keys[0]),
      ['z'],
    );
  });

  test('locator and key edits', () => {
    assert.equal(locatorEdit(sites[0], 'latex', 4), null, 'an existing locator stands');
    const withPage = apply(tex, locatorEdit(sites[1], 'latex', 7));
    assert.match(withPage, /Another claim \\cite\[p\.~7\]\{x\} here/);
    assert.match(apply(tex, replaceKeyEdit(sites[0], 'lee2019', 'new2021', 'instead')), /\\citep\[p\.~3\]\{karpukhin2020, new2021\}/);
    assert.match(apply(tex, replaceKeyEdit(sites[1], 'x', 'y', 'also')), /\\cite\{x,y\}/);
    assert.equal(replaceKeyEdit(sites[1], 'nope', 'y', 'instead'), null);
  });
});

describe('findCitations: Markdown (Pandoc)', () => {
  const md =
    '# Intro\n\nDense retrieval beats BM25 [@karpukhin2020, p. 3; see @lee2019]. As @smith2020 shows, it works [@solo]; write to a@b.com or see [a link](http://x).\n';
  const sites = findCitations(md, 'markdown');

  test('bracketed groups with locators and in-text keys; e-mail addresses and links are not citations', () => {
    assert.deepEqual(
      sites.map((s) => s.keys),
      [['karpukhin2020', 'lee2019'], ['smith2020'], ['solo']],
    );
    assert.deepEqual(
      sites.map((s) => s.locator),
      ['p. 3', null, null],
    );
    for (const s of sites) for (const k of s.keyRanges) assert.equal(md.slice(k.start, k.end), k.key);
    assert.equal(sites[0].sentence.text, 'Dense retrieval beats BM25.');
  });

  test('locator and key edits', () => {
    assert.match(apply(md, locatorEdit(sites[2], 'markdown', 5)), /\[@solo, p\. 5\]/);
    assert.match(apply(md, locatorEdit(sites[1], 'markdown', 2)), /@smith2020 \[p\. 2\] shows/);
    assert.match(apply(md, replaceKeyEdit(sites[0], 'lee2019', 'new', 'instead')), /\[@karpukhin2020, p\. 3; see @new\]/);
    assert.match(apply(md, replaceKeyEdit(sites[2], 'solo', 'duo', 'also')), /\[@solo; @duo\]/);
    assert.match(apply(md, replaceKeyEdit(sites[1], 'smith2020', 'jones', 'also')), /@smith2020 and @jones shows/);
  });
});
