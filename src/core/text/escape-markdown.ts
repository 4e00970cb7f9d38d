// Corpus text shown in a Markdown hover: every Markdown character escaped, so nothing in it formats, links or
// runs; spaces kept as spaces. (VS Code's MarkdownString.appendText turns each space into &nbsp;, so a hover
// line could only wrap inside words.)

/** `text` as literal Markdown: special characters backslash-escaped, white space collapsed to single spaces. */
export function escapeMarkdownText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/[\\`*_{}[\]()#+\-.!<>|~&:$^"']/g, '\\$&');
}
