// The project's Markdown escapers. Corpus text and model prose are untrusted: whatever renders the Markdown
// (a preview, a static-site build, GitHub) must not meet raw HTML, a link or an autolink that came from them.
// - escapeMarkdownText: corpus text shown in a Markdown hover: every Markdown character escaped, so nothing in it
//   formats, links or runs; spaces kept as spaces. (VS Code's MarkdownString.appendText turns each space into
//   &nbsp;, so a hover line could only wrap inside words.)
// - escapeMarkdownProse: prose written into the user's .md (review, ask, insert), which they keep editing: it
//   stays readable as typed, only what could form HTML or a link is escaped.

/** `text` as literal Markdown: special characters backslash-escaped, white space collapsed to single spaces. */
export function escapeMarkdownText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/[\\`*_{}[\]()#+\-.!<>|~&:$^"']/g, '\\$&');
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
  return text.replace(/\\([[\]])/g, '$1').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;(?=#?\w+;)/g, '&');
}
