// PDFs compiled at test time from LaTeX sources written for the tests (test/fixtures/ingest/*.tex) with Debian's TeX:
// a one-column and a two-column article with headings, footnotes, a figure, an equation and a bibliography.
// Every prose sentence of the fixtures reads "Observation N notes that … in considerable detail." with N rising in
// source order, which is the right reading order: the tests check it, and everything else, against that.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pdfLayout, readPaperFile, type ParsedPaper } from '../../src/core/ingest/index.ts';
import { BibIndex } from '../../src/core/bib/index.ts';
import { noPdflatex } from '../support/pdflatex.ts';

const fixtures = join(__dirname, '..', 'fixtures', 'ingest');

const skip = noPdflatex;

const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-pdf-'));
const pdfs: Record<string, string> = {};
const papers: Record<string, ParsedPaper> = {};

before(async () => {
  if (skip) return;
  for (const name of ['onecol', 'twocol']) {
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', '-output-directory', dir, join(fixtures, `${name}.tex`)], {
      cwd: dir,
      stdio: 'ignore',
      timeout: 60_000,
    });
    pdfs[name] = join(dir, `${name}.pdf`);
    const r = await readPaperFile(pdfs[name]);
    assert.deepEqual(r.errors, []);
    assert.equal(r.papers.length, 1);
    papers[name] = r.papers[0];
  }
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
});

const OBS =
  /^Observation (\d+) notes that (?:the committee|our analysis|the archive|each reviewer|the corpus|this procedure|the survey|the estimator|the catalogue|the benchmark) \w+ the ([a-z]+) of the ([a-z]+) in considerable detail\.$/;

/** The Observation sentences of a fixture source, by number. */
function sourceObservations(name: string): Map<number, string> {
  const tex = readFileSync(join(fixtures, `${name}.tex`), 'utf8');
  const out = new Map<number, string>();
  for (const m of tex.matchAll(/Observation (\d+) notes that [^.]*\./g)) out.set(Number(m[1]), m[0]);
  return out;
}

for (const name of ['onecol', 'twocol']) {
  test(`${name}: every sentence of the source, complete, once, in reading order`, { skip }, () => {
    const p = papers[name];
    const expected = sourceObservations(name);
    const seen: number[] = [];
    for (const s of p.sentences) {
      const m = /^Observation (\d+)/.exec(s.text);
      if (!m) continue;
      assert.match(s.text, OBS, `a garbled sentence: ${JSON.stringify(s.text)}`);
      assert.equal(s.text, expected.get(Number(m[1])), 'sentence text differs from the source');
      seen.push(Number(m[1]));
    }
    assert.deepEqual(seen, [...expected.keys()], 'all observations, each once, in source (= reading) order');
  });

  test(`${name}: section titles and numbers in order, no references, no running header or page numbers`, { skip }, () => {
    const p = papers[name];
    const want =
      name === 'onecol'
        ? [
            ['Abstract', null],
            ['Introduction', '1'],
            ['Related Work', '2'],
            ['Sparse Models', '2.1'],
            ['Method', '3'],
            ['Setup Details', '3.1'],
            ['Acknowledgements', null],
          ]
        : [
            ['Abstract', null],
            ['Introduction', '1'],
            ['Background', '2'],
            ['Earlier Systems', '2.1'],
            ['Experiments', '3'],
            ['Results', '3.1'],
            ['Conclusion', '4'],
            ['Acknowledgements', null],
          ];
    assert.deepEqual(
      p.sections.map((s) => [s.title, s.number]),
      want,
    );
    assert.deepEqual(
      p.sections.map((s) => s.level),
      want.map(([, n]) => (n && n.includes('.') ? 2 : 1)),
    );
    for (const s of p.sentences) {
      assert.doesNotMatch(s.text, /bibliography entry|reference item|Zelda|Wobble/, 'a reference entry was ingested');
      assert.doesNotMatch(s.text, /Running Header/, 'the running header was ingested');
      assert.doesNotMatch(s.text, /^\d+$|\s\d+\s*$/, `a page number stuck to ${JSON.stringify(s.text)}`);
    }
    // Sentence indexes restart per section; global indexes run through.
    p.sentences.forEach((s, i) => {
      assert.equal(s.globalIndex, i);
      const before = p.sentences.slice(0, i).filter((t) => t.sectionIndex === s.sectionIndex).length;
      assert.equal(s.sentenceIndex, before);
    });
  });

  test(`${name}: footnote and caption are their own sentences, the equation is not prose`, { skip }, () => {
    const texts = papers[name].sentences.map((s) => s.text);
    const footnote =
      name === 'onecol' ? 'This footnote explains the first observation in passing.' : 'A footnote that belongs to the introduction.';
    const caption = name === 'onecol' ? 'A caption that describes the rectangle shown above.' : 'A figure caption in the narrow column.';
    if (name === 'twocol')
      assert.ok(texts.includes('A wide figure that spans both columns of the page.'), 'caption of a figure* across both columns');
    assert.ok(texts.includes(footnote), 'footnote sentence');
    assert.ok(texts.includes(caption), 'caption sentence (without its "Figure 1:" label)');
    assert.ok(!texts.some((t) => /=/.test(t)), 'equation text in prose');
  });

  test(`${name}: hyphenation at line ends is joined`, { skip }, async () => {
    // The raw layout has words broken at line ends …
    const layout = await pdfLayout(new Uint8Array(readFileSync(pdfs[name])));
    const broken = layout.lines.filter((l) => /[a-z]-$/.test(l.text));
    assert.ok(broken.length >= 5, `expected hyphenated line ends in the layout, found ${broken.length}`);
    // … and no sentence keeps a fragment: every word is a word of the source.
    const words = new Set(
      readFileSync(join(fixtures, `${name}.tex`), 'utf8')
        .toLowerCase()
        .match(/[a-z-]+/g),
    );
    for (const s of papers[name].sentences) {
      for (const w of s.text.toLowerCase().match(/[a-z-]+/g) ?? [])
        assert.ok(words.has(w), `${JSON.stringify(w)} is not a word of the source (in ${JSON.stringify(s.text)})`);
    }
  });

  test(`${name}: page numbers per sentence`, { skip }, async () => {
    const p = papers[name];
    const layout = await pdfLayout(new Uint8Array(readFileSync(pdfs[name])));
    // The page of each observation: the page whose layout holds the start of the sentence.
    for (const s of p.sentences) {
      const m = /^Observation (\d+) notes/.exec(s.text);
      if (!m) continue;
      // The sentence starts on its page (when a word is broken across columns, its end is there).
      const onPage = layout.lines
        .filter((l) => l.page === s.page)
        .map((l) => l.text)
        .join('')
        .replace(/[\s-]+/g, '');
      assert.ok(new RegExp(`[a-z]${m[1]}(?:[a-z]|$)`).test(onPage), `observation ${m[1]} is not on page ${s.page}`);
    }
    const pages = new Set(p.sentences.map((s) => s.page));
    assert.ok(pages.size >= 3, `sentences on ${pages.size} pages`);
    assert.ok([...pages].every((n) => Number.isInteger(n) && n! >= 1 && n! <= layout.pages));
    // Monotonic: reading order never goes back a page.
    const bodyPages = p.sentences.filter((s) => OBS.test(s.text)).map((s) => s.page!);
    assert.deepEqual(
      bodyPages,
      [...bodyPages].sort((a, b) => a - b),
    );
  });
}

test('twocol: on every page, the left column is read before the right one', { skip }, async () => {
  const layout = await pdfLayout(new Uint8Array(readFileSync(pdfs.twocol)));
  // Per page, the runs of column lines between full-width lines (title block, wide figures): in each run the left
  // column's lines all come before the right column's.
  const runs = new Map<string, number[]>();
  let run = 0;
  layout.lines.forEach((l, i) => {
    if (l.col === -1 || (i > 0 && layout.lines[i - 1].page !== l.page)) run++;
    if (l.col === -1) return;
    const k = `${l.page}:${run}`;
    if (!runs.has(k)) runs.set(k, []);
    runs.get(k)!.push(l.col);
  });
  let twoColumnRuns = 0;
  for (const [k, cols] of runs) {
    const lastLeft = cols.lastIndexOf(0);
    const firstRight = cols.indexOf(1);
    if (lastLeft < 0 || firstRight < 0) continue;
    if (cols.length > 20) twoColumnRuns++;
    assert.ok(lastLeft < firstRight, `page ${k.split(':')[0]}: a right-column line comes before a left-column one`);
  }
  assert.ok(twoColumnRuns >= 4, `two long columns found on ${twoColumnRuns} pages`);
  // The title block is full width and read first.
  assert.equal(layout.lines[0].col, -1);
  assert.equal(layout.lines[0].text, 'A Twocol Study of Reading Order');
});

test('metadata from the first page, and from a matching .bib entry', { skip }, async () => {
  assert.equal(papers.onecol.title, 'A Onecol Study of Sentence Extraction');
  assert.deepEqual(papers.onecol.authors, ['Ann B. Smith', 'Bob Jones'], 'authors from the info dict');
  assert.equal(papers.onecol.year, 2021);
  assert.equal(papers.twocol.title, 'A Twocol Study of Reading Order');
  assert.deepEqual(papers.twocol.authors, ['Carla Diaz', 'Dmitri Petrov']);
  assert.equal(papers.twocol.year, 2022);
  assert.match(papers.twocol.abstract ?? '', /^Observation 1 notes that/);
  assert.match(papers.twocol.id, /^sha256:[0-9a-f]{64}$/);
  // A .bib entry with the same title supplies DOI, venue and key.
  const { index } = await BibIndex.fromBibtex(
    '@article{diaz2022reading, title={A Twocol Study of Reading Order}, author={Diaz, Carla and Petrov, Dmitri}, journal={Journal of Layout}, year={2022}, doi={10.1234/JOL.2022.7}}',
  );
  const r = await readPaperFile(pdfs.twocol, { bib: index });
  const p = r.papers[0];
  assert.equal(p.id, 'doi:10.1234/jol.2022.7');
  assert.equal(p.doi, '10.1234/jol.2022.7');
  assert.equal(p.venue, 'Journal of Layout');
  assert.equal(p.citationKey, 'diaz2022reading');
  assert.match(p.bibtex ?? '', /^@article\{diaz2022reading,/);
  // Re-reading the same bytes gives the same id and content hash.
  const again = (await readPaperFile(pdfs.twocol)).papers[0];
  assert.equal(again.id, papers.twocol.id);
  assert.equal(again.contentHash, papers.twocol.contentHash);
});

test('a damaged PDF is an error, not a crash', async () => {
  const bad = join(dir, 'broken.pdf');
  writeFileSync(bad, '%PDF-1.5\nthis is not really a pdf\n');
  const r = await readPaperFile(bad);
  assert.equal(r.papers.length, 0);
  assert.equal(r.errors.length, 1);
  assert.equal(r.errors[0].file, bad);
});
