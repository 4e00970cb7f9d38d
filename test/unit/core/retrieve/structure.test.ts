import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { TextModel } from '../../../../src/core/text/index.js';
import { evalPath, projectRoot } from '../../../support/eval.js';
import {
  cleanSectionTitle,
  normalizeSectionTitle,
  sectionHeading,
  sectionStructure,
  sectionsInPaper,
  titleWords,
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

describe('titles clustered by position and wording (cluster: true)', () => {
  const corpus = rows({
    a: ['Introduction', 'Related Work', 'Method', 'Experiments', 'Conclusion'],
    b: ['Introduction', 'Background', 'Approach', 'Evaluation', 'Conclusions and Future Work'],
    c: ['Introduction', 'Prior Work', 'Method', 'Experiments', 'Future Work', 'Conclusion'],
    d: ['Introduction', 'Method', 'Results', 'Related Work', 'Conclusions'],
    e: ['Introduction', 'Background and Related Work', 'Methodology', 'Results', 'Discussion', 'Concluding Remarks'],
    f: ['Introduction', 'Related Work', 'Method', 'Results', 'Conclusion'],
  });

  test('"Related Work", "Background", "Prior Work" are one row; the conclusions another, ordered by position', () => {
    const s = sectionStructure(corpus, { cluster: true });
    assert.deepEqual(
      s.sections.map((x) => x.title),
      ['Introduction', 'Related Work', 'Method', 'Results', 'Experiments', 'Conclusion'],
    );
    const related = s.sections[1];
    assert.equal(related.papers, 6, 'every paper has one of them');
    assert.deepEqual(
      related.variants.map((v) => [v.title, v.papers]),
      [
        ['Related Work', 3],
        ['Background', 1],
        ['Background and Related Work', 1],
        ['Prior Work', 1],
      ],
    );
    const conclusion = s.sections.at(-1)!;
    assert.equal(conclusion.papers, 6);
    assert.deepEqual(conclusion.variants.map((v) => v.title).sort(), [
      'Concluding Remarks',
      'Conclusion',
      'Conclusions',
      'Conclusions and Future Work',
    ]);
    assert.equal(s.sections.find((x) => x.key === 'method')!.papers, 6, 'Method, Approach, Methodology');
    assert.deepEqual(
      s.sections.find((x) => x.key === 'experiments')!.variants.map((v) => v.title),
      ['Experiments', 'Evaluation'],
    );
    // "Future Work" shares only the general "work" with Related Work, and sits elsewhere: not merged into it; one paper
    // has it, so it is below the cut in a corpus of six.
    assert.ok(!s.sections.some((x) => x.variants.some((v) => v.key === 'future work')));
    // Position: each paper's first section of the row, once (d has Related Work late, at 3/4): median of
    // 0.25, 0.25, 0.2, 0.75, 0.2, 0.25.
    assert.equal(related.position, 0.25);
  });

  test('the same wording at another place is another row; a title of general words only joins nothing', () => {
    const s = sectionStructure(
      rows({
        a: ['Summary', 'Introduction', 'Method', 'Results', 'Work'],
        b: ['Summary', 'Introduction', 'Method', 'Results', 'Work'],
        c: ['Introduction', 'Method', 'Results', 'Conclusion'],
        d: ['Introduction', 'Method', 'Results', 'Conclusion'],
      }),
      { cluster: true },
    );
    const summary = s.sections.find((x) => x.key === 'summary')!;
    assert.deepEqual(
      summary.variants.map((v) => v.key),
      ['summary'],
      'a summary at the start is not the conclusion at the end',
    );
    assert.equal(s.sections.find((x) => x.key === 'conclusion')!.variants.length, 1);
    assert.equal(s.sections.find((x) => x.key === 'work')!.variants.length, 1);
  });

  test('titleWords: plurals folded, same-part words as one, general words left out', () => {
    assert.deepEqual([...titleWords('conclusions and future work')], ['conclusion', 'future']);
    assert.deepEqual([...titleWords('background')], ['related']);
    assert.deepEqual([...titleWords('prior work')], ['related']);
    assert.deepEqual([...titleWords('experimental results')], ['experiment', 'result']);
    assert.deepEqual([...titleWords('work')], []);
  });

  test('without cluster, and with the corpus count as the denominator', () => {
    const plain = sectionStructure(corpus);
    assert.equal(plain.sections.find((x) => x.key === 'related work')!.papers, 3);
    const counted = sectionStructure(corpus, { cluster: true, corpusPapers: 12 });
    assert.equal(counted.papers, 12);
    assert.equal(counted.sections[0].share, 0.5, 'Introduction: 6 of the corpus’s 12 papers');
  });
});

describe('clustering the sample corpus and the shared LaTeX papers', () => {
  /** Each paper's top-level headings (the ingest files the abstract as "Abstract" first), as the store lists them. */
  function corpusRows(files: string[]): SectionTitleRow[] {
    return files.flatMap((file) => {
      const model = new TextModel(readFileSync(file, 'utf8'), file.endsWith('.md') ? 'markdown' : 'latex');
      const headings = model.headings().filter((h) => h.level <= (file.endsWith('.md') ? 2 : 1));
      return [
        { paperId: file, sectionIndex: 0, title: 'Abstract' },
        ...headings.map((h, i) => ({ paperId: file, sectionIndex: i + 1, title: h.title })),
      ];
    });
  }
  const samples = join(projectRoot, 'samples', 'corpus');
  const sampleFiles = readdirSync(samples)
    .filter((f) => /\.(tex|md)$/.test(f))
    .map((f) => join(samples, f));

  test('the samples: 11 titles make 10 rows, "Discussion and Limitations" under Discussion; nothing else merged', () => {
    const raw = sectionStructure(corpusRows(sampleFiles));
    const s = sectionStructure(corpusRows(sampleFiles), { cluster: true });
    assert.equal(raw.sections.length, 11);
    assert.equal(s.sections.length, 10);
    assert.deepEqual(
      s.sections.filter((r) => r.variants.length > 1).map((r) => [r.title, r.papers, r.variants.map((v) => v.title)]),
      [['Discussion', 24, ['Discussion', 'Discussion and Limitations']]],
    );
    assert.deepEqual(
      s.sections.map((r) => r.title),
      [
        'Abstract',
        'Introduction',
        'Related Work',
        'Method',
        'Study Design',
        'Results',
        'Evaluation',
        'Discussion',
        'Limitations',
        'Conclusion',
      ],
    );
  });

  const scipy = evalPath('latex', 'scipy-1.0-paper', 'paper.tex');
  const template = evalPath('latex', 'arxiv-style-template', 'template.tex');
  test(
    "with the shared LaTeX papers: SciPy 1.0's Background (its second section) joins Related Work; the template's own titles stay alone",
    { skip: !(scipy && template) && 'no ../shared/eval' },
    () => {
      const s = sectionStructure(corpusRows([...sampleFiles, scipy!, template!]), { cluster: true, minPapers: 1 });
      assert.equal(s.papers, 32);
      const related = s.sections.find((r) => r.key === 'related work')!;
      assert.deepEqual(
        related.variants.map((v) => [v.title, v.papers]),
        [
          ['Related Work', 30],
          ['Background', 1],
        ],
      );
      assert.equal(s.sections.find((r) => r.key === 'introduction')!.papers, 32);
      const headings = s.sections.find((r) => r.key === 'headings: first level')!;
      assert.equal(headings.variants.length, 1);
      // SciPy's late sections (Data Availability, Acknowledgements, …) say nothing the samples say: rows of their own.
      assert.equal(s.sections.find((r) => r.key === 'acknowledgements')!.variants.length, 1);
    },
  );
});

describe('the sections a paper already has', () => {
  const structure = sectionStructure(
    rows({
      a: ['Abstract', 'Introduction', 'Related Work', 'Method', 'Conclusion'],
      b: ['Abstract', 'Introduction', 'Background', 'Method', 'Conclusion'],
      c: ['Abstract', 'Introduction', 'Prior Work', 'Method', 'Conclusions'],
    }),
    { cluster: true },
  );

  // The row holding Related Work, Background and Prior Work (named after one of them: each is in one paper).
  const related = () => structure.sections.find((r) => r.variants.some((v) => v.key === 'related work'))!.key;

  test('by any title of the row, in other words too; the LaTeX abstract environment is the Abstract', () => {
    const latex = '\\documentclass{article}\n\\begin{document}\n\\begin{abstract}\nWe study.\n\\end{abstract}\n\\section{Introduction}\n';
    const have = sectionsInPaper(structure, {
      headings: [
        { title: 'Introduction', start: 70 },
        { title: '2 Related Works', start: 90 },
      ],
      text: latex,
      format: 'latex',
    });
    assert.deepEqual([...have.keys()].sort(), ['abstract', 'introduction', related()].sort());
    assert.equal(have.get('abstract'), latex.indexOf('\\begin{abstract}'), 'where the paper has it');
    assert.equal(have.get(related()), 90);
    const md = sectionsInPaper(structure, {
      headings: [
        { title: 'Background', start: 0 },
        { title: 'Conclusions and Future Work', start: 10 },
      ],
      text: '',
      format: 'markdown',
    });
    assert.deepEqual([...md.keys()].sort(), ['conclusion', related()].sort());
  });

  test('a commented-out abstract is none', () => {
    const text = '% \\begin{abstract}\n50\\% \\begin{abstract}';
    const have = sectionsInPaper(structure, { headings: [], text, format: 'latex' });
    assert.deepEqual([...have], [['abstract', text.lastIndexOf('\\begin')]], 'an escaped \\% is no comment');
    assert.deepEqual([...sectionsInPaper(structure, { headings: [], text: '% \\begin{abstract}', format: 'latex' })], []);
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
