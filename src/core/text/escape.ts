// The project's escapers for text it writes into something that formats it. Corpus text and model prose are
// untrusted: whatever renders the result (a preview, a static-site build, GitHub, pdflatex) must not meet raw HTML,
// a link, an autolink or a TeX command that came from them.
// - escapeMarkdownText: corpus text shown in a Markdown hover: every Markdown character escaped, so nothing in it
//   formats, links or runs; spaces kept as spaces. (VS Code's MarkdownString.appendText turns each space into
//   &nbsp;, so a hover line could only wrap inside words.)
// - escapeMarkdownProse: prose written into the user's .md (review, ask, insert, section headings), which they keep
//   editing: it stays readable as typed, only what could form HTML or a link is escaped; escapeMarkdownCell for
//   a table cell.
// - escapeLatex: the same prose written into the user's .tex.
// BibTeX field values have their own escaper (bib/format.ts escapeBibtex): a .bib needs balanced braces and
// broken-up ligatures, which prose in a .tex does not.
import { MATH_SYMBOLS } from './latex-symbols.js';

/** `text` as literal Markdown: special characters backslash-escaped, white space collapsed to single spaces. */
export function escapeMarkdownText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_{}[\]()#+\-.!<>|~&:$^"']/g, '\\$&');
}

/**
 * Generated prose for a Markdown document: `<` and `>` as entities (no HTML tag, comment or autolink can form), an
 * `&` that would start an entity as `&amp;`, `[` and `]` backslash-escaped (no link or image); typographic
 * double quotes as plain "…". Line breaks are kept.
 */
export function escapeMarkdownProse(text: string): string {
  return text
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/&(?=#?\w+;)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[[\]]/g, '\\$&');
}

/** The text escapeMarkdownProse was given back (typographic quotes stay plain), for reading emitted notes. */
export function unescapeMarkdownProse(text: string): string {
  return text
    .replace(/\\([[\]])/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;(?=#?\w+;)/g, '&');
}

/** escapeMarkdownProse for a cell of a Markdown table: `|` is escaped too, so the cell cannot end early. */
export function escapeMarkdownCell(text: string): string {
  return escapeMarkdownProse(text).replace(/\|/g, '\\|');
}

/**
 * Plain text (model prose, corpus titles, corpus sentences) for LaTeX, safe to typeset as prose: special characters
 * as commands (`%`, `&`, `#`, `_`, `$`, braces, `\`, `~`, `^`), quotes as TeX quotes (typographic and straight:
 * "precision at k" → ``precision at k''), `<`, `>` and `|` as text symbols (in text mode the default font prints ¡
 * for `<`), and what reads as a formula (`k=60`, `p < 0.05`, `n ≥ 3`, `10^6`) in math mode: `$k=60$`.
 */
export function escapeLatex(s: string): string {
  const math: string[] = [];
  const stash = (tex: string) => `\u0003${math.push(tex) - 1}\u0004`;
  return (
    s
      .replace(MATH_RELATION, (_m, lhs: string, rel: string, rhs: string) =>
        stash(`$${texChar(lhs)}${RELATIONS[rel] ?? rel}${texChar(rhs).replace(/%$/, '\\%')}$`),
      )
      .replace(MATH_POWER, (_m, base: string, exp: string) => stash(`$${base}^{${exp}}$`))
      // What an indexed formula left as Unicode (`R ∈ {20, 50}`, `α`): pdflatex has no text glyph for it.
      .replace(MATH_CHAR, (ch) => stash(`$${TEX_OF_CHAR.get(ch)}$`))
      .replace(/\\/g, '\u0000')
      .replace(/\u201c|(?<=^|[\s([{\u2014\u2013-])"(?=\S)/g, '\u0001')
      .replace(/\u201d|"/g, '\u0002')
      .replace(/\u2018|(?<=^|[\s([{])'(?=\w)/g, '`')
      .replace(/\u2019/g, "'")
      .replace(/([&%$#_{}])/g, '\\$1')
      .replace(/~/g, '\\textasciitilde{}')
      .replace(/\^/g, '\\textasciicircum{}')
      .replace(/</g, '\\textless{}')
      .replace(/>/g, '\\textgreater{}')
      .replace(/\|/g, '\\textbar{}')
      .replace(/\u0000/g, '\\textbackslash{}')
      .replace(/\u0001/g, '``')
      .replace(/\u0002/g, "''")
      .replace(/\u0003(\d+)\u0004/g, (_m, i: string) => math[Number(i)])
  );
}

/** A one-letter variable (or a number) in a relation with a number or a one-letter variable: `k=60`, `p < 0.05`, `n≥3`. */
const MATH_RELATION =
  /(?<![\w\\$.@])([A-Za-z\u03b1-\u03c9]|\d+(?:\.\d+)?)\s*(<=|>=|!=|=|<|>|\u2264|\u2265|\u2260)\s*(-?\d+(?:\.\d+)?%?|[A-Za-z](?![\w]))(?![\w$@])/g;
const RELATIONS: Record<string, string> = {
  '<=': '\\le ',
  '>=': '\\ge ',
  '!=': '\\ne ',
  '\u2264': '\\le ',
  '\u2265': '\\ge ',
  '\u2260': '\\ne ',
};
/** Math symbols (Greek letters, operators, arrows) back to their TeX commands: the first name of each in MATH_SYMBOLS. */
const TEX_OF_CHAR = new Map<string, string>();
for (const [name, ch] of Object.entries(MATH_SYMBOLS)) {
  const code = ch.codePointAt(0) ?? 0;
  if ([...ch].length === 1 && code >= 0x370 && !(code >= 0x2000 && code <= 0x206f) && !TEX_OF_CHAR.has(ch))
    TEX_OF_CHAR.set(ch, `\\${name}`);
}
const MATH_CHAR = new RegExp(`[${[...TEX_OF_CHAR.keys()].join('').replace(/[\\\]^-]/g, '\\$&')}]`, 'gu');
const texChar = (s: string) => (TEX_OF_CHAR.has(s) ? `${TEX_OF_CHAR.get(s)} ` : s);

/** A power: `10^6`, `x^2`, `2^{-3}` as authors type them in prose. */
const MATH_POWER = /(?<![\w\\$])(\d+|[A-Za-z])\^\{?(-?\w{1,3})\}?(?![\w$@])/g;
