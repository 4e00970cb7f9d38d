// A LaTeX project whose .bib parses with ~600 warnings and no error, as a real project's often does: titles
// using a macro defined in the paper's preamble (\law), journals named by @string macros defined in another
// .bib (IEEE_J_PROC, AIJ). BibTeX itself keeps every entry; so must indexing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const WARNING_ENTRIES = 600;

/** Writes main.tex + refs.bib into `dir`; returns the number of warnings the .bib should give. */
export function writeWarningProject(dir: string): { warnings: number; entries: number } {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'main.tex'),
    [
      '\\documentclass{article}',
      '\\newcommand{\\law}[1]{#1}',
      '\\title{Power Laws in Citation Networks}',
      '\\begin{document}',
      '\\maketitle',
      '\\section{Introduction}',
      'Citation counts follow heavy-tailed distributions in most fields~\\cite{e0}.',
      'We revisit the evidence with a larger sample of journals and a careful fit of the tail.',
      'The fitted exponents differ between fields by more than their confidence intervals.',
      '\\bibliography{refs}',
      '\\end{document}',
      '',
    ].join('\n'),
  );
  const entries: string[] = [];
  for (let i = 0; i < WARNING_ENTRIES; i++) {
    const journal = i % 3 === 0 ? 'IEEE_J_PROC' : i % 3 === 1 ? 'AIJ' : '{Physical Review E}';
    entries.push(
      `@article{e${i},\n  title = {The \\law{power} law of topic ${i}},\n  author = {Author, A${i} and Writer, B.},\n  journal = ${journal},\n  year = ${1990 + (i % 30)}\n}\n`,
    );
  }
  writeFileSync(join(dir, 'refs.bib'), entries.join('\n'));
  // The unknown macro: one warning for the file (naming \law ×600); two entries in three: one undefined @string macro.
  const macros = Math.ceil(WARNING_ENTRIES / 3) + Math.ceil((WARNING_ENTRIES - 1) / 3);
  return { warnings: 1 + macros, entries: WARNING_ENTRIES };
}
