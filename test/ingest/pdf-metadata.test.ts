// Metadata from typeset PDFs (src/core/ingest/pdf-metadata.ts), as a reference manager reads it: article-class papers
// compiled with pdflatex, and the expected title, authors and year read from each LaTeX source by the LaTeX reader,
// never typed twice. The info dictionary is set with pdfTeX's \pdfinfo (no hyperref needed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPaperFile } from '../../src/core/ingest/index.ts';
import { collectBibIndex } from '../../src/core/ingest/folder.ts';
import { pdfLayout } from '../../src/core/ingest/pdf-layout.ts';
import { infoMetadata, pdfMetadata } from '../../src/core/ingest/pdf-metadata.ts';
import { compilePdf, noPdflatex } from '../support/pdflatex.ts';

const BODY = [
  '\\begin{document}',
  '\\maketitle',
  '\\begin{abstract}',
  'We study how writers reuse the phrasing of prior papers. The abstract has two sentences.',
  '\\end{abstract}',
  '\\section{Introduction}',
  'Academic writing follows conventions that differ between communities, and novices learn them by imitation over many years of reading.',
  'This paragraph is long enough to be prose, so that the front matter of the page ends above it and the reader stops looking for names.',
  '\\end{document}',
];

/** Compiles `preamble` + a short body in `dir`; the PDF's path and what the LaTeX source says (read by the LaTeX reader). */
async function compiled(dir: string, name: string, preamble: string[]) {
  const tex = join(dir, `${name}.tex`);
  writeFileSync(tex, [...preamble, ...BODY, ''].join('\n'));
  assert.ok(compilePdf(dir, tex), 'pdflatex compiled the document');
  const source = (await readPaperFile(tex)).papers[0];
  assert.ok(source.title && source.authors.length && source.year, 'the LaTeX source states title, authors and year');
  return { pdf: join(dir, `${name}.pdf`), source };
}

/** Runs `fn` in a fresh temporary folder, removed after. */
async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-meta-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const surnames = (names: readonly string[]) => names.map((n) => n.split(' ').pop());

test(
  'article: authors set side by side with affiliations and e-mails under them, accents, a date',
  { skip: noPdflatex, timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-meta-'));
    try {
      const { pdf, source } = await compiled(dir, 'blocks', [
        '\\documentclass{article}',
        '\\title{Sparse Retrieval of Sentences for Writing Support}',
        '\\author{Ann B. Smith\\\\Department of Computer Science\\\\University of Oslo\\\\\\texttt{ann@uio.no}',
        ' \\and J\\"org M\\"uller\\\\Institut f\\"ur Informatik\\\\TU Berlin, Germany',
        ' \\and Chen Wei\\\\Peking University\\\\Beijing, China}',
        '\\date{March 2019}',
      ]);
      const paper = (await readPaperFile(pdf)).papers[0];
      assert.equal(paper.title, source.title);
      assert.deepEqual(paper.authors, source.authors, 'names only: no affiliation, e-mail or place');
      assert.equal(paper.year, source.year, 'the printed date, not the day it was typeset');
      assert.match(paper.citationKey!, /^smith2019/, 'a key from the printed first author, never anon…');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'article: one author line with footnote marks, a DOI and an arXiv id printed on page 1',
  { skip: noPdflatex, timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-meta-'));
    try {
      const { pdf, source } = await compiled(dir, 'thanks', [
        '\\documentclass{article}',
        '\\title{Robust Estimation of Treatment Effects under Interference\\thanks{Preprint arXiv:2101.01234; published version doi:10.1234/jrss.2024.0042.}}',
        "\\author{Siobhan O'Reilly\\thanks{Trinity College Dublin.} \\and Mateo Guti\\'errez\\thanks{Universidad de los Andes.} \\and Lena Hoffmann\\thanks{Max Planck Institute.}}",
        '\\date{February 11, 2024}',
      ]);
      const layout = await pdfLayout(new Uint8Array(readFileSync(pdf)));
      const { meta, from } = pdfMetadata(layout);
      assert.equal(meta.title, source.title, 'the footnote mark after the title is not part of it');
      assert.deepEqual(surnames(meta.authors!), surnames(source.authors), 'names set apart by \\and and footnote marks are three authors');
      assert.equal(meta.year, source.year);
      assert.equal(meta.doi, '10.1234/jrss.2024.0042');
      assert.equal(meta.arxivId, '2101.01234');
      assert.deepEqual(from, { title: 'page', authors: 'page', year: 'page', doi: 'page', arxivId: 'page' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'the info dictionary: a template title it carries loses to the page, one the page prints wins',
  { skip: noPdflatex, timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-meta-'));
    try {
      const junk = await compiled(dir, 'junk', [
        '\\documentclass{article}',
        '\\pdfinfo{/Title (Instructions for Authors) /Author (Jane Q. Public) /CreationDate (D:20260101000000Z)}',
        '\\title{Learning Rate Warmup Stabilises Residual Networks}',
        '\\author{Rafael Oliveira \\and Ingrid Solberg}',
        '\\date{2017}',
      ]);
      const layout = await pdfLayout(new Uint8Array(readFileSync(junk.pdf)));
      assert.deepEqual(
        infoMetadata(layout.info),
        { title: 'Instructions for Authors', authors: ['Jane Q. Public'], year: 2026 },
        'the baseline reads the dictionary as is',
      );
      const { meta, from } = pdfMetadata(layout);
      assert.equal(meta.title, junk.source.title);
      assert.deepEqual(meta.authors, junk.source.authors);
      assert.equal(meta.year, junk.source.year);
      assert.deepEqual([from.title, from.authors, from.year], ['page', 'page', 'page']);

      const good = await compiled(dir, 'good', [
        '\\documentclass{article}',
        '\\pdfinfo{/Title (Learning Rate Warmup Stabilises Residual Networks) /Author (Rafael Oliveira; Ingrid Solberg)}',
        '\\title{Learning Rate Warmup Stabilises Residual Networks}',
        '\\author{Rafael Oliveira \\and Ingrid Solberg}',
        '\\date{2017}',
      ]);
      const confirmed = pdfMetadata(await pdfLayout(new Uint8Array(readFileSync(good.pdf))));
      assert.equal(confirmed.meta.title, good.source.title);
      assert.deepEqual(confirmed.meta.authors, good.source.authors);
      assert.deepEqual([confirmed.from.title, confirmed.from.authors], ['info', 'info'], 'the page confirms what the dictionary says');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test("a PDF's metadata matched against the user's .bib: the user's key and fields", { skip: noPdflatex, timeout: 120_000 }, () =>
  inTempDir(async (dir) => {
    const { pdf, source } = await compiled(dir, 'matched', [
      '\\documentclass{article}',
      '\\title{Citation Intent Classification with Section-Aware Transformers}',
      "\\author{Laura Fern\\'andez-Ruiz \\and Kwame Mensah}",
      '\\date{October 2020}',
    ]);
    const bib = join(dir, 'refs.bib');
    writeFileSync(
      bib,
      '@article{ruiz-intent-2020,\n  title = {Citation Intent Classification with Section-Aware Transformers},\n' +
        "  author = {Fern{\\'a}ndez-Ruiz, Laura and Mensah, Kwame},\n  journal = {Information Processing \\& Management},\n  year = {2020}\n}\n",
    );
    const { index } = await collectBibIndex([bib]);
    const paper = (await readPaperFile(pdf, { bib: index })).papers[0];
    assert.equal(paper.citationKey, 'ruiz-intent-2020', "the user's own key");
    assert.equal(paper.ownKey, true);
    assert.equal(paper.venue, 'Information Processing & Management', 'what the page lacks comes from the entry');
    assert.deepEqual(surnames(paper.authors), surnames(source.authors));
  }),
);
