// The escapers: corpus text in a hover (literal, wrappable between words), a Markdown table cell, LaTeX prose.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { escapeLatex, escapeMarkdownCell, escapeMarkdownText } from '../../../../src/core/text/escape.ts';

test('Markdown syntax in corpus text is escaped; words stay separated by plain spaces', () => {
  const out = escapeMarkdownText('See [click](command:workbench.action.terminal.new) and *this*   <b>x</b>\n& `code` $x$.');
  assert.ok(!out.includes('&nbsp;'));
  assert.ok(!/[^\\][[\]()*`<>]/.test(out.replace(/\\./g, '')), out);
  assert.equal(out.replace(/\\(.)/g, '$1'), 'See [click](command:workbench.action.terminal.new) and *this* <b>x</b> & `code` $x$.');
  assert.equal(out.split(' ').length, 8, 'eight words, seven plain spaces');
});

test('a Markdown table cell cannot end early or form a tag or link', () => {
  assert.equal(escapeMarkdownCell('a | b <i>[x](y)</i>'), 'a \\| b &lt;i&gt;\\[x\\](y)&lt;/i&gt;');
});

test('LaTeX: special characters become commands, no command survives, typographic quotes become TeX quotes', () => {
  assert.equal(
    escapeLatex('50% of R&D costs $3 #1 a_b {c} ~d^ \\input{x}'),
    '50\\% of R\\&D costs \\$3 \\#1 a\\_b \\{c\\} \\textasciitilde{}d\\textasciicircum{} \\textbackslash{}input\\{x\\}',
  );
  assert.equal(escapeLatex('\u201cquoted\u201d'), "``quoted''");
});
