// paperFromLayout on hand-made layouts: line-end hyphens (broken words joined, compounds kept: state-of-the-, and
// well-/known because the document writes well-known elsewhere), IEEE-style headings,
// REFERENCES skipped until the next heading, footnotes and captions as their own sentences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paperFromLayout, readPaperFile, type PdfLayout, type PdfLine } from '../../src/core/ingest/index.ts';

/** A one-page PDF written by hand (not by TeX), with the non-embedded standard font Helvetica and an info dict. */
function handMadePdf(lines: Array<[x: number, y: number, size: number, text: string]>): Buffer {
  const content = lines.map(([x, y, size, t]) => `BT /F1 ${size} Tf ${x} ${y} Td (${t.replace(/[()\\]/g, '\\$&')}) Tj ET`).join('\n');
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(content)} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Title (A Hand Made PDF) /Author (Grace Hopper) /CreationDate (D:19990101000000Z) >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n` + offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

test('a PDF not made by TeX, with a non-embedded standard font, reads (no pdflatex needed)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-pdf-'));
  try {
    const file = join(dir, 'hand.pdf');
    writeFileSync(
      file,
      handMadePdf([
        [72, 700, 18, 'A Hand Made PDF'],
        [72, 660, 12, '1 Introduction'],
        [72, 640, 10, 'Standard fonts are not embedded here. The text still reads.'],
        [72, 626, 10, 'A second line of the same para-'],
        [72, 612, 10, 'graph ends the section.'],
        [300, 40, 10, '1'],
      ]),
    );
    const r = await readPaperFile(file);
    assert.deepEqual(r.errors, []);
    const p = r.papers[0];
    assert.equal(p.title, 'A Hand Made PDF');
    assert.deepEqual(p.authors, ['Grace Hopper'], 'authors from the info dict');
    assert.equal(p.year, 1999, 'year from the creation date when the page has none');
    assert.deepEqual(p.sections, [{ title: 'Introduction', number: '1', level: 1 }]);
    assert.deepEqual(
      p.sentences.map((s) => [s.page, s.text]),
      [
        [1, 'Standard fonts are not embedded here.'],
        [1, 'The text still reads.'],
        [1, 'A second line of the same paragraph ends the section.'],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function layout(rows: Array<[text: string, opts?: Partial<PdfLine>]>): PdfLayout {
  let y = 100;
  const lines = rows.map(([text, o]) => {
    y += o?.size && o.size > 11 ? 22 : 12;
    return { page: 1, text, parts: [text], x0: 72, x1: text.length > 40 ? 300 : 72 + text.length * 5, y, size: 10, col: -1, ...o };
  });
  return { pages: 1, lines, pageHeights: [792], info: {}, rotated: [] };
}

test('line-end hyphens: broken words are joined, compounds keep their hyphen', () => {
  const l = layout([
    ['I. INTRODUCTION', { size: 10 }],
    ['We learn a repre-'],
    ['sentation of the text that is state-of-the-'],
    ['art and well-'],
    ['known. A line that ends with a well-known dash - '],
    ['continues here. Self-'],
    ['Attention is capitalised.'],
    ['II. RELATED WORK'],
    ['Earlier systems differ.'],
  ]);
  // Headings need space above them: shift heading rows down.
  l.lines[0].y -= 30;
  l.lines[7].y += 10;
  for (let i = 8; i < l.lines.length; i++) l.lines[i].y += 10;
  const p = paperFromLayout(l, null, 'h').papers[0];
  assert.deepEqual(
    p.sections.map((s) => [s.number, s.title]),
    [
      ['I', 'INTRODUCTION'],
      ['II', 'RELATED WORK'],
    ],
  );
  assert.deepEqual(
    p.sentences.map((s) => s.text),
    [
      'We learn a representation of the text that is state-of-the-art and well-known.',
      'A line that ends with a well-known dash - continues here.',
      'Self- Attention is capitalised.',
      'Earlier systems differ.',
    ],
  );
});

test('REFERENCES is skipped up to the next heading; footnotes and captions are their own sentences', () => {
  const l = layout([
    ['A Paper Title', { size: 17 }],
    ['1 Introduction', { size: 12 }],
    ['Body text starts here and goes on.'],
    ['Figure 2: A caption of two'],
    ['lines that ends here.'],
    ['More body text.', { y: 0 }],
    ['References', { size: 12 }],
    ['[1] A. Author. A title. 2020.'],
    ['[2] B. Author. Another title. 2021.'],
    ['A Proofs', { size: 12 }],
    ['The proof is short.'],
    ['1 A footnote at the foot of the page.', { size: 8 }],
  ]);
  l.lines[5].y = l.lines[4].y + 40; // a gap after the caption
  for (let i = 6; i < l.lines.length; i++) l.lines[i].y += 40;
  l.lines[11].y += 60;
  const p = paperFromLayout(l, null, 'h').papers[0];
  assert.equal(p.title, 'A Paper Title');
  assert.deepEqual(
    p.sections.map((s) => [s.number, s.title]),
    [
      ['1', 'Introduction'],
      ['A', 'Proofs'],
    ],
  );
  assert.deepEqual(
    p.sentences.map((s) => [p.sections[s.sectionIndex].title, s.text]),
    [
      ['Introduction', 'Body text starts here and goes on.'],
      ['Introduction', 'More body text.'],
      ['Introduction', 'A caption of two lines that ends here.'],
      ['Proofs', 'The proof is short.'],
      ['Proofs', 'A footnote at the foot of the page.'],
    ],
  );
});

test('a PDF without a text layer is reported', () => {
  const r = paperFromLayout({ pages: 2, lines: [], pageHeights: [792, 792], info: {}, rotated: [] }, 'scan.pdf', 'h');
  assert.deepEqual(r.papers, []);
  assert.match(r.errors[0].reason, /no text layer/);
});
