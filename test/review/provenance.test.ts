// provenanceAt on the edges an author's edits create (the emitted format itself is checked end to end in
// pipeline.test.ts, on the text the review writes): several keys in one citation, a paragraph rewrapped over
// lines, notes separated from their paragraph, a flagged sentence, text that is not a citation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { provenanceAt } from '../../src/core/review/provenance.js';

const LATEX = [
  '\\subsection{Retrieval}',
  'Dense retrieval finds similar sentences~\\cite{lovelace2019dense,hopper2021keyword}. Fusion helps',
  'in scholarly search~\\citep[p.~3]{hopper2021keyword}.',
  '% S1.1 (support 0.91, model: supported): backed by Q1 (lovelace2019dense): "We retrieve sentences with dense embeddings."; Q2 (hopper2021keyword): "BM25 remains a strong baseline; "quoted" words stay."',
  '% S1.2 (support 0.40): UNSUPPORTED (kept by the setting corpusLens.review.unsupported = flag): a number is not in the quotes — backed by Q3 (hopper2021keyword): "Hybrid retrieval outperforms either ranking alone."',
  '',
  'A later paragraph cites~\\cite{lovelace2019dense} with no notes.',
  '',
  '% S9.9 (support 1.00): backed by Q9 (lovelace2019dense): "A note of another paragraph."',
].join('\n');

const at = (text: string, probe: string, shift = 0) => text.indexOf(probe) + shift;

test('LaTeX: the key under the cursor, its quotes from the notes of its own paragraph', () => {
  const one = provenanceAt(LATEX, at(LATEX, 'hopper2021keyword}.', 3), 'latex');
  assert.deepEqual(one?.keys, ['hopper2021keyword']);
  assert.deepEqual(
    one?.quotes.map((q) => [q.id, q.sentenceId, q.unsupported]),
    [
      ['Q2', 'S1.1', false],
      ['Q3', 'S1.2', true],
    ],
  );
  assert.equal(one?.quotes[0].text, 'BM25 remains a strong baseline; "quoted" words stay.');
  const both = provenanceAt(LATEX, at(LATEX, '\\cite{lovelace', 2), 'latex');
  assert.deepEqual(both?.keys, ['lovelace2019dense', 'hopper2021keyword'], 'on the command: every key');
  assert.deepEqual(
    both?.quotes.map((q) => q.id),
    ['Q1', 'Q2', 'Q3'],
  );
  const rewrapped = provenanceAt(LATEX, at(LATEX, 'p.~3]{hopper', 8), 'latex');
  assert.deepEqual(
    rewrapped?.quotes.map((q) => q.id),
    ['Q2', 'Q3'],
    "a citation on the paragraph's second line, with an optional argument",
  );
  assert.equal(
    provenanceAt(LATEX, at(LATEX, 'cites~\\cite{lovelace', 10), 'latex'),
    null,
    'a paragraph whose notes are gone shows nothing',
  );
  assert.equal(provenanceAt(LATEX, at(LATEX, 'Dense retrieval'), 'latex'), null, 'prose is not a citation');
});

const MARKDOWN = [
  '### Retrieval',
  'Dense retrieval finds similar sentences [@lovelace2019dense; @hopper2021keyword].[^S1-1] Fusion helps [see @hopper2021keyword, p. 3].[^S1-2]',
  '',
  '[^S1-1]: S1.1 (support 0.91, model: supported): backed by Q1 [@lovelace2019dense]: \u201cWe retrieve sentences.\u201d; Q2 [@hopper2021keyword]: \u201cBM25 remains strong.\u201d',
  '[^S1-2]: S1.2 (support 0.80): backed by Q3 [@hopper2021keyword]: \u201cHybrid retrieval outperforms either ranking alone.\u201d',
].join('\n');

test('Markdown: the footnote of the citing sentence, the hovered key only', () => {
  const first = provenanceAt(MARKDOWN, at(MARKDOWN, '@hopper2021keyword]', 3), 'markdown');
  assert.deepEqual(first?.keys, ['hopper2021keyword']);
  assert.deepEqual(
    first?.quotes.map((q) => [q.id, q.text]),
    [['Q2', 'BM25 remains strong.']],
    "S1.1's quote, not S1.2's",
  );
  const second = provenanceAt(MARKDOWN, at(MARKDOWN, 'see @hopper', 6), 'markdown');
  assert.deepEqual(
    second?.quotes.map((q) => q.id),
    ['Q3'],
    'a prefix and locator around the key',
  );
  assert.equal(provenanceAt(MARKDOWN, at(MARKDOWN, 'Fusion'), 'markdown'), null);
});
