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

/** Plain text (model prose, corpus titles) for LaTeX: special characters as commands, typographic double quotes as ``…''. */
export function escapeLatex(s: string): string {
  return s
    .replace(/\\/g, '\u0000')
    .replace(/\u201c/g, '\u0001')
    .replace(/\u201d/g, '\u0002')
    .replace(/([&%$#_{}])/g, '\\$1')
    .replace(/~/g, '\\textasciitilde{}')
    .replace(/\^/g, '\\textasciicircum{}')
    .replace(/\u0000/g, '\\textbackslash{}')
    .replace(/\u0001/g, '``')
    .replace(/\u0002/g, "''");
}
