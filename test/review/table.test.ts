// Comparison tables (issue 13, item 7): a row's "Approach" cell says what the list says of that paper, and is kept
// only where that paper's own verified quotes support it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparisonTable } from '../../src/core/review/emit.js';
import type { CitedPaper, SentenceReport, VerifiedQuote } from '../../src/core/review/types.js';

const paper = (id: string, year: number) =>
  ({ id, title: `Paper ${id}`, authors: ['A. Author'], year, venue: 'ACL', doi: null }) as CitedPaper['paper'];
const cited: CitedPaper[] = [
  { key: 'dense2019', paper: paper('p1', 2019) },
  { key: 'bm25eval2021', paper: paper('p2', 2021) },
] as CitedPaper[];
const keyOf = new Map([
  ['P1', 'dense2019'],
  ['P2', 'bm25eval2021'],
]);
const quote = (id: string, paperId: string, text: string) =>
  ({ id, paperId, paperShortId: paperId === 'p1' ? 'P1' : 'P2', text, match: 'exact', similarity: 1 }) as VerifiedQuote;
const quotes = new Map([
  ['Q1', quote('Q1', 'p1', 'We retrieve sentences from prior papers with dense sentence embeddings.')],
  ['Q2', quote('Q2', 'p2', 'Lexical retrieval with BM25 remains a strong baseline for scholarly search.')],
]);
const sentence = (text: string, quoteIds: string[]): SentenceReport =>
  ({
    id: 'S1.1',
    text,
    original: text,
    cited: [],
    quoteIds,
    support: 1,
    verdict: 'supported',
    reasons: [],
    removedCitations: [],
    resolvedCitations: [],
    quotations: 0,
  }) as SentenceReport;

test('each cell is checked against the quotes of its own paper', () => {
  const items = [
    [sentence('Dense sentence embeddings retrieve sentences from prior papers [P1][P2].', ['Q1', 'Q2'])],
    [sentence('BM25 remains a strong lexical baseline for scholarly search [P2].', ['Q2'])],
  ];
  const md = comparisonTable('Retrieval', items, keyOf, cited, { format: 'markdown', cite: 'cite' }, quotes)!;
  const rows = md.split('\n').slice(2);
  assert.deepEqual(
    rows,
    [
      '| [@dense2019] | 2019 | ACL | Dense sentence embeddings retrieve sentences from prior papers. |',
      '| [@bm25eval2021] | 2021 | ACL | BM25 remains a strong lexical baseline for scholarly search. |',
    ],
    'the first item is not what the BM25 paper says: its row takes the sentence its own quote supports',
  );
  const tex = comparisonTable('Retrieval', items, keyOf, cited, { format: 'latex', cite: 'citep' }, quotes)!;
  assert.match(tex, /\\citep\{dense2019\} & 2019 & ACL & Dense sentence embeddings/);
});

test('a paper no cell of which its quotes support is left out; no rows, no table', () => {
  const items = [[sentence('Dense retrieval improves recall by 40% over BM25 [P2].', ['Q2'])]];
  assert.equal(comparisonTable('Retrieval', items, keyOf, cited, { format: 'markdown', cite: 'cite' }, quotes), undefined);
});
