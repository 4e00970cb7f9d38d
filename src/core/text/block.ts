// A block of lines (a generated section) inserted at a cursor: on lines of its own, set off from the text
// around it by a blank line, without splitting a word or leaving the cursor's line glued to the block.

/** The insertion that puts `block` on its own lines at `offset`: the text to insert there. */
export function blockInsertion(text: string, offset: number, block: string): { offset: number; text: string } {
  const body = block.trim();
  let at = offset;
  // Mid-word: move to the end of the word rather than split it.
  while (at > 0 && at < text.length && /[\p{L}\p{N}_]/u.test(text[at - 1]) && /[\p{L}\p{N}_]/u.test(text[at])) at++;
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const before = text.slice(lineStart, at);
  const lineEnd = text.indexOf('\n', at);
  const after = text.slice(at, lineEnd < 0 ? text.length : lineEnd);
  const prevLineBlank = lineStart === 0 || /^\s*$/.test(text.slice(text.lastIndexOf('\n', lineStart - 2) + 1, lineStart - 1));
  let lead = '';
  if (/\S/.test(before)) lead = '\n\n';
  else if (!prevLineBlank) lead = '\n';
  // Mid-line: the rest of the line moves below the block. At a line end the line's own newline follows the
  // block, so one more makes the blank line before non-blank text. At the end of the text: a final newline.
  let tail: string;
  if (/\S/.test(after)) tail = '\n\n';
  else if (lineEnd < 0) tail = '\n';
  else {
    const next = text.indexOf('\n', lineEnd + 1);
    tail = /\S/.test(text.slice(lineEnd + 1, next < 0 ? text.length : next)) ? '\n' : '';
  }
  // A cursor after trailing spaces on an otherwise blank line: start the block at the line start.
  if (!/\S/.test(before) && before.length) at = lineStart;
  return { offset: at, text: lead + body + tail };
}
