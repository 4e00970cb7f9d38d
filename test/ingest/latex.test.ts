// LaTeX projects: includes resolved (input, include, import, subfile), cycles and missing files reported, sections
// numbered as LaTeX numbers them, captions in their section, no bibliography. Plus the real SciPy 1.0 paper.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readPaperFile, selectPaperFiles, expandLatexProject, latexAuthors } from '../../src/core/ingest/index.ts';
import { evalPath } from '../support/eval.ts';

const project = join(__dirname, '..', 'fixtures', 'ingest', 'latex-project');
const scipy = evalPath('latex', 'scipy-1.0-paper');

test('a multi-file project: sentences from every file in include order, sections numbered', async () => {
  const r = await readPaperFile(join(project, 'main.tex'));
  assert.equal(r.papers.length, 1);
  const p = r.papers[0];
  // A missing include and a cycle lose nothing else: warnings, not failures.
  assert.deepEqual(r.errors, []);
  const reasons = (r.warnings ?? []).map((e) => e.reason);
  assert.equal(reasons.length, 2);
  assert.match(reasons[0], /missing-file.*not found/);
  assert.match(reasons[1], /include cycle/);
  assert.equal(p.title, 'A Project Split Across Files');
  assert.deepEqual(p.authors, ['Ann Smith', 'Bob Jones']);
  assert.equal(p.year, 2019);
  assert.equal(p.abstract, 'We read a paper that lives in several files. The abstract comes first.');
  assert.deepEqual(
    p.sections.map((s) => [s.number, s.title, s.level]),
    [
      [null, 'Abstract', 1],
      ['1', 'Introduction', 1],
      ['2', 'Method', 1],
      ['2.1', 'Details', 2],
      [null, 'An Unnumbered Aside', 2],
      ['3', 'Results', 1],
      ['A', 'Proofs', 1],
    ],
  );
  const rows = p.sentences.map((s) => [p.sections[s.sectionIndex].title, s.text]);
  assert.deepEqual(rows, [
    ['Abstract', 'We read a paper that lives in several files.'],
    ['Abstract', 'The abstract comes first.'],
    ['Introduction', 'The introduction is written in the main file.'],
    ['Introduction', 'A second introductory sentence comes from an input file.'],
    ['Introduction', 'A caption inside the introduction.'],
    ['Method', 'The method section comes from an included file.'],
    ['Details', 'Details are numbered as a subsection.'],
    ['An Unnumbered Aside', 'Starred headings have no number.'],
    ['An Unnumbered Aside', 'This sentence comes through import.'],
    ['An Unnumbered Aside', 'Imported files resolve their own inputs relative to their folder.'],
    ['Results', 'A subfile brings its own section.'],
    ['Results', 'Loop file A is read once.'],
    ['Results', 'Loop file B is read once.'],
    ['Proofs', 'The appendix is lettered.'],
  ]);
  assert.ok(p.sentences.every((s) => s.page === null));
  assert.ok(!p.sentences.some((s) => /Never ingested/.test(s.text)));
  assert.match(p.id, /^sha256:/);
});

test('files included by a main file are not papers of their own', async () => {
  const sub = await readPaperFile(join(project, 'sections', 'method.tex'));
  assert.deepEqual(sub.papers, []);
  assert.deepEqual(sub.errors, []);
  assert.match(sub.skipped ?? '', /main\.tex/);
  const subfile = await readPaperFile(join(project, 'sections', 'sub.tex'));
  assert.deepEqual(subfile.papers, []);
  const all = ['main.tex', 'macros.tex', 'sections/method.tex', 'sections/sub.tex', 'parts/deep.tex'].map((f) => join(project, f));
  assert.deepEqual(selectPaperFiles([...all, '/x/paper.pdf']), [join(project, 'main.tex'), '/x/paper.pdf']);
  const expanded = expandLatexProject(join(project, 'main.tex'));
  assert.deepEqual(
    expanded.files.map((f) => f.slice(project.length + 1)),
    [
      'main.tex',
      'macros.tex',
      'sections/intro-more.tex',
      'sections/method.tex',
      'parts/deep.tex',
      'parts/deeper.tex',
      'sections/sub.tex',
      'sections/loop-a.tex',
      'sections/loop-b.tex',
    ],
  );
});

test('author lists: \\and, \\thanks, affiliations, several \\author commands', () => {
  assert.deepEqual(latexAuthors(String.raw`\author{Ann Smith\thanks{X} \and Bob Jones \\ Univ}`), ['Ann Smith', 'Bob Jones']);
  assert.deepEqual(latexAuthors(String.raw`\author[1]{St\'efan van der Walt}\author[2,*]{Ralf Gommers}`), [
    'Stéfan van der Walt',
    'Ralf Gommers',
  ]);
});

test(
  'the SciPy 1.0 paper ingests as one multi-file paper with its sections in order',
  { skip: !scipy && 'shared/eval absent' },
  async () => {
    const r = await readPaperFile(join(scipy!, 'paper.tex'));
    assert.deepEqual(r.errors, []);
    assert.equal(r.papers.length, 1);
    const p = r.papers[0];
    assert.equal(p.title, 'SciPy 1.0—Fundamental Algorithms for Scientific Computing in Python');
    assert.equal(p.authors[0], 'Pauli Virtanen');
    assert.ok(p.authors.length > 20);
    assert.match(p.abstract ?? '', /^SciPy is an open source scientific computing library for the Python programming language\./);
    const titles = p.sections.map((s) => s.title);
    assert.deepEqual(titles.slice(0, 6), ['Abstract', 'Introduction', 'Background', 'SciPy Begins', 'SciPy Matures', 'SciPy Today']);
    assert.ok(
      p.sections.every((s) => s.number === null),
      'the paper uses starred headings only',
    );
    const at = (t: string) => titles.indexOf(t);
    for (const [a, b] of [
      ['Background', 'Key technical improvements'],
      ['Key technical improvements', 'cKDTree'],
      ['cKDTree', 'Numerical optimization'],
      ['Numerical optimization', 'Polynomial interpolators'],
      ['Polynomial interpolators', 'Discussion'],
    ]) {
      assert.ok(at(a) >= 0 && at(b) >= 0 && at(a) < at(b), `${a} before ${b}`);
    }
    // Sentences of \input files sit in their section (ckdtree.tex under cKDTree, scipy-optimize.tex under optimization).
    const sectionOf = (needle: string) => p.sections[p.sentences.find((s) => s.text.includes(needle))!.sectionIndex].title;
    assert.equal(sectionOf('space-partitioning data structure'), 'cKDTree');
    assert.ok(p.sentences.length > 300);
    p.sentences.forEach((s, i) => assert.equal(s.globalIndex, i));
    // No reference entries: no sentence is a bib entry of references.bib.
    assert.ok(!p.sentences.some((s) => /^\s*@|journal=|\\bibitem/.test(s.text)));
    assert.ok(!titles.some((t) => /references|bibliography/i.test(t)));
  },
);
