// The in-text citation parser (numeric, author-year, LaTeX \cite, Pandoc) and the link from a paper's sentences to its
// reference list (ingest/references.ts): which work each sentence cites.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseInTextCitations } from '../../../../src/core/bib/in-text.js';
import { BibIndex } from '../../../../src/core/bib/index.js';
import { bibitemEntries, linkCitedWorks, referenceEntries } from '../../../../src/core/ingest/references.js';

describe('parseInTextCitations', () => {
  test('numeric: single, lists and ranges; a range too wide is not a citation', () => {
    assert.deepEqual(parseInTextCitations('as shown in [12].'), [{ kind: 'numeric', form: '[12]', numbers: [12] }]);
    assert.deepEqual(
      parseInTextCitations('Several studies [3, 5–7; 9] agree.').map((c) => c.kind === 'numeric' && c.numbers),
      [[3, 5, 6, 7, 9]],
    );
    assert.deepEqual(parseInTextCitations('rows [1-999] of the table'), []);
  });

  test('author-year: parenthetical lists and narrative forms, each author once', () => {
    const cs = parseInTextCitations('Recall improves (Smith et al., 2019; Lee and Park 2020a), as Müller (2018) first noted.');
    assert.deepEqual(
      cs.map((c) => c.kind === 'author-year' && [c.surname, c.year]),
      [
        ['Smith', '2019'],
        ['Lee', '2020a'],
        ['Müller', '2018'],
      ],
    );
  });

  test('LaTeX \\cite commands with options and several keys; Pandoc keys', () => {
    assert.deepEqual(parseInTextCitations('As shown by \\citet[p.~3]{smith2019, lee2020}, it holds.'), [
      { kind: 'key', form: '\\citet[p.~3]{smith2019, lee2020}', keys: ['smith2019', 'lee2020'] },
    ]);
    assert.deepEqual(
      parseInTextCitations('It holds [see @smith2019, p. 3; @lee2020].').map((c) => c.kind === 'key' && c.keys),
      [['smith2019', 'lee2020']],
    );
  });

  test('plain numbers, years and brackets that cite nothing give nothing', () => {
    assert.deepEqual(parseInTextCitations('In 2019 the model reached 0.91 [on average] with (n = 12).'), []);
  });
});

describe('reference lists and the link', () => {
  const numbered = [
    '[1] A. Turing, Computing machinery and intelligence, Mind, 1950.',
    '[2] J. Smith, R. Kumar, and L. Park, Sparse lexical retrieval improves recall on long',
    'queries, in Proc. SIGIR, 2019. doi:10.1145/3331184.3331999',
    '[3] B. Lee, Dense passages, 2020.',
  ];

  test('a numbered list: one entry per number, continuation lines joined, year and DOI read', () => {
    const es = referenceEntries(numbered);
    assert.deepEqual(
      es.map((e) => [e.label, e.year]),
      [
        ['1', 1950],
        ['2', 2019],
        ['3', 2020],
      ],
    );
    assert.match(es[1].text, /improves recall on long queries, in Proc/);
    assert.equal(es[1].doi, '10.1145/3331184.3331999');
  });

  test('an author-year list: an entry starts at "Surname, I." once the previous one has its year', () => {
    const es = referenceEntries([
      'Lee, B. and Park, L. (2020). Dense passages for',
      'scholarly search. In Proc. ACL.',
      'Smith, J., Kumar, R. and Park, L. (2019). Sparse lexical retrieval. In SIGIR.',
    ]);
    assert.equal(es.length, 2);
    assert.equal(es[1].year, 2019);
  });

  test('numeric and author-year citations find their entries; an ambiguous author-year finds none', () => {
    const es = referenceEntries(numbered);
    const works = linkCitedWorks(
      new Map([
        [0, parseInTextCitations('as shown in [2].')],
        [4, parseInTextCitations('Both [2, 3] agree.')],
      ]),
      es,
    );
    assert.deepEqual(
      works.map((w) => [w.label, w.citedBy]),
      [
        ['2', [0, 4]],
        ['3', [4]],
      ],
    );
    const ay = referenceEntries(['Smith, J. (2019). One.', 'Smith, K. (2019). Two.', 'Lee, B. (2020). Three.']);
    const linked = linkCitedWorks(new Map([[1, parseInTextCitations('(Smith, 2019; Lee, 2020)')]]), ay);
    assert.deepEqual(
      linked.map((w) => w.text),
      ['Lee, B. (2020). Three.'],
    );
  });

  test('LaTeX keys: \\bibitem entries first, else the .bib, else the key alone', async () => {
    const items = bibitemEntries(
      '\\begin{thebibliography}{9}\\bibitem[Smith(2019)]{smith19} J.~Smith. \\newblock Sparse retrieval. 2019.\\end{thebibliography}',
    );
    assert.equal(items[0].key, 'smith19');
    assert.match(items[0].text, /^J\. ?Smith\. Sparse retrieval\. 2019\.$/);
    const bib = await BibIndex.read(
      '@article{lee20, title={Dense Passages}, author={Lee, Bo and Park, Lea}, year={2020}, doi={10.1000/xyz}}',
    );
    const works = linkCitedWorks(new Map([[2, parseInTextCitations('\\cite{smith19,lee20,nobody99}')]]), items, bib);
    assert.deepEqual(
      works.map((w) => [w.key, w.title, w.year, w.doi, w.citedBy]),
      [
        ['smith19', null, 2019, null, [2]],
        ['lee20', 'Dense Passages', 2020, '10.1000/xyz', [2]],
        ['nobody99', null, null, null, [2]],
      ],
    );
  });
});
