// Corpus text in a hover: literal, and wrappable between words.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { escapeMarkdownText } from '../../src/core/text/escape-markdown.ts';

test('Markdown syntax in corpus text is escaped; words stay separated by plain spaces', () => {
  const out = escapeMarkdownText('See [click](command:workbench.action.terminal.new) and *this*   <b>x</b>\n& `code` $x$.');
  assert.ok(!out.includes('&nbsp;'));
  assert.ok(!/[^\\][[\]()*`<>]/.test(out.replace(/\\./g, '')), out);
  assert.equal(out.replace(/\\(.)/g, '$1'), 'See [click](command:workbench.action.terminal.new) and *this* <b>x</b> & `code` $x$.');
  assert.equal(out.split(' ').length, 8, 'eight words, seven plain spaces');
});
