// A PDF table's rows and cells (issue 36, item 12): the PDF reader stores a table's content in the form the LaTeX
// reader stores the tabular's (cells joined by ' | ', one row a line), so element search and Ask find a table by a
// cell in a PDF as they do in its source. The oracle is the LaTeX reader's reading of the same source, compiled at
// test time: booktabs and plain tabulars, a wide table set with narrow gaps, IEEEtran's two columns and table*, and
// two real tables (the arXiv template's and the SciPy 1.0 paper's roadmap, ../shared/eval/latex).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { answerElements } from '../../../../src/core/ask/elements.ts';
import { newConversation } from '../../../../src/core/ask/index.ts';
import { createEmbedder } from '../../../../src/core/embed/index.ts';
import { readPaperFile, type ParsedPaper } from '../../../../src/core/ingest/index.ts';
import { latexElements } from '../../../../src/core/ingest/latex-elements.ts';
import type { PdfLine } from '../../../../src/core/ingest/pdf-layout.ts';
import { pdfTableRows } from '../../../../src/core/ingest/pdf-table.ts';
import { ingestPapers } from '../../../../src/core/ingest/pipeline.ts';
import { searchElements } from '../../../../src/core/retrieve/elements.ts';
import { openPGliteStore } from '../../../../src/core/store/backends/pglite.ts';
import { evalPath } from '../../../support/eval.ts';
import { compilePdf, noPdflatex } from '../../../support/pdflatex.ts';

const fixtures = join(__dirname, '..', '..', '..', 'fixtures', 'ingest');
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-pdf-table-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A row of cells at baseline y: [text, x0, x1] each. */
function row(y: number, ...cells: Array<[string, number, number]>): PdfLine {
  const spans = cells.map(([text, x0, x1]) => ({ text, x0, x1 }));
  const text = cells.map((c) => c[0]).join(' ');
  return { page: 1, text, parts: [text], spans, x0: cells[0][1], x1: cells[cells.length - 1][2], y, size: 10, col: -1 };
}

test('cells go to the columns the fullest rows set; a header over two columns is one cell; empty cells keep their place', () => {
  const lines = [
    row(100, ['Development', 200, 260], ['Test', 310, 330]),
    row(112, ['Retriever', 100, 150], ['Recall', 180, 210], ['MRR', 240, 265], ['Recall', 290, 320], ['MRR', 340, 365]),
    row(124, ['Dense encoder', 100, 165], ['0.741', 185, 205], ['0.528', 242, 262], ['0.733', 295, 315], ['0.519', 342, 362]),
    row(136, ['BM25', 100, 125], ['0.433', 242, 262]),
  ];
  assert.equal(
    pdfTableRows(lines),
    [
      ' | Development | Test',
      'Retriever | Recall | MRR | Recall | MRR',
      'Dense encoder | 0.741 | 0.528 | 0.733 | 0.519',
      'BM25 |  | 0.433',
    ].join('\n'),
  );
  // Two runs of one cell (words set far apart) are one cell; a line of no text is no row; a long table is cut at a row.
  assert.equal(
    pdfTableRows([
      row(100, ['A', 100, 160], ['B', 200, 210], ['C', 300, 310]),
      row(112, ['p', 100, 110], ['q', 140, 160], ['r', 300, 310]),
    ]),
    'A | B | C\np q |  | r',
  );
  const long = Array.from({ length: 200 }, (_, i) => row(100 + i * 12, [`name ${i}`, 100, 140], [String(i), 200, 220]));
  const text = pdfTableRows(long)!;
  assert.ok(text.split('\n').length < 200 && text.split('\n').every((r) => /^name \d+ \| \d+$/.test(r)));
  assert.equal(pdfTableRows([]), null);
});

/** Tables by caption (lower case, words only: IEEEtran sets captions in capitals). */
function tables(elements: readonly { type: string; caption: string | null; content: string | null }[]): Map<string, string | null> {
  const key = (c: string | null) =>
    (c ?? '')
      .toLowerCase()
      .replace(/[^a-z0-9@]+/g, ' ')
      .trim();
  return new Map(elements.filter((e) => e.type === 'table').map((e) => [key(e.caption), e.content]));
}

async function readPdf(path: string): Promise<ParsedPaper> {
  const r = await readPaperFile(path);
  assert.deepEqual(r.errors, []);
  return r.papers[0];
}

let article: ParsedPaper;
let ieee: ParsedPaper;
before(async () => {
  if (noPdflatex) return;
  assert.ok(compilePdf(dir, join(fixtures, 'tables.tex')));
  assert.ok(compilePdf(dir, join(fixtures, 'tables-ieee.tex')));
  article = await readPdf(join(dir, 'tables.pdf'));
  ieee = await readPdf(join(dir, 'tables-ieee.pdf'));
});

test(
  'article: each table comes out row by row with the cells of its LaTeX source; no cell leaks into the prose',
  { skip: noPdflatex },
  () => {
    const fromTex = tables(latexElements(readFileSync(join(fixtures, 'tables.tex'), 'utf8')));
    const fromPdf = tables(article.elements ?? []);
    assert.equal(fromTex.size, 3);
    assert.deepEqual(fromPdf, fromTex);
    const text = article.sentences.map((s) => s.text).join('\n');
    for (const cell of ['0.741', 'HNSW graph', '15280', 'Biomedical abstracts', 'web forums', '384 floats', 'Recall at 10'])
      assert.ok(!text.includes(cell), `${cell} in the prose`);
    for (const s of [
      'The hybrid fusion of both rankings is the best retriever on every measure we report here.',
      'The shorter vectors make the index smaller without a loss in recall on this benchmark.',
      'Nothing else is reported on this page, which holds no table.',
    ])
      assert.ok(
        article.sentences.some((x) => x.text === s),
        s,
      );
    // The caption is the caption, not a row; the figure has no cells; the last page has no element.
    const t1 = article.elements!.find((e) => e.label === 'Table 1')!;
    assert.equal(t1.caption, 'Retrieval quality of each method on the development split.');
    assert.deepEqual(
      article.elements!.filter((e) => e.type !== 'table').map((e) => [e.type, e.label, e.content]),
      [['figure', 'Figure 1', null]],
    );
    const last = article.sentences.find((x) => x.text.startsWith('Nothing else is reported'))!.page;
    assert.ok(last! > 1 && article.elements!.every((e) => e.page! < last!));
  },
);

test(
  'IEEEtran: "TABLE I" with its caption below, one column and table* across both, headers over two columns',
  { skip: noPdflatex },
  () => {
    const fromTex = tables(latexElements(readFileSync(join(fixtures, 'tables-ieee.tex'), 'utf8')));
    assert.deepEqual(tables(ieee.elements ?? []), fromTex);
    assert.deepEqual(
      ieee.elements!.filter((e) => e.type === 'table').map((e) => e.label),
      ['Table I', 'Table II', 'Table III'],
    );
    assert.match(fromTex.get('recall of each retriever on the two splits')!, /^ \| Development \| Test\nRetriever \| Recall@10 \| MRR/);
  },
);

const latexDir = evalPath('latex');
test(
  'real tables (arXiv template, SciPy 1.0 roadmap): the PDF gives the rows and cells the LaTeX reader gives',
  { skip: noPdflatex || (!latexDir && '../shared/eval/latex is absent (set CORPUS_LENS_EVAL_DIR)') },
  async () => {
    const table = (file: string, label: string) => {
      const t = readFileSync(join(latexDir!, file), 'utf8');
      const start = t.lastIndexOf('\\begin{table}', t.indexOf(`\\label{${label}}`));
      // Placed here ([H]): a float LaTeX sets above the first heading is front matter to the reader, which finds no
      // caption there (a known limit).
      return t
        .slice(start, t.indexOf('\\end{table}', start) + '\\end{table}'.length)
        .replace(/^\\begin\{table\}(\[[^\]]*\])?/, '\\begin{table}[H]');
    };
    const lines = [
      // Margins wide enough for the roadmap's long cells (the paper's own class is not installed); \cite prints nothing
      // (the LaTeX reader leaves citations out of cells).
      '\\documentclass{article}',
      '\\usepackage[margin=2cm]{geometry}',
      '\\usepackage{booktabs,float}',
      '\\renewcommand{\\cite}[1]{}',
      '\\begin{document}',
      '\\section{Tables}',
      'Two tables from real sources follow.',
      table('arxiv-style-template/template.tex', 'tab:table'),
      'Text between the tables.',
      table('scipy-1.0-paper/paper.tex', 'table:roadmap'),
      'The end of the section.',
      '\\end{document}',
    ];
    assert.ok(compilePdf(join(dir, 'real'), { name: 'real', lines }));
    const fromPdf = [...tables((await readPdf(join(dir, 'real', 'real.pdf'))).elements ?? []).values()];
    const fromTex = [...tables(latexElements(lines.join('\n'))).values()];
    assert.equal(fromPdf.length, 2);
    // The roadmap: identical.
    assert.equal(fromPdf[1], fromTex[1]);
    // The template's: the same cells once empty ones are left out (its "Part" is centred over two columns, where the
    // PDF cannot tell it from a cell of the second) and $\sim$ read as the sign PDF prints (∼) — but for its
    // exponent: "up to $10^6$" is "up to 10" in the PDF, which drops raised digits as it drops footnote marks.
    const cells = (t: string | null) =>
      (t ?? '').split('\n').map((r) =>
        r
          .split(' | ')
          .filter(Boolean)
          .map((c) => c.replace(/~/g, '∼')),
      );
    const tex = cells(fromTex[0]);
    tex[tex.length - 1][2] = 'up to 10';
    assert.deepEqual(cells(fromPdf[0]), tex);
  },
);

test('element search and Ask find a PDF table by a cell value as they find the LaTeX one', { skip: noPdflatex }, async () => {
  const embedder = createEmbedder({ provider: 'offline' });
  const store = await openPGliteStore(join(dir, 'corpus'));
  try {
    // The PDF and its source as two papers side by side (an ingest of both would keep them as one work, the source's).
    const tex = (await readPaperFile(join(fixtures, 'tables.tex'))).papers[0];
    const summary = await ingestPapers(store, [article, tex], { embedder });
    assert.equal(summary.papers, 2);
    for (const [query, label] of [
      ['Universal sentence encoder lite 512 floats', 'Table 3'],
      ['biomedical abstracts 15280', 'Table 2'],
      ['HNSW graph 0.741', 'Table 1'],
    ]) {
      const hits = await searchElements(store, embedder, query, { k: 2 });
      assert.deepEqual(
        hits.map((h) => [h.paper.id, h.element.label]).sort(),
        [article.id, tex.id].sort().map((id) => [id, label]),
        query,
      );
      const cards = await answerElements(store, embedder, query, [], newConversation(), { max: 2 });
      assert.deepEqual(
        cards.map((c) => [c.paperId, c.label, c.content]).sort(),
        [article, tex].map((p) => [p.id, label, p.elements!.find((e) => e.label === label)!.content]).sort(),
        `Ask's cards: ${query}`,
      );
    }
  } finally {
    await store.close();
  }
});
