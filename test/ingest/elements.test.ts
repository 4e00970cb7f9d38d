// Figures, tables and equations as elements (issue 17, item 3; seed 003), read from the LaTeX, arXiv HTML and PDF
// fixtures. test/fixtures/ingest/elements.tex is compiled with pdflatex at test time: its .aux file (LaTeX's own
// record of every \label's number and page) is the oracle for the numbers the LaTeX reader gives and the pages the
// PDF reader finds. Then an ingest into an embedded corpus: the counts, and a query for a table's cells finds it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPaperFile, type ParsedPaper } from '../../src/core/ingest/index.ts';
import type { ParsedElement } from '../../src/core/ingest/types.ts';
import { compilePdf, noPdflatex } from '../support/pdflatex.ts';
import { displayLike } from '../../src/core/ingest/pdf-elements.ts';
import type { PdfLine } from '../../src/core/ingest/pdf-layout.ts';

const fixtures = join(__dirname, '..', 'fixtures', 'ingest');
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-elements-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** \newlabel{key}{{number}{page}} of an .aux file. */
function auxLabels(aux: string): Map<string, { number: string; page: number }> {
  const out = new Map<string, { number: string; page: number }>();
  for (const m of aux.matchAll(/\\newlabel\{([^}]*)\}\{\{([^}]*)\}\{(\d+)\}/g)) out.set(m[1], { number: m[2], page: Number(m[3]) });
  return out;
}

/** Compiles a fixture twice (so that the .aux is complete); returns the PDF's path and the labels. */
function compile(name: string): { pdf: string; labels: Map<string, { number: string; page: number }> } {
  for (let i = 0; i < 2; i++) {
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', '-output-directory', dir, join(fixtures, `${name}.tex`)], {
      cwd: dir,
      stdio: 'ignore',
      timeout: 60_000,
    });
  }
  return { pdf: join(dir, `${name}.pdf`), labels: auxLabels(readFileSync(join(dir, `${name}.aux`), 'utf8')) };
}

async function readOne(path: string, warnings = 0): Promise<ParsedPaper> {
  const r = await readPaperFile(path);
  assert.deepEqual(r.errors, []);
  assert.equal(r.warnings?.length ?? 0, warnings, JSON.stringify(r.warnings));
  assert.equal(r.papers.length, 1);
  return r.papers[0];
}

const brief = (e: ParsedElement) => [e.type, e.label, e.sectionTitle];

/** The numbers a label shows: 'Figure 2' → ['2'], 'Equations (2)–(3)' → ['2', '3']. */
const numbersOf = (label: string | null) => [...(label ?? '').matchAll(/(\d+)/g)].map((m) => m[1]);

let compiled: ReturnType<typeof compile> | null = null;
before(() => {
  if (!noPdflatex) compiled = compile('elements');
});

test('LaTeX: figures, tables, equations and align with captions, labels, cells and sections', async () => {
  const p = await readOne(join(fixtures, 'elements.tex'));
  const els = p.elements ?? [];
  assert.deepEqual(els.map(brief), [
    ['diagram', 'Figure 1', 'Introduction'],
    ['equation', 'Equation (1)', 'Method'],
    ['equation', 'Equations (2)–(3)', 'Method'],
    ['equation', null, 'Method'],
    ['table', 'Table 1', 'Results'],
    ['figure', 'Figure 2', 'Results'],
    ['table', 'Table 2', 'Results'],
  ]);
  assert.deepEqual(
    els.map((e) => e.labelKey),
    ['fig:arch', 'eq:cosine', 'eq:rrf,eq:hybrid', null, 'tab:quality', 'fig:scale', 'tab:latency'],
  );
  const [fig1, eq1, align, , table1, , table2] = els;
  assert.equal(fig1.caption, 'Architecture of the sentence encoder with its mean pooling layer.');
  assert.equal(fig1.content, null);
  assert.match(eq1.content!, /^s\(q, d\) = \\frac\{E\(q\) \\cdot E\(d\)\}/);
  assert.doesNotMatch(eq1.content!, /\\label/);
  assert.equal(align.content!.split('\n').length, 3, 'the three lines of the align');
  assert.equal(
    table1.content,
    ['Retriever | Recall@10 | MRR', 'BM25 | 0.612 | 0.433', 'Dense encoder | 0.741 | 0.528', 'Hybrid fusion | 0.803 | 0.577'].join('\n'),
  );
  assert.equal(table2.content, ['Corpus size | Latency (ms)', '10k | 6', '100k | 59'].join('\n'));
  for (const e of els) {
    assert.equal(e.page, null);
    assert.equal(p.sections[e.sectionIndex!].title, e.sectionTitle, 'sectionIndex points at its section');
    // Each element follows the sentence before it in the source.
    const before = p.sentences[e.afterSentence];
    assert.equal(before.sectionIndex <= e.sectionIndex!, true);
  }
  assert.equal(
    p.sentences[fig1.afterSentence].text,
    'A retriever ranks the sentences of prior papers by their similarity to the sentence being written.',
  );
  assert.equal(p.sentences[table1.afterSentence].text, 'Dense retrieval finds paraphrases that keyword search misses.');
});

test('LaTeX: the numbers the reader gives are the numbers LaTeX printed (.aux)', { skip: noPdflatex }, async () => {
  const p = await readOne(join(fixtures, 'elements.tex'));
  let checked = 0;
  for (const e of p.elements ?? []) {
    const keys = e.labelKey?.split(',') ?? [];
    if (!keys.length) continue;
    // One key: its number; an align's first and last keys: the first and last numbers of its label.
    assert.deepEqual(
      keys.map((k) => compiled!.labels.get(k)?.number),
      numbersOf(e.label),
      e.label ?? '',
    );
    checked += keys.length;
  }
  assert.equal(checked, compiled!.labels.size, 'every \\label of the fixture was checked');
});

test('LaTeX: the other fixtures (a project of \\input files, one and two columns)', async () => {
  const project = await readOne(join(fixtures, 'latex-project', 'main.tex'), 2); // a missing \input and a cycle
  assert.deepEqual(project.elements?.map(brief), [['figure', 'Figure 1', 'Introduction']]);
  assert.equal(project.elements![0].caption, 'A caption inside the introduction.');
  const onecol = await readOne(join(fixtures, 'onecol.tex'));
  assert.deepEqual(onecol.elements?.map(brief), [
    ['equation', 'Equation (1)', 'Introduction'],
    ['figure', 'Figure 1', 'Related Work'],
  ]);
  assert.equal(onecol.elements![0].content, 'E = m c^2 + \\sum_{i=1}^{n} x_i');
  const twocol = await readOne(join(fixtures, 'twocol.tex'));
  assert.deepEqual(twocol.elements?.map(brief), [
    ['equation', 'Equation (1)', 'Introduction'],
    ['figure', 'Figure 1', 'Background'],
    ['figure', 'Figure 2', 'Background'],
  ]);
});

test('arXiv HTML: <figure> with its figcaption tag, a MathML equation by its alttext, a table with its cells', async () => {
  const p = await readOne(join(fixtures, 'arxiv-2503.12436.html'));
  const els = p.elements ?? [];
  assert.deepEqual(els.map(brief), [
    ['figure', 'Figure 1', 'Introduction'],
    ['equation', 'Equation (1)', 'Method'],
    ['table', 'Table 1', 'Window Size'],
  ]);
  assert.equal(els[0].caption, 'Memory use of dense and sparse attention as the input grows.');
  assert.equal(els[1].content, 'C=nw');
  assert.equal(els[2].caption, 'Window widths we compared.');
  assert.equal(els[2].content, '256 | 512');
  assert.equal(p.sentences[els[2].afterSentence].text, 'We set the window width to 512 tokens in all experiments (see Table 1).');
  // The captions stay sentences of their own too (the text search finds them as before).
  assert.ok(p.sentences.some((s) => s.text === 'Memory use of dense and sparse attention as the input grows.'));
});

test(
  'PDF: caption lines and display lines give every element on the page LaTeX put it (.aux), the unnumbered equation too',
  { skip: noPdflatex },
  async () => {
    const tex = await readOne(join(fixtures, 'elements.tex'));
    const pdf = await readOne(compiled!.pdf);
    const els = pdf.elements ?? [];
    // Every \label of the source: its type from the LaTeX reader, its number and page from the .aux.
    const expected: string[] = [];
    for (const e of tex.elements ?? []) {
      // An unnumbered equation has no label and no .aux entry: it is on the page of the sentence LaTeX set after it.
      if (!e.labelKey) {
        const after = tex.sentences[e.afterSentence + 1].text;
        expected.push(`null p${pdf.sentences.find((s) => s.text === after)!.page}`);
      }
      for (const key of e.labelKey?.split(',') ?? []) {
        const { number, page } = compiled!.labels.get(key)!;
        const label = e.type === 'equation' ? `Equation (${number})` : `${e.type === 'table' ? 'Table' : 'Figure'} ${number}`;
        expected.push(`${label} p${page}`);
      }
    }
    const found = els.map((e) => `${e.label} p${e.page}`);
    assert.deepEqual(found, expected, `found ${found.length} of ${expected.length}`);
    const byLabel = new Map(els.map((e) => [e.label, e]));
    assert.equal(byLabel.get('Figure 1')!.caption, 'Architecture of the sentence encoder with its mean pooling layer.');
    assert.equal(byLabel.get('Figure 2')!.caption, 'Recall at ten as the corpus grows from one to one hundred thousand sentences.');
    assert.equal(byLabel.get('Table 2')!.caption, 'Median lookup latency by corpus size.');
    // The table's rows are its content (cells split where the PDF leaves a wide gap), and no longer prose.
    const t1 = byLabel.get('Table 1')!;
    for (const cell of ['Retriever', 'Recall@10', 'BM25', '0.612', 'Dense encoder', '0.741', 'Hybrid fusion', '0.577'])
      assert.ok(t1.content?.includes(cell), `${cell} in ${t1.content}`);
    assert.equal(t1.content!.split('\n').length, 4);
    assert.ok(!pdf.sentences.some((s) => /0\.741|0\.612/.test(s.text)), 'table cells leaked into the prose');
    assert.ok(pdf.sentences.some((s) => s.text === 'The hybrid fusion of both rankings is the best retriever on every measure.'));
    // Boxes: on the page (US letter, points from the top), holding the caption; Figure 1 is a 6 cm × 3 cm rule
    // drawn without text, so its box is the blank above its caption: at least that large.
    for (const e of els) {
      const [x0, y0, x1, y1] = e.bbox!;
      assert.ok(0 <= x0 && x0 < x1 && x1 <= 612 && 0 <= y0 && y0 < y1 && y1 <= 792, `${e.label}: ${e.bbox}`);
    }
    const [fx0, fy0, fx1, fy1] = byLabel.get('Figure 1')!.bbox!;
    assert.ok(fx1 - fx0 >= 170 && fy1 - fy0 >= 85, `Figure 1 box ${byLabel.get('Figure 1')!.bbox}`);
    const [, ty0, , ty1] = t1.bbox!;
    assert.ok(ty1 - ty0 >= 4 * 10, 'Table 1 box spans its four rows and caption');
    // Sections and positions follow the text around each element.
    assert.deepEqual(
      els.map((e) => e.sectionTitle),
      ['Introduction', 'Method', 'Method', 'Method', 'Method', 'Results', 'Results', 'Results'],
    );
    // The unnumbered display (equation*): its line is the content, it is no longer glued into the prose around it.
    const unnumbered = els.filter((e) => e.type === 'equation' && e.label === null);
    assert.deepEqual(
      unnumbered.map((e) => e.content),
      ['c(d) = cos(E(q), E(section(d)))'],
    );
    assert.ok(!pdf.sentences.some((s) => s.text.includes('cos(E(q)')), 'the display leaked into the prose');
    assert.ok(pdf.sentences.some((s) => s.text === 'An unnumbered equation gives the section similarity.'));
    for (const e of els) assert.ok(e.afterSentence >= 0 && pdf.sentences[e.afterSentence].page! <= e.page!);
  },
);

test('PDF: the one- and two-column fixtures give the elements the LaTeX reader finds in their sources', { skip: noPdflatex }, async () => {
  for (const name of ['onecol', 'twocol']) {
    const { pdf } = compile(name);
    const fromPdf = (await readOne(pdf)).elements ?? [];
    const fromTex = (await readOne(join(fixtures, `${name}.tex`))).elements ?? [];
    assert.deepEqual(
      fromPdf.map((e) => [e.type, e.label]),
      fromTex.map((e) => [e.type, e.label]),
      name,
    );
    for (const e of fromPdf) assert.ok(e.page! >= 1 && e.bbox, `${name} ${e.label}`);
  }
});

test('PDF display test: a centred, set-off block with a mathematical sign is a display; prose, table rows and unset lines are not', () => {
  const line = (text: string, x0: number, x1: number, y: number, parts = [text]): PdfLine => ({
    page: 1,
    text,
    parts,
    x0,
    x1,
    y,
    size: 10,
    col: -1,
  });
  const column = () => ({ x0: 134, x1: 478 });
  const above = line('The section weight of three was tuned on the training claims.', 134, 478, 228);
  const below = line('An unnumbered equation gives the section similarity.', 134, 400, 285);
  // A stacked fraction: three short centred lines, over 20 pt from the text on either side (2.2 × size on the fixtures).
  const fraction = [line('E(q) · E(d)', 280, 330, 250), line('s(q, d) = ——', 240, 380, 257), line('∥E(q)∥ ∥E(d)∥', 270, 340, 264)];
  assert.equal(displayLike(fraction, column, above, below), true);
  assert.equal(displayLike([line('c(d) = cos(E(q))', 260, 352, 255)], column, above, below), true);
  // A justified line of prose is centred too, but fills its column; a table row is cells; words alone are not math.
  assert.equal(
    displayLike([line('so that x = 2 holds for every sentence of the corpus we read', 134, 478, 255)], column, above, below),
    false,
  );
  assert.equal(displayLike([line('BM25 = 0.612', 240, 380, 255, ['BM25', '= 0.612'])], column, above, below), false);
  assert.equal(displayLike([line('Centred words only', 260, 352, 255)], column, above, below), false);
  // Off centre, or set like a line break from the text (12 pt), it is not a display.
  assert.equal(displayLike([line('x = 1', 140, 180, 255)], column, above, below), false);
  assert.equal(displayLike([line('x = 1', 290, 320, 240)], column, above, below), false);
  // Four lines are more than a display here.
  assert.equal(displayLike([...fraction, line('+ 1', 300, 320, 270)], column, above, below), false);
});

test(
  'PDF: a figure drawn without text on a page of centred lines has its box inside the page and its column',
  { skip: noPdflatex },
  async () => {
    const out = join(dir, 'centred');
    const centred = Array.from({ length: 12 }, (_, i) => `Centred line number ${i + 1} of a poem-like block.\\\\`);
    compilePdf(out, {
      name: 'centred',
      lines: [
        '\\documentclass{article}',
        '\\begin{document}',
        '\\section{Introduction}',
        'A short paragraph of prose before the centred block sets the left margin of the column.',
        '\\begin{center}',
        ...centred,
        '\\end{center}',
        '\\begin{figure}[h]\\centering\\rule{6cm}{2cm}\\caption{A black bar drawn without any text.}\\end{figure}',
        '\\end{document}',
      ],
    });
    const pdf = await readOne(join(out, 'centred.pdf'));
    const figure = (pdf.elements ?? []).find((e) => e.label === 'Figure 1');
    assert.ok(figure?.bbox, 'the figure is found with a box');
    const [x0, , x1] = figure.bbox;
    // article's text block on US letter runs from about 133 to 479 pt: the box is that column, not past the page.
    assert.ok(x0 >= 100 && x1 <= 520 && x1 - x0 >= 6 * 28.3, `box ${figure.bbox}`);
  },
);
