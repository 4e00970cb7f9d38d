// A generated section inserted at the cursor lands on lines of its own.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { blockInsertion } from '../../../../src/core/text/block.ts';

function insert(doc: string, block = '\\section{Related Work}\nText.'): string {
  const at = doc.indexOf('|');
  const text = doc.replace('|', '');
  const e = blockInsertion(text, at, block);
  return text.slice(0, e.offset) + e.text + text.slice(e.offset);
}

test('after a heading line the block starts on a new line with a blank line before and after', () => {
  assert.equal(insert('\\section{Method}|\nWe do.\n'), '\\section{Method}\n\n\\section{Related Work}\nText.\n\nWe do.\n');
});

test('mid-line, mid-word: the line is split after the word, never glued to the block', () => {
  assert.equal(insert('We fo|llow them.\n'), 'We follow\n\n\\section{Related Work}\nText.\n\n them.\n');
});

test('on an empty line between paragraphs: just the block on its own lines', () => {
  assert.equal(insert('A.\n\n|\n\nB.\n'), 'A.\n\n\\section{Related Work}\nText.\n\nB.\n');
  assert.equal(insert('A.\n|'), 'A.\n\n\\section{Related Work}\nText.\n');
  assert.equal(insert('|A.\n'), '\\section{Related Work}\nText.\n\nA.\n');
});
