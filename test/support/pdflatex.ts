// Whether tests that compile PDF fixtures can run: pdflatex present, or CI (where its absence is a failure, not a skip:
// .ci/run installs texlive-latex-base).
import { execFileSync } from 'node:child_process';
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

/** Compiles test/fixtures/ingest/NAME.tex twice (so references and the .aux are complete) into `dir`; the PDF's path. */
export function compileFixture(name: string, dir: string): string {
  const tex = join(__dirname, '..', 'fixtures', 'ingest', `${name}.tex`);
  for (let i = 0; i < 2; i++)
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', '-output-directory', dir, tex], {
      cwd: dir,
      stdio: 'ignore',
      timeout: 60_000,
    });
  return join(dir, `${name}.pdf`);
}

/** The same for tests that also read a PDF with poppler's pdftotext (an independent reading of its lines). */
export const noPdftotext: false | string =
  noPdflatex ||
  (runs('pdftotext', ['-v']) || process.env.CI
    ? false
    : 'pdftotext is not installed (apt-get install -y --no-install-recommends poppler-utils)');
