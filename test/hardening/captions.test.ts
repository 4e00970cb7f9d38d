// Captions stay out of body sentences (issue 32.7): a table caption `<script>alert(1)</script>` on the line above a
// body sentence was merged into it. A caption line ("Table 1: …", "Figure 2. …") is its own unit in plain text,
// Markdown papers and Zotero's extracted text, as LaTeX's \caption and the PDF reader's caption lines already were;
// the body sentence is stored alone. (That the caption, quoted in a review's Markdown, is escaped there is
// test/hardening/markdown-html.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readMarkdownText } from '../../src/core/ingest/markdown.ts';
import { assembleText } from '../../src/core/sources/zotero/papers.ts';
import { sentences } from '../../src/core/text/index.ts';

const CAPTION = 'Table 1: <script>alert(1)</script>';
const BODY = 'The body sentence after the table reports the main finding of the work.';

test("plain text: the caption line and the body sentence under it are two sentences; a label's full stop ends nothing", () => {
  const text = `Recall improved on every benchmark.\n${CAPTION}\n${BODY}\n\nFigure 2. A figure caption\nAnother body sentence follows here.`;
  assert.deepEqual(
    sentences(text, 'text').map((s) => s.clean),
    ['Recall improved on every benchmark.', CAPTION, BODY, 'Figure 2. A figure caption', 'Another body sentence follows here.'],
  );
  // A caption wrapped over lines stays whole; prose that mentions a figure at a line start is not a caption.
  assert.deepEqual(
    sentences('Figure 3: Recall of the three systems\nover ten runs\nThe next sentence starts here.', 'text').map((s) => s.clean),
    ['Figure 3: Recall of the three systems over ten runs', 'The next sentence starts here.'],
  );
  assert.deepEqual(
    sentences('The results are shown in\nFig. 3. They hold on every split.', 'text').map((s) => s.clean),
    ['The results are shown in Fig. 3.', 'They hold on every split.'],
  );
});

test('a Markdown paper: the body sentence is stored alone, the caption is not in it', () => {
  const md = `---\ntitle: Captions\n---\n\n## Results\n\nRecall improved on every benchmark.\n\n${CAPTION}\n${BODY}\n`;
  const stored = readMarkdownText(md, 'paper.md').papers[0].sentences.map((s) => s.text);
  assert.ok(stored.includes(BODY), JSON.stringify(stored));
  assert.ok(!stored.some((s) => s !== BODY && s.includes('The body sentence')), JSON.stringify(stored));
  assert.ok(!stored.some((s) => s.includes('alert(1)') && s.includes('body')), JSON.stringify(stored));
});

test("Zotero's extracted text: the caption line is not joined to the body line under it", () => {
  const got = assembleText(`Recall improved on every bench-\nmark we tried.\n${CAPTION}\n${BODY}`).sentences.map((s) => s.text);
  assert.deepEqual(got, ['Recall improved on every benchmark we tried.', CAPTION, BODY]);
});
