// Whether tests that compile PDF fixtures can run: pdflatex present, or CI (where its absence is a failure, not a skip:
// .ci/run installs texlive-latex-base).
import { execFileSync } from 'node:child_process';

function hasPdflatex(): boolean {
  try {
    execFileSync('pdflatex', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A node:test `skip` value: false where the PDF tests must run, else the reason. */
export const noPdflatex: false | string =
  hasPdflatex() || process.env.CI ? false : 'pdflatex is not installed (apt-get install -y --no-install-recommends texlive-latex-base)';
