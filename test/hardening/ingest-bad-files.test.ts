// One bad file never blocks a folder: a NUL byte, random bytes, a PDF renamed .tex, UTF-16 and Latin-1 .tex, an
// unreadable folder and 100,000 nested <div>s among good files. Each is named in the summary (failed or warning,
// with the reason), the good and recoverable ones are indexed, and a rerun is a no-op. Also: a .bib entry that
// matches a full-text paper does not take turns with it on reruns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../support/eval.ts';
import { limitNesting, readArxivHtmlText } from '../../src/core/ingest/html.ts';
import { decodeText, NotTextError } from '../../src/core/ingest/decode.ts';

const good = readFileSync(join(projectRoot, 'samples', 'corpus', 'achterberg2019bm25sentences.tex'), 'utf8');
/** The sample paper under another title and with one extra sentence, so each variant is a paper of its own. */
const variant = (title: string, extra = '') =>
  good.replace(/\\title\{[^}]*\}/, `\\title{${title}}`).replace('\\section', `${extra}\n\n\\section`);

const isRoot = process.getuid?.() === 0;
/** The CLI as an unprivileged user when the tests run as root (root reads a chmod-000 folder). */
function cli(args: string[]) {
  const r = spawnSync(process.execPath, [join(projectRoot, 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    ...(isRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('decodeText: BOMs, UTF-16 without BOM, Windows-1252, NUL bytes, binary', () => {
  assert.deepEqual(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])), { text: 'A', warnings: [] });
  const u16 = Buffer.from('\\documentclass{article} Größe', 'utf16le');
  assert.equal(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), u16])).text, '\\documentclass{article} Größe');
  assert.equal(decodeText(u16).text, '\\documentclass{article} Größe');
  assert.match(decodeText(u16).warnings[0], /UTF-16 LE without a byte order mark/);
  const latin = decodeText(Buffer.from('Caf\xe9 na\xefve \x93quoted\x94', 'latin1'));
  assert.equal(latin.text, 'Café naïve “quoted”');
  assert.match(latin.warnings[0], /not valid UTF-8: read as Windows-1252/);
  assert.deepEqual(decodeText(Buffer.from('a\u0000b')), { text: 'ab', warnings: ['1 NUL byte removed'] });
  assert.throws(() => decodeText(randomBytes(4000), 'LaTeX'), NotTextError);
});

test('100,000 nested <div>s: tags below depth 256 dropped in one scan, the text kept and read', () => {
  const html = `<html><body><article>${'<div>'.repeat(100_000)}<p>Deeply nested text is still read. It has two sentences.</p>${'</div>'.repeat(100_000)}</article></body></html>`;
  const limited = limitNesting(html);
  assert.equal(limited.flattened, true);
  assert.ok(limited.html.split('<div>').length - 1 <= 256);
  assert.equal(limitNesting('<div><p>a<p>b</div>').flattened, false);
  const read = readArxivHtmlText(html, 'deep.html');
  assert.deepEqual(
    read.papers[0].sentences.map((s) => s.text),
    ['Deeply nested text is still read.', 'It has two sentences.'],
  );
  assert.match(read.warnings?.[0].reason ?? '', /nested deeper than 256 levels/);
});

test(
  'a folder with every kind of bad file: each named with its reason, the rest indexed, a rerun a no-op',
  { timeout: 120_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-badfiles-'));
    t.after(() => {
      chmodSync(join(dir, 'papers', 'locked'), 0o755);
      rmSync(dir, { recursive: true, force: true });
    });
    chmodSync(dir, 0o777);
    const papers = join(dir, 'papers');
    mkdirSync(join(papers, 'locked'), { recursive: true });
    writeFileSync(join(papers, 'good.tex'), variant('A Good Paper'));
    copyFileSync(join(projectRoot, 'samples', 'corpus', 'brennan2025genreaware.md'), join(papers, 'good.md'));
    writeFileSync(join(papers, 'nul.tex'), variant('A Paper With a NUL Byte', 'Here is a NUL\u0000 byte in a sentence.'));
    writeFileSync(join(papers, 'random.tex'), randomBytes(5000));
    writeFileSync(
      join(papers, 'utf16.tex'),
      Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        Buffer.from(variant('A Paper in UTF-16', 'Größenordnung is spelled with an eszett.'), 'utf16le'),
      ]),
    );
    writeFileSync(
      join(papers, 'latin1.tex'),
      Buffer.from(variant('A Paper in Latin-1', 'The Überraschungsei surprised the café.'), 'latin1'),
    );
    writeFileSync(
      join(papers, 'deep.html'),
      `<html><head><title>Deep</title></head><body>${'<div>'.repeat(100_000)}<p>Deeply nested text is still read. It has two sentences.</p>${'</div>'.repeat(100_000)}</body></html>`,
    );
    // A real PDF renamed .tex (built with pdflatex when present; CI installs it).
    const pdflatex = spawnSync('pdflatex', ['-version']).status === 0;
    if (pdflatex) {
      spawnSync('pdflatex', [
        '-interaction=batchmode',
        '-output-directory',
        dir,
        join(projectRoot, 'test', 'fixtures', 'ingest', 'onecol.tex'),
      ]);
      copyFileSync(join(dir, 'onecol.pdf'), join(papers, 'pdf-renamed.tex'));
    } else if (process.env.CI === 'true') assert.fail('pdflatex is required under CI');
    writeFileSync(join(papers, 'locked', 'hidden.tex'), variant('A Paper Nobody Can Read'));
    chmodSync(join(papers, 'locked'), 0o000);

    const db = join(dir, 'corpus');
    const r = cli(['ingest', '--db', db, '--json', papers]);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as {
      papers: number;
      sentences: number;
      skipped: number;
      failed: Array<{ file: string; reason: string }>;
      warnings: Array<{ file: string; reason: string }>;
    };
    const reason = (list: typeof s.failed, name: string) => list.find((f) => f.file.endsWith(name))?.reason ?? '';
    assert.match(reason(s.failed, 'random.tex'), /binary data/);
    assert.match(reason(s.failed, 'locked'), /folder not readable \(permission denied\)/);
    assert.equal(s.failed.length, 2, JSON.stringify(s.failed));
    assert.match(reason(s.warnings, 'nul.tex'), /1 NUL byte removed/);
    assert.match(reason(s.warnings, 'utf16.tex'), /UTF-16 LE/);
    assert.match(reason(s.warnings, 'latin1.tex'), /Windows-1252/);
    assert.match(reason(s.warnings, 'deep.html'), /nested deeper than 256 levels/);
    if (pdflatex) assert.match(reason(s.warnings, 'pdf-renamed.tex'), /a PDF named \.tex: read as a PDF/);
    assert.equal(s.papers, pdflatex ? 7 : 6, r.stdout);

    // The decoded text is right: the Latin-1 and UTF-16 words are found as written.
    for (const word of ['Überraschungsei', 'Größenordnung']) {
      const q = cli(['query', '--db', db, '--mode', 'keyword', '--k', '1', word]);
      assert.equal(q.code, 0, q.stderr);
      const [hit] = JSON.parse(q.stdout);
      assert.ok(hit?.sentence.text.includes(word), `${word}: ${q.stdout.slice(0, 300)}`);
      assert.ok(!hit.sentence.text.includes('\uFFFD'));
    }
    const again = cli(['ingest', '--db', db, '--json', papers]);
    const s2 = JSON.parse(again.stdout);
    assert.deepEqual([s2.papers, s2.sentences, s2.failed.length], [0, 0, 2], again.stdout);
  },
);

test(
  'a .bib entry for a paper also read from its full text: a rerun adds nothing, in either file order',
  { timeout: 120_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-bibrerun-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    chmodSync(dir, 0o777);
    for (const bibName of ['refs.bib', 'a-refs.bib']) {
      const papers = join(dir, bibName, 'papers');
      mkdirSync(papers, { recursive: true });
      chmodSync(join(dir, bibName), 0o777);
      writeFileSync(join(papers, 'paper.tex'), variant('Revisiting BM25 Again'));
      writeFileSync(
        join(papers, bibName),
        '@article{x,\n  title = {Revisiting BM25 Again},\n  author = {Achterberg, Hanne},\n  year = {2019},\n  doi = {10.1234/bm25.2019},\n  abstract = {An abstract. Two sentences.}\n}\n',
      );
      const db = join(dir, bibName, 'corpus');
      const runs = [1, 2, 3].map(() => JSON.parse(cli(['ingest', '--db', db, '--json', papers]).stdout));
      assert.equal(runs[0].papers, 1, bibName);
      assert.ok(runs[0].sentences > 2, 'the full text, not the abstract, is kept');
      assert.deepEqual(
        runs.slice(1).map((r) => [r.papers, r.sentences]),
        [
          [0, 0],
          [0, 0],
        ],
        bibName,
      );
    }
  },
);
