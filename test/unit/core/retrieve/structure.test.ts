import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cleanSectionTitle,
  normalizeSectionTitle,
  sectionHeading,
  sectionStructure,
  type SectionTitleRow,
} from '../../../../src/core/retrieve/structure.js';

/** Rows for papers given as lists of section titles, in order. */
function rows(papers: Record<string, (string | null)[]>): SectionTitleRow[] {
  return Object.entries(papers).flatMap(([paperId, titles]) => titles.map((title, sectionIndex) => ({ paperId, sectionIndex, title })));
}

describe('section titles are normalised', () => {
  test('numbering, trailing punctuation, case and whitespace', () => {
    for (const t of [
      '1 Introduction',
      'INTRODUCTION',
      'Introduction.',
      '  Introduction  ',
      'I. Introduction',
      'II Introduction',
      '1. Introduction:',
      '(1) Introduction',
    ]) {
      assert.equal(normalizeSectionTitle(t), 'introduction', t);
    }
    assert.equal(normalizeSectionTitle('2.1   Related\n Work'), 'related work');
    assert.equal(normalizeSectionTitle('A.1 Proofs'), 'proofs');
    assert.equal(normalizeSectionTitle('B. Hyper-parameters'), 'hyper-parameters');
    assert.equal(cleanSectionTitle('3.2. Results and Discussion.'), 'Results and Discussion');
  });

  test('words that look like numbering stay', () => {
    assert.equal(normalizeSectionTitle('A Study of Phrasing'), 'a study of phrasing');
    assert.equal(normalizeSectionTitle('Conclusion'), 'conclusion');
    assert.equal(normalizeSectionTitle('Limitations'), 'limitations');
    assert.equal(normalizeSectionTitle('3D Reconstruction'), '3d reconstruction');
    assert.equal(cleanSectionTitle('IV'), 'IV', 'a title that is only a number is kept');
  });
});

describe('the ordered distribution of section titles', () => {
  test('orders titles by typical position, with paper counts and shares', () => {
    const s = sectionStructure(
      rows({
        a: ['Introduction', 'Related Work', 'Method', 'Results', 'Conclusion'],
        b: ['1 Introduction', '2 Method', '3 Results', '4 Related Work', '5 Conclusion'],
        c: ['INTRODUCTION', 'RELATED WORK', 'METHOD', 'DISCUSSION', 'CONCLUSION'],
        d: ['Introduction.', 'Background', 'Method', 'Conclusion'],
      }),
    );
    assert.equal(s.papers, 4);
    assert.deepEqual(
      s.sections.map((x) => x.title),
      ['Introduction', 'Related Work', 'Method', 'Results', 'Conclusion'],
      'Background and Discussion occur once; the rest in their usual order',
    );
    const intro = s.sections[0];
    assert.equal(intro.papers, 4);
    assert.equal(intro.share, 1);
    assert.equal(intro.position, 0);
    assert.deepEqual(
      intro.spellings.map((x) => x.text).sort(),
      ['1 Introduction', 'INTRODUCTION', 'Introduction', 'Introduction.'],
      'four spellings merged',
    );
    const related = s.sections.find((x) => x.key === 'related work')!;
    assert.equal(related.papers, 3);
    assert.equal(related.share, 0.75);
    assert.equal(related.position, 0.25, 'median of 1/4, 3/4, 1/4');
    const method = s.sections.find((x) => x.key === 'method')!;
    assert.equal(method.position, 0.5, 'median of 2/4, 1/4, 2/4, 2/3');
    assert.equal(s.sections.at(-1)!.position, 1);
  });

  test('the display form is the most frequent spelling, without numbering; ALL CAPS loses a tie', () => {
    const s = sectionStructure(rows({ a: ['1 Results'], b: ['RESULTS'], c: ['Results.'], d: ['2. Results'] }));
    assert.equal(s.sections[0].title, 'Results');
    const tie = sectionStructure(rows({ a: ['EVALUATION'], b: ['Evaluation'] }));
    assert.equal(tie.sections[0].title, 'Evaluation');
  });

  test('a paper counts once per title, at its first section of that title', () => {
    const s = sectionStructure(
      rows({
        a: ['Introduction', 'Experiments', 'Experiments', 'Conclusion'],
        b: ['Introduction', 'Experiments', 'Conclusion'],
        c: ['Introduction', 'Conclusion'],
      }),
    );
    const exp = s.sections.find((x) => x.key === 'experiments')!;
    assert.equal(exp.papers, 2);
    assert.equal(exp.spellings[0].count, 3, 'every occurrence counts as a spelling');
    assert.equal(exp.position, (1 / 3 + 1 / 2) / 2);
  });

  test('null and empty titles are skipped but still count as sections of their paper', () => {
    const s = sectionStructure(
      rows({
        a: [null, 'Introduction', 'Conclusion'],
        b: ['', 'Introduction', '  ', 'Conclusion'],
        c: [null, null],
      }),
    );
    assert.equal(s.papers, 2, 'a paper with no titled section is not in the denominator');
    assert.deepEqual(
      s.sections.map((x) => x.key),
      ['introduction', 'conclusion'],
    );
    assert.equal(s.sections[0].position, (1 / 2 + 1 / 3) / 2);
    assert.equal(s.sections[1].position, 1);
  });

  test('section indexes need not be contiguous: the rank within the paper decides', () => {
    const s = sectionStructure([
      { paperId: 'a', sectionIndex: 10, title: 'Introduction' },
      { paperId: 'a', sectionIndex: 40, title: 'Conclusion' },
      { paperId: 'a', sectionIndex: 20, title: 'Method' },
    ]);
    assert.deepEqual(
      s.sections.map((x) => [x.title, x.position]),
      [
        ['Introduction', 0],
        ['Method', 0.5],
        ['Conclusion', 1],
      ],
    );
  });

  test('titles in one paper only are dropped from a corpus of 3 or more papers, kept below', () => {
    const three = sectionStructure(rows({ a: ['Introduction', 'Odd'], b: ['Introduction'], c: ['Introduction'] }));
    assert.deepEqual(
      three.sections.map((x) => x.title),
      ['Introduction'],
    );
    const two = sectionStructure(rows({ a: ['Introduction', 'Odd'], b: ['Introduction'] }));
    assert.deepEqual(
      two.sections.map((x) => x.title),
      ['Introduction', 'Odd'],
    );
    assert.equal(two.sections[1].share, 0.5);
    const one = sectionStructure(rows({ a: ['Introduction', 'Method', 'Results'] }));
    assert.deepEqual(
      one.sections.map((x) => x.title),
      ['Introduction', 'Method', 'Results'],
    );
  });

  test('the cap keeps the most frequent titles, still in position order', () => {
    // 40 titles; title k occurs in k+2 of 45 papers, at position k/39.
    const papers: Record<string, string[]> = {};
    for (let p = 0; p < 45; p++)
      papers[`p${p}`] = Array.from({ length: 40 }, (_, k) => (p < k + 2 ? `Section ${String.fromCharCode(65 + (k % 26))}${k}` : ''));
    const all = rows(papers);
    const capped = sectionStructure(all);
    assert.equal(capped.sections.length, 30);
    assert.deepEqual(
      capped.sections.map((x) => x.papers),
      Array.from({ length: 30 }, (_, i) => i + 12),
      'the 30 most frequent (12..41 papers), ordered by position',
    );
    for (let i = 1; i < capped.sections.length; i++) assert.ok(capped.sections[i - 1].position <= capped.sections[i].position);
    assert.equal(sectionStructure(all, { limit: 5 }).sections.length, 5);
    assert.equal(sectionStructure(all, { limit: 5 }).sections[0].papers, 37);
  });

  test('empty input', () => {
    assert.deepEqual(sectionStructure([]), { papers: 0, sections: [] });
    assert.deepEqual(sectionStructure(rows({ a: [null, ''] })), { papers: 0, sections: [] });
  });
});

describe('section headings to insert', () => {
  test('LaTeX \\section with special characters escaped; Markdown ## with tags and links escaped', () => {
    assert.equal(sectionHeading('latex', 'Related Work'), '\\section{Related Work}');
    assert.equal(
      sectionHeading('latex', 'Q&A on 100% of #tags_x {y} ~z^'),
      '\\section{Q\\&A on 100\\% of \\#tags\\_x \\{y\\} \\textasciitilde{}z\\textasciicircum{}}',
    );
    assert.equal(sectionHeading('latex', 'a\\b'), '\\section{a\\textbackslash{}b}');
    assert.equal(sectionHeading('markdown', 'Related Work'), '## Related Work');
    assert.equal(
      sectionHeading('markdown', 'Tags <img src=x onerror=alert(1)> and [links](javascript:x)'),
      '## Tags &lt;img src=x onerror=alert(1)&gt; and \\[links\\](javascript:x)',
    );
  });

  test('the abstract is an environment in LaTeX', () => {
    assert.equal(sectionHeading('latex', 'Abstract'), '\\begin{abstract}\n\\end{abstract}');
    assert.equal(sectionHeading('markdown', 'Abstract'), '## Abstract');
  });
});
