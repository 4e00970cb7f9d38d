// Tables that decide what a LaTeX command contributes to the clean text.

/** Commands dropped with all their arguments; they render as no prose (citations, references, layout). */
export const DROP_WITH_ARGS = new Set([
  'cite', 'citep', 'citet', 'citealp', 'citealt', 'citeauthor', 'citeyear', 'citeyearpar', 'citenum', 'citen',
  'citeonline', 'nocite', 'parencite', 'Parencite', 'textcite', 'Textcite', 'autocite', 'Autocite', 'footcite',
  'smartcite', 'supercite', 'fullcite', 'cites', 'parencites', 'autocites', 'inlinecite',
  'ref', 'eqref', 'autoref', 'Autoref', 'cref', 'Cref', 'crefrange', 'Crefrange', 'pageref', 'nameref', 'vref',
  'Vref', 'subref', 'label', 'index', 'glossary', 'hypertarget',
  'vspace', 'hspace', 'vskip', 'hskip', 'includegraphics', 'graphicspath', 'input', 'include', 'subfile',
  'bibliography', 'bibliographystyle', 'addbibresource', 'printbibliography', 'usepackage', 'documentclass',
  'newcommand', 'renewcommand', 'providecommand', 'DeclareMathOperator', 'newenvironment', 'setlength',
  'setcounter', 'addtocounter', 'addcontentsline', 'pagestyle', 'thispagestyle', 'pagenumbering',
  'title', 'author', 'date', 'thanks', 'address', 'affiliation', 'affil', 'institute', 'email', 'keywords',
  'footnotemark', 'footnote', 'footnotetext', 'marginpar', 'todo', 'caption', 'captionof', 'phantom',
  'textcolor', 'colorbox', 'color', 'definecolor', 'rule', 'raisebox', 'resizebox', 'scalebox', 'fbox',
  'linewidth', 'textwidth', 'bibitem', 'acrodef', 'newacronym', 'hyphenation', 'ifthenelse',
]);

/** Commands whose last argument is kept; the arguments before it are dropped (`\href{url}{text}`). */
export const KEEP_LAST_ARG: Record<string, number> = { href: 2, textcolor: 2, colorbox: 2, foreignlanguage: 2 };

/** Commands whose argument is code or a URL: kept as text but never split inside. */
export const MASKED_ARG = new Set(['texttt', 'code', 'url', 'path', 'nolinkurl', 'lstinline', 'mintinline', 'path']);

/** Commands that stand for text. */
export const SYMBOLS: Record<string, string> = {
  LaTeX: 'LaTeX', TeX: 'TeX', LaTeXe: 'LaTeX2e', BibTeX: 'BibTeX', ldots: '…', dots: '…', textellipsis: '…',
  textendash: '–', textemdash: '—', textquoteleft: '‘', textquoteright: '’', textquotedblleft: '“',
  textquotedblright: '”', S: '§', P: '¶', copyright: '©', textcopyright: '©', textregistered: '®',
  texttrademark: '™', textdegree: '°', degree: '°', textbackslash: '\\', textasciitilde: '~',
  textasciicircum: '^', textunderscore: '_', textbar: '|', textless: '<', textgreater: '>', ss: 'ß',
  ae: 'æ', AE: 'Æ', oe: 'œ', OE: 'Œ', aa: 'å', AA: 'Å', o: 'ø', O: 'Ø', l: 'ł', L: 'Ł', i: 'ı', j: 'ȷ',
  etal: 'et al.', eg: 'e.g.', ie: 'i.e.', etc: 'etc.', cf: 'cf.', vs: 'vs.', textpercent: '%', euro: '€',
  pounds: '£', textdollar: '$', dag: '†', ddag: '‡', quad: ' ', qquad: ' ', enspace: ' ', thinspace: ' ',
  newline: ' ', linebreak: ' ', space: ' ', nobreakspace: ' ', xspace: '',
};

/**
 * Text-mode letters (`\\ss`, `\\o`, `\\l` …): as TeX does, the spaces after them are not text (`\\L ukasz` is Łukasz).
 * Longest first, for reading a name glued to the next letters (`Wroc\\law`).
 */
export const TEXT_LETTERS = ['ss', 'ae', 'AE', 'oe', 'OE', 'aa', 'AA', 'o', 'O', 'l', 'L', 'i', 'j'];

/** Symbols inside math, by command name. Greek letters become their Unicode letters. */
export const MATH_SYMBOLS: Record<string, string> = {
  alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', epsilon: 'ε', varepsilon: 'ε', zeta: 'ζ', eta: 'η',
  theta: 'θ', vartheta: 'ϑ', iota: 'ι', kappa: 'κ', lambda: 'λ', mu: 'μ', nu: 'ν', xi: 'ξ', pi: 'π',
  varpi: 'ϖ', rho: 'ρ', varrho: 'ϱ', sigma: 'σ', varsigma: 'ς', tau: 'τ', upsilon: 'υ', phi: 'φ',
  varphi: 'φ', chi: 'χ', psi: 'ψ', omega: 'ω', Gamma: 'Γ', Delta: 'Δ', Theta: 'Θ', Lambda: 'Λ', Xi: 'Ξ',
  Pi: 'Π', Sigma: 'Σ', Upsilon: 'Υ', Phi: 'Φ', Psi: 'Ψ', Omega: 'Ω', times: '×', cdot: '·', leq: '≤',
  le: '≤', geq: '≥', ge: '≥', neq: '≠', ne: '≠', approx: '≈', sim: '~', simeq: '≃', equiv: '≡', pm: '±',
  mp: '∓', infty: '∞', in: '∈', notin: '∉', subset: '⊂', subseteq: '⊆', cup: '∪', cap: '∩', to: '→',
  rightarrow: '→', leftarrow: '←', Rightarrow: '⇒', mapsto: '↦', sum: '∑', prod: '∏', int: '∫',
  partial: '∂', nabla: '∇', forall: '∀', exists: '∃', propto: '∝', ll: '≪', gg: '≫', ldots: '…',
  cdots: '⋯', dots: '…', log: 'log', exp: 'exp', sin: 'sin', cos: 'cos', max: 'max', min: 'min',
  arg: 'arg', lim: 'lim', det: 'det', ln: 'ln', prime: '′', circ: '∘', star: '⋆', ast: '∗',
  percent: '%', lvert: '|', rvert: '|', vert: '|', mid: '|', langle: '⟨', rangle: '⟩',
};

/** Accent commands and the combining mark each adds to the following letter. */
export const ACCENTS: Record<string, string> = {
  "'": '\u0301', '`': '\u0300', '^': '\u0302', '"': '\u0308', '~': '\u0303', '=': '\u0304', '.': '\u0307',
  c: '\u0327', v: '\u030c', u: '\u0306', H: '\u030b', r: '\u030a', k: '\u0328', d: '\u0323', b: '\u0331',
};

/** Sectioning commands and their level. */
export const HEADING_LEVELS: Record<string, number> = {
  part: 0, chapter: 0, section: 1, subsection: 2, subsubsection: 3, paragraph: 4, subparagraph: 5,
};

/** Environments whose body is not prose: math, code, floats (their captions are units of their own). */
export const NON_PROSE_ENVS = new Set([
  'equation', 'equation*', 'align', 'align*', 'alignat', 'alignat*', 'gather', 'gather*', 'multline',
  'multline*', 'eqnarray', 'eqnarray*', 'displaymath', 'math', 'flalign', 'flalign*', 'split', 'dmath',
  'dmath*', 'figure', 'figure*', 'table', 'table*', 'wrapfigure', 'wraptable', 'subfigure', 'sidewaysfigure',
  'sidewaystable', 'tabular', 'tabular*', 'tabularx', 'longtable', 'tikzpicture', 'algorithm', 'algorithm2e',
  'algorithmic', 'thebibliography', 'titlepage', 'filecontents', 'filecontents*',
]);

/** Environments whose body is read verbatim: nothing inside them is LaTeX (not even `%`). */
export const VERBATIM_ENVS = new Set([
  'verbatim', 'verbatim*', 'Verbatim', 'lstlisting', 'minted', 'comment', 'alltt', 'BVerbatim', 'LVerbatim',
]);
