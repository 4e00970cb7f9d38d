// "Insert answer at cursor": the kept, checked sentences with their [n] as citations of the papers' keys.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerForPaper, citedPapers } from '../../src/core/ask/insert.js';
import type { AskSource, AskTurn, AnswerSentence } from '../../src/core/ask/types.js';

const source = (n: number, paperId: string): AskSource => ({
  n,
  paperId,
  citationKey: null,
  title: paperId,
  authors: [],
  year: 2020,
  section: null,
  sentenceId: n,
  globalIndex: n,
  text: `s${n}`,
  previous: null,
  next: null,
  page: null,
});
const sources = [source(1, 'a'), source(2, 'b'), source(3, 'a')];
const sentence = (text: string, kept = true): AnswerSentence => ({
  text,
  original: text,
  citations: [],
  verdict: kept ? 'supported' : 'unsupported',
  support: 1,
  kept,
  reasons: [],
});
const turn = (kind: AskTurn['kind'], sentences: AnswerSentence[], citations: number[]): AskTurn => ({
  question: 'q',
  standalone: 'q',
  rewrite: 'none',
  kind,
  text: '',
  sentences,
  citations,
  answerability: 1,
  counts: { evidence: 0, papers: 0, unverifiedEvidence: 0, removedSentences: 0, removedCitations: 0, llmCalls: 0, ms: 0, modelMs: 0 },
  model: null,
});
const keys: Record<string, string> = { a: 'smith2020', b: 'lee_2021' };

test('LaTeX: a run of markers is one \\cite of distinct keys (the configured command), prose escaped, removed sentences left out', () => {
  const t = turn(
    'answer',
    [sentence('Recall fell by 5% [1][3].'), sentence('An invented claim [2].', false), sentence('Both agree [1] [2].')],
    [1, 3, 2],
  );
  assert.equal(
    answerForPaper(t, sources, 'latex', (id) => keys[id], 'citep'),
    'Recall fell by 5\\%~\\citep{smith2020}. Both agree~\\citep{smith2020,lee_2021}.',
  );
  assert.deepEqual(
    citedPapers(t, sources).map((s) => s.paperId),
    ['a', 'b'],
  );
});

test('Markdown: [@a; @b]; an extract keeps one quotation per line', () => {
  const t = turn('extract', [sentence('“Exact search wins below 50,000 vectors.” [2]'), sentence('“It does.” [1][2]')], [2, 1]);
  assert.equal(
    answerForPaper(t, sources, 'markdown', (id) => keys[id]),
    '"Exact search wins below 50,000 vectors." [@lee_2021]\n"It does." [@smith2020; @lee_2021]',
  );
});

test('nothing to insert for "I don\'t know" and "where did you find that?"', () => {
  assert.equal(
    answerForPaper(turn('unknown', [], []), sources, 'latex', (id) => keys[id]),
    null,
  );
  assert.equal(
    answerForPaper(turn('sources', [], [1]), sources, 'latex', (id) => keys[id]),
    null,
  );
});

test('LaTeX: the inserted answer is LaTeX-safe: quotes, %, _, &, #, formulas in math mode; a dropped \\ref reads Fig. [ref]', () => {
  const t = turn(
    'extract',
    [
      sentence('Fusion with k=60 beats "precision at k" by 5% on top_k R&D queries #2 [1].'),
      sentence('We retrieve sentences, as in Fig.. [2]'),
      sentence('Writers were faster (see Sec.) when p < 0.05 [3].'),
    ],
    [1, 2, 3],
  );
  assert.equal(
    answerForPaper(t, sources, 'latex', (id) => keys[id]),
    [
      "Fusion with $k=60$ beats ``precision at k'' by 5\\% on top\\_k R\\&D queries \\#2~\\cite{smith2020}.",
      'We retrieve sentences, as in Fig. [ref].~\\cite{lee_2021}',
      'Writers were faster (see Sec. [ref]) when $p<0.05$~\\cite{smith2020}.',
    ].join('\n'),
  );
  // Markdown keeps the words as typed; the placeholder is escaped so that it cannot form a link.
  assert.equal(
    answerForPaper(turn('answer', [sentence('As in Fig.. [2]')], [2]), sources, 'markdown', (id) => keys[id]),
    'As in Fig. \\[ref\\]. [@lee_2021]',
  );
});
