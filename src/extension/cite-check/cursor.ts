// Where a citation key is being typed: inside the braces of a citation command (`\cite{`, `\citep[p.~2]{a,`…, the
// configured command set) or after the `@` of a Pandoc citation (`[@`, `[see @a; @`). Pure text in, the slot out, so
// completion and its tests read the same thing; no `vscode` here.
import { DEFAULT_CITE_COMMANDS } from '../../core/cite-check/types.js';

export interface CiteSlot {
  format: 'latex' | 'markdown';
  /** The partial key around the cursor, [start, end) in the text: what a chosen key replaces. */
  start: number;
  end: number;
  /** What is typed of the key before the cursor. */
  typed: string;
  /** The other keys already in this citation (not offered again). */
  others: string[];
  /** Where the citation begins (`\` or `[`): the sentence it belongs to is the one holding this offset. */
  citationStart: number;
}

/** How far back a citation may start (a key list longer than this is not being completed). */
const REACH = 600;
const LATEX_KEY_CHAR = /[^\s,{}%\\]/;
const MD_KEY_CHAR = /[\p{L}\p{N}_:.#$%&+?<>~/-]/u;

export function citeSlotAt(
  text: string,
  offset: number,
  format: 'latex' | 'markdown',
  commands: readonly string[] = DEFAULT_CITE_COMMANDS,
): CiteSlot | null {
  return format === 'latex' ? latexSlot(text, offset, commands) : markdownSlot(text, offset);
}

function latexSlot(text: string, offset: number, commands: readonly string[]): CiteSlot | null {
  const lo = Math.max(0, offset - REACH);
  let open = -1;
  for (let i = offset - 1; i >= lo; i--) {
    const c = text[i];
    if (c === '}' || (c === '\n' && text[i - 1] === '\n')) return null;
    if (c === '{') {
      open = i;
      break;
    }
  }
  if (open < 0) return null;
  // The command before the brace: \name, an optional star, up to two [options].
  const head = /\\([a-zA-Z]+)\*?\s*(?:\[[^\]]*\]\s*){0,2}$/.exec(text.slice(Math.max(0, open - 200), open));
  if (!head || !commands.includes(head[1])) return null;
  let start = offset;
  while (start > open + 1 && LATEX_KEY_CHAR.test(text[start - 1])) start--;
  let end = offset;
  while (end < text.length && LATEX_KEY_CHAR.test(text[end])) end++;
  const close = closingBrace(text, open);
  const keys = text
    .slice(open + 1, close)
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const typed = text.slice(start, offset);
  const current = text.slice(start, end);
  return { format: 'latex', start, end, typed, others: keys.filter((k) => k !== current), citationStart: open - head[0].length };
}

/** The `}` closing the brace at `open`, or the end of its line when the author has not typed it yet. */
function closingBrace(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '}' || text[i] === '\n' || text[i] === '{') return i;
  }
  return text.length;
}

function markdownSlot(text: string, offset: number): CiteSlot | null {
  let start = offset;
  while (start > 0 && MD_KEY_CHAR.test(text[start - 1])) start--;
  if (text[start - 1] !== '@') return null;
  // The bracket the citation is in: `[` before the `@` with no `]` between, on this paragraph.
  const lo = Math.max(0, start - REACH);
  let open = -1;
  for (let i = start - 2; i >= lo; i--) {
    const c = text[i];
    if (c === ']' || (c === '\n' && text[i - 1] === '\n')) return null;
    if (c === '[') {
      open = i;
      break;
    }
  }
  if (open < 0 || text[open + 1] === '^') return null;
  // Only where a key begins: right after `[`, `-` (suppress author), a space or `;`.
  const before = text[start - 2];
  if (!(start - 2 === open || before === '-' || before === ';' || /\s/.test(before))) return null;
  let end = offset;
  while (end < text.length && MD_KEY_CHAR.test(text[end])) end++;
  const closeAt = text.indexOf(']', offset);
  const nextBreak = text.indexOf('\n\n', offset);
  const close = closeAt < 0 || (nextBreak >= 0 && nextBreak < closeAt) ? end : closeAt;
  const current = text.slice(start, end);
  const others = [...text.slice(open + 1, close).matchAll(/@([\p{L}\p{N}_][\p{L}\p{N}_:.#$%&+?<>~/-]*)/gu)]
    .map((m) => m[1].replace(/[.:]+$/, ''))
    .filter((k) => k !== current);
  return { format: 'markdown', start, end, typed: text.slice(start, offset), others, citationStart: open };
}
