// `corpus-lens ingest` then `corpus-lens elements` (the built CLI, as users run it) over the LaTeX, arXiv HTML and
// (compiled at test time) PDF fixtures, into an embedded corpus with the offline embedder: the ingest summary counts
// the elements, the list carries labels, pages and boxes, a query for a table's cells finds that table, --type
// filters, bad flags are one line.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.ts';
import { noPdflatex } from '../support/pdflatex.ts';

const fixtures = join(__dirname, '..', 'fixtures', 'ingest');
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-elements-cli-'));
const db = join(dir, 'corpus');
// The compiled PDF is the same work as elements.tex, so ingested together they are one paper (LaTeX's text and
// elements win); its own elements, with pages and boxes, are read from a corpus of the PDF alone.
const dbPdf = join(dir, 'corpus-pdf');
after(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  match: string;
  similarity: number | null;
  element: {
    type: string;
    label: string | null;
    caption: string | null;
    content: string | null;
    page: number | null;
    bbox: number[] | null;
    sectionTitle: string | null;
  };
  paper: { id: string; title: string | null };
}

async function elements(...args: string[]): Promise<Row[]> {
  return elementsOf(db, ...args);
}

async function elementsOf(corpus: string, ...args: string[]): Promise<Row[]> {
  const r = await runCli(['elements', '--db', corpus, '--json', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

let summary: { papers: number; sentences: number; elements: number; skipped: number; failed: unknown[]; merged?: number };
before(async () => {
  const inputs = [join(fixtures, 'elements.tex'), join(fixtures, 'arxiv-2503.12436.html')];
  if (!noPdflatex) {
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', '-output-directory', dir, join(fixtures, 'elements.tex')], {
      cwd: dir,
      stdio: 'ignore',
      timeout: 60_000,
    });
    inputs.push(join(dir, 'elements.pdf'));
  }
  const r = await runCli(['ingest', '--db', db, '--json', ...inputs]);
  assert.equal(r.code, 0, r.stderr);
  summary = JSON.parse(r.stdout);
  if (!noPdflatex) {
    const alone = await runCli(['ingest', '--db', dbPdf, '--json', join(dir, 'elements.pdf')]);
    assert.equal(alone.code, 0, alone.stderr);
  }
});

test('ingest --json counts the elements next to papers and sentences (keys extended, none removed)', () => {
  const keys = ['papers', 'sentences', 'elements', 'skipped', 'failed', 'warnings'];
  assert.deepEqual(Object.keys(summary), noPdflatex ? keys : [...keys, 'merged']);
  assert.deepEqual(summary.failed, []);
  // elements.tex: 2 figures, 2 tables, 3 equations (one unnumbered); the HTML page: a figure, an equation, a table.
  // The compiled PDF is merged into elements.tex's paper, whose LaTeX elements stand.
  assert.equal(summary.elements, 10);
  assert.equal(summary.papers, 2);
  if (!noPdflatex) assert.equal(summary.merged, 1);
});

test('without QUERY: every element, with label, caption, section, and page + box for the PDF', async () => {
  const all = await elements();
  assert.equal(all.length, summary.elements);
  const html = all.filter((r) => r.paper.id === 'arxiv:2503.12436');
  assert.deepEqual(
    html.map((r) => [r.element.type, r.element.label, r.element.sectionTitle, r.element.page]),
    [
      ['figure', 'Figure 1', 'Introduction', null],
      ['equation', 'Equation (1)', 'Method', null],
      ['table', 'Table 1', 'Window Size', null],
    ],
  );
  if (!noPdflatex) {
    // the PDF alone: its 7 labelled elements and the unnumbered display equation (found by its layout)
    const pdf = (await elementsOf(dbPdf)).filter((r) => r.element.page !== null);
    assert.equal(pdf.length, 8);
    assert.deepEqual(
      pdf.filter((r) => r.element.label === null).map((r) => [r.element.type, r.element.content]),
      [['equation', 'c(d) = cos(E(q), E(section(d)))']],
    );
    assert.ok(pdf.every((r) => r.element.bbox?.length === 4));
  }
  const tables = await elements('--type', 'table');
  assert.ok(tables.length >= 3 && tables.every((r) => r.element.type === 'table'));
  assert.equal((await elements('--k', '2')).length, 2);
});

test("with QUERY: a query for a table's cells finds that table first; --type narrows", async () => {
  const byCells = await elements('BM25 0.612 Dense encoder 0.741');
  assert.equal(byCells[0].match, 'direct');
  assert.equal(byCells[0].element.label, 'Table 1');
  assert.equal(byCells[0].element.caption, 'Retrieval quality on the citation benchmark.');
  assert.ok(typeof byCells[0].similarity === 'number');
  const byWidth = await elements('window widths 256 and 512');
  assert.equal(byWidth[0].paper.id, 'arxiv:2503.12436');
  assert.equal(byWidth[0].element.label, 'Table 1');
  const latency = await elements('--type', 'table', 'median latency of a lookup by corpus size');
  assert.equal(latency[0].element.label, 'Table 2');
  assert.ok(latency.every((r) => r.element.type === 'table'));
  const eq = await elements('--type', 'equation', 'cosine of the query and candidate vectors');
  assert.ok(eq.length && eq.every((r) => r.element.type === 'equation'));
  const text = await runCli(['elements', '--db', db, '--k', '1', 'BM25 0.612 Dense encoder 0.741']);
  assert.match(
    text.stdout,
    /^Table 1 \(table, (p\. 3, )?§ Results\) [\d.]+ Retrieval quality on the citation benchmark\. — Figures, Tables and Equations of a Retrieval Study \[[^\]]+\]\n$/,
  );
});

test('bad flags are one clear line', async () => {
  const r = await runCli(['elements', '--db', db, '--type', 'chart']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--type must be one of figure, diagram, table, equation \(got 'chart'\)/);
  assert.equal(r.stderr.trim().split('\n').length, 1);
});
