import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextModel } from '../../../../src/core/text/index.ts';
import { cleanSentences, sentenceAtProbe } from '../../../support/text.ts';

const at = (doc: string, probe: string, shift = 1) => sentenceAtProbe(doc, 'markdown', probe, shift);

const paper = `---
title: "Learning to Cite"
bibliography: refs.bib
---

# Introduction

Prior work [@smith2020; @doe2021, p. 3] has shown that **bold** claims
hold, e.g. in [the docs](https://example.org/a.b). We extend it[^1].

- First item. Another one
- Second item with \`code.x()\` inside
1. Numbered item

\`\`\`python
x = 1. Not prose.
\`\`\`

$$
E = mc^2.
$$

Inline $a.b$ math and \\(c.d\\) too. <!-- hidden. comment --> After.

> Quoted text. Still quoted.

| a. | b. |
|----|----|
| 1. | 2. |

[^1]: A footnote. With two sentences.

Methods
-------

Text under a setext heading, with ![a figure](fig.png) and <span>html</span>.

    indented code. not prose.
`;

test('front matter and headings are not prose; the title comes from the front matter', () => {
  const model = new TextModel(paper, 'markdown');
  assert.equal(model.title(), 'Learning to Cite');
  for (const probe of ['title:', 'bibliography', '# Introduction', 'Methods\n', '-------']) assert.equal(at(paper, probe), null, probe);
});

test('Pandoc citations and footnote marks vanish; links keep their text; emphasis markers go', () => {
  const s = at(paper, 'doe2021');
  assert.ok(s, 'the cursor inside a citation key is in its sentence');
  assert.equal(s.clean, 'Prior work has shown that bold claims hold, e.g. in the docs.');
  assert.equal(paper.slice(s.start, s.end), s.text);
  assert.equal(s.section, 'Introduction');
  assert.equal(at(paper, 'We extend')?.clean, 'We extend it.');
});

test('list items are units of their own', () => {
  assert.equal(at(paper, 'First item')?.clean, 'First item.');
  assert.equal(at(paper, 'Another one')?.clean, 'Another one');
  assert.equal(at(paper, 'Second item')?.clean, 'Second item with code.x() inside');
  assert.equal(at(paper, 'Numbered')?.clean, 'Numbered item');
});

test('code blocks, display math, HTML comments, tables and indented code are not prose', () => {
  for (const probe of ['Not prose', 'mc^2', 'hidden', '| a.', '| 1.', 'indented code']) assert.equal(at(paper, probe), null, probe);
});

test('inline math and code stay inside their sentence', () => {
  assert.equal(at(paper, 'Inline')?.clean, 'Inline a.b math and c.d too.');
  assert.equal(at(paper, 'After')?.clean, 'After.');
});

test('block quotes and footnote definitions are prose; setext headings name the section', () => {
  assert.equal(at(paper, 'Still quoted')?.clean, 'Still quoted.');
  assert.equal(at(paper, 'With two')?.clean, 'With two sentences.');
  const s = at(paper, 'Text under');
  assert.equal(s?.clean, 'Text under a setext heading, with and html.');
  assert.equal(s?.section, 'Methods');
});

test('a narrative citation is removed without gluing sentences', () => {
  assert.deepEqual(cleanSentences('Models overfit. @smith2020 show that dropout helps. Mail a@b.org now.', 'markdown'), [
    'Models overfit.',
    'show that dropout helps.',
    'Mail a@b.org now.',
  ]);
});

test('all sentences come in document order with sections', () => {
  const all = new TextModel(paper, 'markdown').sentences();
  const starts = all.map((s) => s.start);
  assert.deepEqual(
    starts,
    [...starts].sort((a, b) => a - b),
  );
  for (const s of all) assert.equal(paper.slice(s.start, s.end), s.text);
  assert.deepEqual(
    all.map((s) => s.clean),
    [
      'Prior work has shown that bold claims hold, e.g. in the docs.',
      'We extend it.',
      'First item.',
      'Another one',
      'Second item with code.x() inside',
      'Numbered item',
      'Inline a.b math and c.d too.',
      'After.',
      'Quoted text.',
      'Still quoted.',
      'A footnote.',
      'With two sentences.',
      'Text under a setext heading, with and html.',
    ],
  );
  assert.equal(all[0].section, 'Introduction');
  assert.equal(all[all.length - 1].section, 'Methods');
});

test('a numeric citation [12] is silent like [@key]: "improved by [12]." never reads "improved by 12."', () => {
  assert.deepEqual(
    cleanSentences('Recall was improved by [12]. Others agree [3, 4] and [5–7]. See [the guide](https://x.org) and [3 items].', 'markdown'),
    ['Recall was improved by.', 'Others agree and.', 'See the guide and 3 items.'],
  );
});
