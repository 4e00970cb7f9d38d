// The line range a PDF sentence is cited by ("p. 3, ll. 12–14"), checked against an independent reading of the same
// compiled fixtures: poppler's `pdftotext -bbox-layout` (its own text extraction and word boxes, none of PDF.js or
// pdf-layout.ts). From its words this test builds the page's rows and counts them the way the store documents
// (SentenceLocation, src/core/store/types.ts): per page, in reading order (a two-column page's full-width top, left
// column, right column), without the running header, page numbers or rows of display mathematics (rows without a
// word of four letters: the fixtures' equations and figures hold none). Then every "Observation N" sentence of the
// fixture source is found in that text, and its first and last characters' rows are the expected lines.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPaperFile, type ParsedPaper } from '../../src/core/ingest/index.ts';
import { compileFixture, noPdftotext } from '../support/pdflatex.ts';

const fixtures = join(__dirname, '..', 'fixtures', 'ingest');
const skip = noPdftotext;
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-pdf-lines-'));
const papers: Record<string, ParsedPaper> = {};
const popplerXml: Record<string, string> = {};

before(async () => {
  if (skip) return;
  for (const name of ['onecol', 'twocol']) {
    const pdf = compileFixture(name, dir);
    execFileSync('pdftotext', ['-bbox-layout', pdf, join(dir, `${name}.html`)], { stdio: 'ignore', timeout: 60_000 });
    popplerXml[name] = readFileSync(join(dir, `${name}.html`), 'utf8');
    papers[name] = (await readPaperFile(pdf)).papers[0];
  }
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
});

interface Row {
  page: number;
  x0: number;
  x1: number;
  /** The bottom of the row's words (poppler's yMax): rows on one baseline share it to within a point or two. */
  y: number;
  words: string[];
}

const num = (tag: string, attr: string) => Number(new RegExp(`${attr}="([\\d.]+)"`).exec(tag)![1]);

/** poppler's words, in rows (one baseline, one column), counted per page in reading order. */
function popplerRows(xml: string, twoColumns: boolean): Row[][] {
  const pages: Row[][] = [];
  for (const pm of xml.matchAll(/<page width="([\d.]+)" height="([\d.]+)">([\s\S]*?)<\/page>/g)) {
    const [width, height] = [Number(pm[1]), Number(pm[2])];
    const page = pages.length + 1;
    const words = [...pm[3].matchAll(/<word ([^>]*)>([^<]*)<\/word>/g)].map((w) => ({
      x0: num(w[1], 'xMin'),
      x1: num(w[1], 'xMax'),
      y: num(w[1], 'yMax'),
      text: decode(w[2]).normalize('NFKC'),
    }));
    const starts = new Map<number, number>();
    for (const lm of pm[3].matchAll(/<line ([^>]*)>/g)) {
      const x = Math.round(num(lm[1], 'xMin'));
      if (x > width * 0.45) starts.set(x, (starts.get(x) ?? 0) + 1);
    }
    const rightMargin = [...starts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? width;
    // Physical rows: words on one baseline (a footnote's smaller type beside body text still shares it to ~1 pt).
    const physical: (typeof words)[] = [];
    for (const w of [...words].sort((a, b) => a.y - b.y || a.x0 - b.x0)) {
      const row = physical.find((r) => Math.abs(r[0].y - w.y) < 2.5);
      if (row) row.push(w);
      else physical.push([w]);
    }
    // The right column's left margin: where most of poppler's lines in the right half start. A row has a gutter where a
    // word starts there after a gap wider than a word space; the columns start at the first row that holds a line of
    // text as wide as a column (not the title, nor authors side by side).
    const gutterAt = (r: typeof words) => {
      const s = [...r].sort((a, b) => a.x0 - b.x0);
      for (let i = 1; i < s.length; i++)
        if (s[i - 1].x1 < rightMargin - 1 && s[i].x0 >= rightMargin - 1 && s[i].x0 - s[i - 1].x1 > 8) return i;
      return -1;
    };
    const columnLine = (ws: typeof words) =>
      ws.length > 0 && ws[ws.length - 1].x1 - ws[0].x0 > width * 0.3 && (ws[ws.length - 1].x1 < width * 0.55 || ws[0].x0 > width * 0.45);
    const columnTop = twoColumns
      ? Math.min(
          ...physical
            .filter((r) => {
              const s = [...r].sort((a, b) => a.x0 - b.x0);
              const g = gutterAt(s);
              return g > 0 ? columnLine(s.slice(0, g)) || columnLine(s.slice(g)) : columnLine(s);
            })
            .map((r) => r[0].y),
        )
      : Infinity;
    const rows: (Row & { col: number })[] = [];
    for (const r of physical) {
      const s = [...r].sort((a, b) => a.x0 - b.x0);
      const make = (ws: typeof words, col: number) =>
        rows.push({ page, col, x0: ws[0].x0, x1: ws[ws.length - 1].x1, y: ws[0].y, words: ws.map((w) => w.text) });
      const g = gutterAt(s);
      if (!twoColumns || r[0].y < columnTop - 3) make(s, -1);
      else if (g > 0) {
        make(s.slice(0, g), 0);
        make(s.slice(g), 1);
      } else make(s, s[s.length - 1].x1 < width * 0.55 ? 0 : s[0].x0 > width * 0.45 ? 1 : -1);
    }
    // A word grouped with the other column's row (baselines a point or two apart) rejoins its own column's row.
    for (let i = rows.length - 1; i >= 0; i--) {
      const same = rows.find((r, j) => j < i && r.col === rows[i].col && Math.abs(r.y - rows[i].y) < 2.5);
      if (!same) continue;
      const both = [same, rows[i]].sort((a, b) => a.x0 - b.x0);
      Object.assign(same, { x0: both[0].x0, x1: Math.max(same.x1, rows[i].x1), words: both.flatMap((r) => r.words) });
      rows.splice(i, 1);
    }
    const counted = rows.filter((r) => {
      const text = r.words.join(' ');
      if (/Running Header/.test(text)) return false;
      if (/^\d+$/.test(text) && r.y > height * 0.85) return false;
      return r.words.some((w) => /[A-Za-z]{4,}|^\d{4}$/.test(w));
    });
    // Reading order: full-width rows above the columns, the left column, the right column, then the other full-width rows.
    const order = (r: Row & { col: number }) => (r.col === -1 ? (r.y < columnTop ? 0 : 3) : r.col + 1);
    pages.push(counted.sort((a, b) => order(a) - order(b) || a.y - b.y));
  }
  return pages;
}

function decode(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

/** The pages' rows as one text (hyphenation at row ends joined), with the page and line of every character. */
function located(pages: Row[][]): { text: string; at: (offset: number) => { page: number; line: number } } {
  let text = '';
  const marks: Array<[number, number, number]> = [];
  pages.forEach((rows, p) => {
    rows.forEach((r, i) => {
      const row = r.words.join(' ');
      // Captions and footnotes (the fixtures' say "footnote") are counted lines but not part of the running text they
      // interrupt.
      if (/^(Figure|Table) \d+:|footnote/.test(row)) return;
      if (/[a-z]-$/.test(text) && /^[a-z]/.test(row)) text = text.slice(0, -1);
      else if (text) text += ' ';
      marks.push([text.length, p + 1, i + 1]);
      text += row;
    });
  });
  return {
    text,
    at: (offset) => {
      let m = marks[0];
      for (const x of marks) if (x[0] <= offset) m = x;
      return { page: m[1], line: m[2] };
    },
  };
}

for (const [name, twoColumns] of [
  ['onecol', false],
  ['twocol', true],
] as const) {
  test(`${name}: every Observation sentence's page and lines agree with poppler's reading of the page`, { skip }, () => {
    const { text, at } = located(popplerRows(popplerXml[name], twoColumns));
    const tex = readFileSync(join(fixtures, `${name}.tex`), 'utf8');
    const byNumber = new Map(papers[name].sentences.map((s) => [/^Observation (\d+) /.exec(s.text)?.[1], s]));
    let checked = 0;
    let overPageBreak = 0;
    let from = 0;
    for (const m of tex.matchAll(/Observation (\d+) notes that [^.]*\./g)) {
      const start = text.indexOf(m[0], from);
      assert.ok(start >= 0, `poppler's text has ${JSON.stringify(m[0])} after ${JSON.stringify(text.slice(from, from + 300))}`);
      from = start + m[0].length;
      const first = at(start);
      const last = at(start + m[0].length - 1);
      const s = byNumber.get(m[1]);
      assert.ok(s, `sentence ${m[1]} ingested`);
      assert.deepEqual(
        { page: s.page, lineStart: s.lineStart, pageEnd: s.pageEnd, lineEnd: s.lineEnd },
        { page: first.page, lineStart: first.line, pageEnd: last.page, lineEnd: last.line },
        `Observation ${m[1]}`,
      );
      if (first.page !== last.page) overPageBreak++;
      checked++;
    }
    assert.ok(checked > 40, `${checked} sentences checked`);
    // A sentence that runs over a page break keeps its first page and lines and records the page it ends on.
    assert.ok(overPageBreak >= 1, 'the fixture has a sentence over a page break');
  });
}

test('captions and footnotes are counted lines too; sources without pages have no lines', { skip }, () => {
  const p = papers.onecol;
  const caption = p.sentences.find((s) => s.text.startsWith('A caption that describes'))!;
  const footnote = p.sentences.find((s) => s.text.startsWith('This footnote explains'))!;
  for (const s of [caption, footnote]) {
    assert.ok(s.lineStart && s.lineEnd && s.lineEnd >= s.lineStart, JSON.stringify(s));
    assert.equal(s.pageEnd, s.page);
  }
  // Lines number a page from 1, with no gaps between a page's sentences (every sentence line is counted once).
  for (const s of p.sentences) assert.ok((s.lineStart ?? 0) >= 1 && (s.lineEnd ?? 0) >= 1);
});
