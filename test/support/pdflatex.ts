// Whether tests that compile PDF fixtures can run: pdflatex present, or CI (where its absence is a failure, not a skip:
// .ci/run installs texlive-latex-base).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Whether `command args` runs (the tool is installed). */
function runs(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A node:test `skip` value: false where the PDF tests must run, else the reason. */
export const noPdflatex: false | string =
  runs('pdflatex', ['--version']) || process.env.CI
    ? false
    : 'pdflatex is not installed (apt-get install -y --no-install-recommends texlive-latex-base)';

/** Runs pdflatex on `tex` `runs` times (two settle references and the .aux), writing into `dir`. */
function pdflatex(dir: string, tex: string, runs: number): void {
  for (let i = 0; i < runs; i++)
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', '-output-directory', dir, tex], {
      cwd: dir,
      stdio: 'ignore',
      timeout: 60_000,
    });
}

/** Compiles test/fixtures/ingest/NAME.tex twice (so references and the .aux are complete) into `dir`; the PDF's path. */
export function compileFixture(name: string, dir: string): string {
  pdflatex(dir, join(__dirname, '..', 'fixtures', 'ingest', `${name}.tex`), 2);
  return join(dir, `${name}.pdf`);
}

/**
 * For the VS Code suites, which index a real typeset PDF: compiles `source` (a .tex path, or a document's lines
 * written to `dir/<name>.tex` and removed after, so only the PDF is indexed) into `dir`. False when pdflatex is
 * missing outside CI (the caller skips); under CI a failure throws.
 */
export function compilePdf(dir: string, source: string | { name: string; lines: readonly string[] }, runs = 1): boolean {
  mkdirSync(dir, { recursive: true });
  const tex = typeof source === 'string' ? source : join(dir, `${source.name}.tex`);
  if (typeof source !== 'string') writeFileSync(tex, [...source.lines, ''].join('\n'));
  try {
    pdflatex(dir, tex, runs);
    return true;
  } catch (err) {
    if (process.env.CI) throw err;
    return false;
  } finally {
    if (typeof source !== 'string') rmSync(tex, { force: true });
  }
}

/**
 * A PDF whose metadata a reader cannot find: its title is set at body size (no layout-readable title), no \title, no
 * .bib. Authors and a date are on the page, so a model's proposal can be checked against them. Compile with compilePdf.
 */
export const UNTITLED_PAPER = {
  title: 'Sparse Retrieval for Long Scholarly Queries',
  source: {
    name: 'untitled',
    lines: [
      '\\documentclass{article}',
      '\\pagestyle{empty}',
      '\\begin{document}',
      '\\noindent Sparse Retrieval for Long Scholarly Queries\\\\',
      'Jane Smith and Ravi Kumar\\\\',
      'March 2019',
      '',
      '\\section*{Introduction}',
      'Sparse lexical retrieval raises recall on long queries by eleven points over dense retrieval on our benchmark.',
      'Short queries show no difference between the two methods in any of our runs.',
      '\\end{document}',
    ],
  },
} as const;

/** The same for tests that also read a PDF with poppler's pdftotext (an independent reading of its lines). */
export const noPdftotext: false | string =
  noPdflatex ||
  (runs('pdftotext', ['-v']) || process.env.CI
    ? false
    : 'pdftotext is not installed (apt-get install -y --no-install-recommends poppler-utils)');
