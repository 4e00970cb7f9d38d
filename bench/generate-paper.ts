// Deterministic synthetic LaTeX papers of a given length, with the constructs real papers have.

import { mulberry32 as rng } from '../src/core/random.ts';

/** The seeded PRNG, so every run measures the same documents. */
export { rng };

const SENTENCES = [
  'Prior work~\\cite{smith2020,doe2019} has shown that sparse attention scales to long documents.',
  'We train the model for $T = 10^4$ steps with a learning rate of $\\eta = 0.001$, e.g.\\ as in Fig.~\\ref{fig:loss}.',
  'Smith et al.\\ report an accuracy of 93.5\\% on the held-out split (see Sec.~\\ref{sec:results}).',
  'The \\emph{key} observation is that the loss\nplateaus after the first epoch, i.e.\\ early stopping suffices.',
  'Table~\\ref{tab:main} compares our method vs.\\ three baselines on approx.\\ 1.2 million sentences.',
  'This confirms earlier findings.\\footnote{A longer discussion is in the appendix. It covers edge cases.}',
  '% TODO: rewrite this sentence before submission.',
  'Our implementation builds on PyTorch 2.1.0 and runs on a single GPU\\cite{paszke2019}.',
];

const BLOCKS = [
  '\\begin{equation}\n  \\mathcal{L} = -\\sum_i y_i \\log p_i.\n\\end{equation}',
  '\\begin{figure}[t]\n  \\centering\n  \\includegraphics[width=\\linewidth]{loss.pdf}\n  \\caption{Training loss. Lower is better.}\\label{fig:loss}\n\\end{figure}',
  '\\begin{itemize}\n  \\item The first point holds.\n  \\item The second point, too.\n\\end{itemize}',
];

/** A LaTeX paper of about `lines` lines. */
export function generateLatexPaper(lines: number, seed = 1): string {
  const next = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
  const out = ['\\documentclass{article}', '\\usepackage{amsmath}', '\\title{A Generated Paper}', '\\begin{document}', '\\maketitle'];
  let section = 0;
  while (out.length < lines - 1) {
    if (next() < 0.08) out.push('', `\\section{Section ${++section}}\\label{sec:${section}}`);
    else if (next() < 0.1) out.push('', pick(BLOCKS), '');
    else {
      const n = 2 + Math.floor(next() * 4);
      for (let i = 0; i < n; i++) out.push(...pick(SENTENCES).split('\n'));
      out.push('');
    }
  }
  out.push('\\end{document}');
  return out.join('\n');
}
