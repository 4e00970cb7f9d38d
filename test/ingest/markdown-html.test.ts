// Markdown (front matter + headings) and arXiv's LaTeXML HTML (a fixture page in its shape), and readPaperFile's
// dispatch by extension and content.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPaperFile, readMarkdownText, sniffKind } from '../../src/core/ingest/index.ts';
import { BibIndex } from '../../src/core/bib/index.ts';

const fixtures = join(__dirname, '..', 'fixtures', 'ingest');

test('arXiv HTML: metadata, sections with numbers, math as alttext, citations and bibliography removed', async () => {
  const r = await readPaperFile(join(fixtures, 'arxiv-2503.12436.html'));
  assert.deepEqual(r.errors, []);
  const p = r.papers[0];
  assert.equal(p.id, 'arxiv:2503.12436');
  assert.equal(p.title, 'Sparse Attention for Long Scientific Documents');
  assert.deepEqual(p.authors, ['Ada Lovelace', 'Charles Babbage']);
  assert.equal(p.year, 2025);
  assert.equal(
    p.abstract,
    'Long documents strain the memory of attention models. We propose a sparse pattern that keeps cost linear in the length n of the input.',
  );
  assert.deepEqual(
    p.sections.map((s) => [s.number, s.title, s.level]),
    [
      [null, 'Abstract', 1],
      ['1', 'Introduction', 1],
      ['2', 'Method', 1],
      ['2.1', 'Window Size', 2],
      ['3', 'Conclusion', 1],
      [null, 'Acknowledgements', 1],
      ['A', 'Proofs', 1],
    ],
  );
  const texts = p.sentences.map((s) => s.text);
  assert.ok(texts.includes('Transformers have become the default architecture for text.'), 'citation removed');
  assert.ok(texts.includes('Their cost grows with O(n^{2}) in the sequence length.'), 'inline math as alttext');
  assert.ok(texts.includes('Quadratic in time and memory alike.'), 'footnote as its own sentence');
  assert.ok(texts.includes('Memory use of dense and sparse attention as the input grows.'), 'figure caption without its label');
  assert.ok(texts.includes('Window widths we compared.'), 'table caption');
  assert.ok(
    texts.includes('Each token attends to a window of width w and to a few global tokens, so that is the total cost of one layer.'),
    'display math dropped',
  );
  assert.ok(texts.includes('We make three contributions, e.g. a new pattern, i.e. one that is sparse.'));
  assert.ok(texts.includes('We thank the reviewers for their careful reading.'));
  assert.ok(!texts.some((t) => /Vaswani|Longformer|LaTeXML|not prose|256/.test(t)), 'no bibliography, footer, script or table cells');
  assert.ok(p.sentences.every((s) => s.page === null));
});

test('Markdown: YAML front matter as metadata, headings as sections', () => {
  const md = [
    '---',
    'title: "Notes on Sparse Retrieval"',
    'author:',
    '  - name: Ann Smith',
    '  - Bob Jones',
    'date: 2024-05-01',
    'doi: 10.5555/Notes.1',
    'journal: Journal of Notes',
    'abstract: |',
    '  We write notes. They are short.',
    '---',
    '',
    '# 1 Introduction',
    '',
    'Retrieval needs an index. It is built once.',
    '',
    '## 1.1 Setup',
    '',
    'We use *two* machines, e.g. laptops.',
    '',
    '```',
    'code is not prose.',
    '```',
    '',
    '# References',
    '',
    '- Smith, A. A reference that is not prose. 2020.',
    '',
    '# Appendix',
    '',
    'Extra material.',
  ].join('\n');
  const r = readMarkdownText(md, 'notes.md');
  assert.deepEqual(r.errors, []);
  const p = r.papers[0];
  assert.equal(p.id, 'doi:10.5555/notes.1');
  assert.equal(p.title, 'Notes on Sparse Retrieval');
  assert.deepEqual(p.authors, ['Ann Smith', 'Bob Jones']);
  assert.equal(p.year, 2024);
  assert.equal(p.venue, 'Journal of Notes');
  assert.equal(p.abstract, 'We write notes. They are short.');
  assert.deepEqual(
    p.sections.map((s) => [s.number, s.title, s.level]),
    [
      [null, 'Abstract', 1],
      ['1', 'Introduction', 1],
      ['1.1', 'Setup', 2],
      [null, 'Appendix', 1],
    ],
  );
  assert.deepEqual(
    p.sentences.map((s) => s.text),
    [
      'We write notes.',
      'They are short.',
      'Retrieval needs an index.',
      'It is built once.',
      'We use two machines, e.g. laptops.',
      'Extra material.',
    ],
  );
  assert.match(p.citationKey ?? '', /^smith2024notes$/);
});

test('Markdown: bad front matter is reported, the text is still read; a .bib entry fills metadata', async () => {
  const r = readMarkdownText('---\ntitle: [unclosed\n---\n# Intro\n\nText here.\n', 'bad.md');
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0].reason, /front matter/);
  assert.deepEqual(
    r.papers[0].sentences.map((s) => s.text),
    ['Text here.'],
  );
  const { index } = await BibIndex.fromBibtex('@article{k1, title={A Paper In Markdown}, author={Doe, Jane}, year=2010, doi={10.4242/md}}');
  const p = readMarkdownText('# A Paper In Markdown\n\nBody text.\n', 'p.md', { bib: index }).papers[0];
  assert.equal(p.id, 'doi:10.4242/md');
  assert.equal(p.citationKey, 'k1');
  assert.deepEqual(p.authors, ['Jane Doe']);
});

test('readPaperFile: dispatch by content and extension; unknown files are errors, never throws', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-ingest-'));
  try {
    assert.equal(sniffKind('x.txt', Buffer.from('%PDF-1.7\n')), 'pdf');
    assert.equal(sniffKind('page', Buffer.from('<!DOCTYPE html><html>')), 'html');
    assert.equal(sniffKind('paper', Buffer.from('\\documentclass{article}')), 'latex');
    assert.equal(sniffKind('refs', Buffer.from('@article{x, title={y}}')), 'bibtex');
    assert.equal(sniffKind('a.md', Buffer.from('# Hi')), 'markdown');
    writeFileSync(join(dir, 'x.docx'), 'PK\u0003\u0004');
    const r = await readPaperFile(join(dir, 'x.docx'));
    assert.deepEqual(r, { papers: [], errors: [{ file: join(dir, 'x.docx'), reason: 'unsupported file type' }] });
    const missing = await readPaperFile(join(dir, 'nope.pdf'));
    assert.equal(missing.papers.length, 0);
    assert.match(missing.errors[0].reason, /ENOENT/);
    writeFileSync(join(dir, 'refs.bib'), '@article{a, title={T}, abstract={One. Two.}}');
    const bib = await readPaperFile(join(dir, 'refs.bib'));
    assert.equal(bib.papers.length, 1);
    assert.equal(bib.papers[0].sentences.length, 2);
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    // A stopped read ends as every stopped operation does (core/abort.ts): an AbortError, the reason as its cause.
    await assert.rejects(
      readPaperFile(join(dir, 'refs.bib'), { signal: ac.signal }),
      (err: Error) => err.name === 'AbortError' && (err.cause as Error)?.message === 'stop',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
