// The filters a question states ("since 2020", "at ACL") and the question left to search: the rule set Ask always
// uses and related work uses without an LLM. Counts, names and look-alikes must never become filters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeFilters, filtersFromText, venueNames, withoutPhrases } from '../../../../src/core/retrieve/question-filters.js';

const VENUES = venueNames([
  'Proceedings of ACL 2020',
  'Advances in Neural Information Processing Systems (NeurIPS)',
  'Proceedings of the Workshop on Scholarly Document Processing (SDProc 2021)',
  'Proceedings of the Symposium on Human-AI Collaboration in Writing (HAIW 2023)',
  'Findings of EMNLP',
  'Nature',
  'Proceedings of the IV International Conference',
  null,
]);
const read = (text: string) => filtersFromText(text, { venues: VENUES, now: 2026 });

test('venue names: acronyms of the corpus venues and short venues written whole; no roman numerals, no part of a hyphenated word', () => {
  assert.deepEqual([...VENUES].sort(), ['ACL', 'EMNLP', 'HAIW', 'Nature', 'NeurIPS', 'SDProc']);
});

test('years: each phrasing gives its inclusive range, and its words leave the query', () => {
  const cases: [string, (number | null)[], string][] = [
    ['What do papers since 2020 say about dense retrieval?', [2020, null], 'What do papers say about dense retrieval?'],
    ['Dense retrieval work before 2015', [null, 2014], 'Dense retrieval work'],
    ['Dense retrieval, published after 2015', [2016, null], 'Dense retrieval'],
    ['How was BM25 used in studies between 2018 and 2021?', [2018, 2021], 'How was BM25 used in studies?'],
    ['BM25 papers from 2018 to 2021', [2018, 2021], 'BM25 papers'],
    ['HNSW papers 2018–2021', [2018, 2021], 'HNSW papers'],
    ['What was found in papers from 2019?', [2019, 2019], 'What was found in papers?'],
    ['quantisation published in 2019 on recall', [2019, 2019], 'quantisation on recall'],
    ['hedging research from 2020 onwards', [2020, null], 'hedging research'],
    ['hedging work 2020 or later', [2020, null], 'hedging work'],
    ['hedging papers until 2016', [null, 2016], 'hedging papers'],
    ['hedging, appeared in or before 2015', [null, 2015], 'hedging'],
    ['hedging articles that were published no later than 2016', [null, 2016], 'hedging articles that were'],
    ['citation intent methods in the last 5 years', [2021, null], 'citation intent methods'],
    ['citation intent studies over the past three years', [2023, null], 'citation intent studies'],
    ['dense retrieval papers since 2018 and papers before 2022', [2018, 2021], 'dense retrieval papers and papers'],
  ];
  for (const [text, range, query] of cases) {
    const f = read(text);
    assert.deepEqual([f.yearMin, f.yearMax], range, text);
    assert.equal(f.query, query, text);
  }
});

test('adversarial: counts, names, numbers and "recent" are not filters; the text stays as it was', () => {
  for (const text of [
    'How did 2020 participants rate the tool?',
    'results from 2020 participants',
    'in 2019 experiments with BM25', // "2019 experiments" is a count
    'up to 2048 tokens of context',
    'after 2000 iterations the loss is flat',
    'What does ACL2 say about this?',
    'What is ACL?', // a name without "at", "in" or "papers"
    'the ACLs of the database',
    'a Human-AI study', // not the HAIW venue, and "AI" is no venue
    'recent work on HNSW',
    'recently proposed rerankers',
    'p < 0.05 in 2019.5 runs',
    'papers in 2019, 12.5% of the sentences',
    'the 1850 census', // no preposition
    'How much did glacier runoff grow between 1990 and 2020?', // the years of the data, not of the papers
    'What interest rate did the central bank set in 2023?',
    'How has sea ice declined since 2000?',
    'papers since 2030 and papers before 2020', // ranges that exclude each other
  ]) {
    const f = read(text);
    if (text === 'papers in 2019, 12.5% of the sentences') {
      assert.deepEqual([f.yearMin, f.yearMax, f.venues], [2019, 2019, []], text); // the year is one; the percentage is not
      continue;
    }
    assert.deepEqual([f.yearMin, f.yearMax, f.venues, f.phrases], [null, null, [], []], text);
    assert.equal(f.query, text.trim(), text);
  }
});

test('venues: after at/in/from or before "papers", as the corpus spells them; lists; a venue with its year', () => {
  const at = read('Dense retrieval at ACL');
  assert.deepEqual([at.venues, at.query, at.phrases], [['ACL'], 'Dense retrieval', ['at ACL']]);
  assert.deepEqual(read('In NeurIPS papers, which losses are used?').venues, ['NeurIPS']);
  assert.deepEqual(read('Which SDProc papers parse references?').venues, ['SDProc']);
  const list = read('rerankers at ACL or EMNLP, published since 2019');
  assert.deepEqual([list.venues, list.yearMin, list.query], [['ACL', 'EMNLP'], 2019, 'rerankers']);
  const withYear = read('What was shown at ACL 2020 about rerankers?');
  assert.deepEqual(
    [withYear.venues, withYear.yearMin, withYear.yearMax, withYear.query],
    [['ACL'], 2020, 2020, 'What was shown about rerankers?'],
  );
  assert.deepEqual(read('work at acl').venues, [], 'spelt as the corpus spells it');
  assert.deepEqual(read('work at COLING').venues, [], 'a venue no paper is from is not a filter');
  assert.deepEqual(filtersFromText('work at ACL').venues, [], 'no corpus venues: no venue filter');
});

test('a text that is only filters keeps its words as the query; describeFilters; withoutPhrases', () => {
  assert.equal(read('published since 2020').query, 'published since 2020');
  assert.equal(describeFilters(read('at ACL or EMNLP, published since 2019')), 'years 2019 on; venue ACL or EMNLP');
  assert.equal(describeFilters(read('papers before 2015')), 'years up to 2014');
  assert.equal(describeFilters(read('papers in 2019')), 'years 2019');
  assert.equal(describeFilters(read('papers between 2018 and 2021')), 'years 2018–2021');
  assert.equal(withoutPhrases('Dense retrieval Since 2020, at ACL.', ['since 2020', 'at ACL']), 'Dense retrieval.');
  assert.equal(withoutPhrases('since 2020', ['since 2020']), 'since 2020');
});
