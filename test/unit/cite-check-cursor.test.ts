// Where completion offers citation keys: inside the configured LaTeX citation commands and Pandoc `[@`, and nowhere else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { citeSlotAt } from '../../src/extension/cite-check/cursor.ts';

/** The slot at the `|` of `marked` (the bar removed). */
function at(marked: string, format: 'latex' | 'markdown', commands?: string[]) {
  const offset = marked.indexOf('|');
  return citeSlotAt(marked.replace('|', ''), offset, format, commands);
}

test('LaTeX: an empty \\cite{ and a half-typed key after others, with options', () => {
  assert.deepEqual(at('Shown before \\cite{|', 'latex'), { format: 'latex', start: 19, end: 19, typed: '', others: [], citationStart: 13 });
  const s = at('Shown \\citep[see][p.~2]{smith2020, jon|es} here.', 'latex')!;
  assert.equal(s.typed, 'jon');
  assert.deepEqual(s.others, ['smith2020']);
  assert.equal('Shown \\citep[see][p.~2]{smith2020, jones} here.'.slice(s.start, s.end), 'jones');
  assert.equal(s.citationStart, 6);
  assert.ok(at('A \\textcite{|}', 'latex'));
  assert.ok(at('A \\parencite*{|}', 'latex'));
});

test('LaTeX: not after the closing brace, not in other commands, only the configured set', () => {
  assert.equal(at('\\cite{a}|', 'latex'), null);
  assert.equal(at('\\ref{fig|}', 'latex'), null);
  assert.equal(at('\\textbf{bo|ld}', 'latex'), null);
  assert.equal(at('\\citeauthor{|}', 'latex'), null);
  assert.ok(at('\\citeauthor{|}', 'latex', ['citeauthor']));
  assert.equal(at('\\cite{|}', 'latex', ['citep']), null);
  assert.equal(at('no citation | here', 'latex'), null);
});

test('Markdown: after [@, after ; @ and -@, not in an e-mail address or a footnote', () => {
  const s = at('As shown [@|].', 'markdown')!;
  assert.deepEqual({ ...s }, { format: 'markdown', start: 11, end: 11, typed: '', others: [], citationStart: 9 });
  const t = at('As shown [see @smith2020, p. 3; @jo|nes].', 'markdown')!;
  assert.equal(t.typed, 'jo');
  assert.deepEqual(t.others, ['smith2020']);
  assert.ok(at('Shown [-@|]', 'markdown'));
  assert.equal(at('mail me at me@exa|mple.org', 'markdown'), null);
  assert.equal(at('[me@exa|mple.org]', 'markdown'), null);
  assert.equal(at('note[^@|]', 'markdown'), null);
  assert.equal(at('[@a] then @|', 'markdown'), null);
});
