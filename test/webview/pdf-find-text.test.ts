// Finding a stored PDF sentence among PDF.js text runs (webview/pdf/find-text.ts): the differences the indexing reader
// introduces (ligatures, hyphenation joined, a footnote mark dropped, a running header between two pages) are
// absorbed; a sentence that is not there is not "found" in text that merely shares its words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSentence, type Run } from '../../webview/pdf/find-text.js';

const page = (n: number, ...strs: string[]): Run[] => strs.map((str) => ({ str, page: n }));
const covered = (runs: Run[], found: ReturnType<typeof findSentence>) => found!.spans.map((s) => runs[s.run].str.slice(s.from, s.to));

test('a sentence over two lines, hyphenated at the line end, with a ligature and a footnote mark', () => {
  const runs = page(
    1,
    'Earlier text ends here. We deﬁne the repre-',
    '1',
    'sentation of words as vectors. Then another',
    'sentence follows.',
  );
  const found = findSentence('We define the representation of words as vectors.', runs);
  assert.ok(found);
  assert.deepEqual(covered(runs, found), ['We deﬁne the repre', 'sentation of words as vectors.']);
});

test('a sentence continuing on the next page past the page number and running header is split between the pages', () => {
  const runs = [
    ...page(1, 'Body text. The method scales to', '7'),
    ...page(2, 'Running Header of the Study', '8', 'millions of documents without loss. Next one.'),
  ];
  const found = findSentence('The method scales to millions of documents without loss.', runs);
  assert.ok(found);
  assert.deepEqual(
    found.spans.map((s) => runs[s.run].page),
    [1, 2],
  );
  assert.deepEqual(covered(runs, found), ['The method scales to', 'millions of documents without loss.']);
});

test('text sharing most words with the page but not written there is not found', () => {
  const runs = page(1, 'Observation 12 notes that the survey documents the straightforwardness of the corpus in detail.');
  assert.equal(findSentence('Observation 21 notes that the archive questions the reproducibility of the estimator at length.', runs), null);
  assert.equal(findSentence('', runs), null);
});
