import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FORMATS, TextModel, type Format } from '../../../../src/core/text/index.ts';

// Pieces of LaTeX and Markdown, mangled: unbalanced groups, stray math, comments, control characters.
const PIECES = [
  '\\cite{',
  '\\cite{a}',
  '}',
  '{',
  '$',
  '$$',
  '\\(',
  '\\)',
  '\\[',
  '\\]',
  '\\begin{figure}',
  '\\end{figure}',
  '\\begin{document}',
  '\\end{document}',
  '\\begin{abstract}',
  '\\end{abstract}',
  '\\begin{verbatim}',
  '\\section{',
  '\\section*{Intro}',
  '\\caption{',
  '\\footnote{',
  '\\item',
  '\\item[',
  '\\emph{',
  '\\verb|',
  "\\'",
  '\\"{',
  '\\',
  '%',
  '\\%',
  '~',
  '``',
  "''",
  '--',
  '\n',
  '\n\n',
  '\r\n',
  '\r',
  '\t',
  '\u0000',
  '😀',
  'e\u0301',
  '\u200b',
  'Fig.',
  'e.g.',
  'et al.',
  ' ',
  'word',
  'Word',
  '. ',
  '? ',
  '! ',
  '3.14',
  'A',
  '...',
  '[@key]',
  '@key',
  '[^1]',
  '[^1]: ',
  '```',
  '~~~',
  '---',
  '# ',
  '- ',
  '1. ',
  '> ',
  '`',
  '*',
  '**',
  '_',
  '<!--',
  '-->',
  '<b>',
  '[',
  ']',
  '(',
  ')',
  '![',
  '](',
  '&amp;',
  '&#0;',
  '|',
  '    ',
  ':::',
];

const mangled = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 80 }).map((a) => a.join('')),
  fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 60 }).map((a) => a.join('')),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

function checkLookup(text: string, format: Format, offset: number): void {
  const model = new TextModel(text, format);
  const s = model.sentenceAt(offset);
  if (s === null) return;
  assert.ok(s.start >= 0 && s.end <= text.length && s.start <= s.end, `span ${s.start}-${s.end} outside 0-${text.length}`);
  assert.ok(s.start <= offset && offset <= s.end, `span ${s.start}-${s.end} does not hold ${offset}`);
  assert.equal(s.text, text.slice(s.start, s.end));
  assert.equal(typeof s.clean, 'string');
}

for (const format of FORMATS) {
  test(`${format}: lookups on mangled input never throw and their spans hold the cursor`, () => {
    fc.assert(
      fc.property(mangled, fc.nat(), (text, n) => checkLookup(text, format, n % (text.length + 1))),
      { numRuns: 400 },
    );
  });

  test(`${format}: every sentence of mangled input lies within the text, in order`, () => {
    fc.assert(
      fc.property(mangled, (text) => {
        let last = -1;
        for (const s of new TextModel(text, format).sentences()) {
          assert.ok(s.start >= 0 && s.end <= text.length && s.start < s.end);
          assert.ok(s.start >= last);
          assert.equal(s.text, text.slice(s.start, s.end));
          last = s.start;
        }
      }),
      { numRuns: 200 },
    );
  });
}

test('a huge single line and a huge unbalanced group stay correct', () => {
  const huge = 'We measure things. '.repeat(40_000) + 'x';
  for (const format of FORMATS) {
    for (const offset of [0, 7, huge.length >> 1, huge.length - 1, huge.length]) checkLookup(huge, format, offset);
  }
  const unbalanced = '\\begin{document}\\emph{' + 'Open group and more words here. '.repeat(20_000);
  checkLookup(unbalanced, 'latex', unbalanced.length >> 1);
  const s = new TextModel(huge, 'text').sentenceAt(huge.length >> 1);
  assert.equal(s?.clean, 'We measure things.');
});
