// Where a citation goes: at the end of the sentence under the cursor, before its final punctuation, merged
// into a citation already there. Pure text in, one insertion out, so every Cite (panel, hover, quick fix,
// Zotero) places citations the same way and the extension applies it as one undoable edit.
import { sentenceAt } from '../text/index.js';
import { citationText, type CitationCommand } from './cite.js';

/** One insertion into the document: `text` goes in at `offset` (nothing is replaced). */
export interface CitationEdit {
  offset: number;
  /** What to insert; '' when every key is already cited there. */
  text: string;
  /** True when the keys join a citation already at that place (its command and options are kept). */
  merged: boolean;
}

export interface PlaceOptions {
  /** The LaTeX command for a new citation (a merge keeps the one written). Default `cite`. */
  command?: CitationCommand;
}

/**
 * The edit that cites `keys` from the cursor at `offset`: at the end of the sentence under the cursor,
 * before its final punctuation and closing quotes, and before a footnote that ends it; into the citation
 * already there (`\citep{a}` → `\citep{a,b}`, `[@a]` → `[@a; @b]`). Outside prose, at the end of the
 * word under the cursor, never inside it.
 */
export function placeCitation(
  text: string,
  format: 'latex' | 'markdown',
  offset: number,
  keys: string | readonly string[],
  options: PlaceOptions = {},
): CitationEdit {
  const wanted = [...new Set((typeof keys === 'string' ? [keys] : keys).map((k) => k.trim()).filter(Boolean))];
  if (wanted.length === 0) throw new Error('no citation key to insert');
  const at = insertionPoint(text, format, offset);
  const existing = format === 'latex' ? latexCitationBefore(text, at) : markdownCitationBefore(text, at);
  if (existing) {
    const fresh = wanted.filter((k) => !existing.keys.includes(k));
    const sep = format === 'latex' ? ',' : '; ';
    const joined = fresh.map((k) => (format === 'latex' ? k : `@${k}`)).join(sep);
    const lead = existing.keys.length > 0 ? sep : '';
    return { offset: existing.insertAt, text: fresh.length ? lead + joined : '', merged: true };
  }
  const citation =
    format === 'latex' ? citationText('latex', wanted.join(','), options.command) : `[${wanted.map((k) => `@${k}`).join('; ')}]`;
  const before = at > 0 ? text[at - 1] : '';
  const glue = !/\S/.test(before) || before === '~' || (format === 'latex' && before === '{') ? '' : format === 'latex' ? '~' : ' ';
  return { offset: at, text: glue + citation, merged: false };
}

/** Where a new citation would go for a cursor at offset (before any merge). */
function insertionPoint(text: string, format: 'latex' | 'markdown', offset: number): number {
  const sentence = sentenceNear(text, format, offset);
  if (!sentence) return wordEnd(text, offset);
  let end = sentence.end;
  while (end > sentence.start && /\s/.test(text[end - 1])) end--;
  end = beforeFinalPunctuation(text, sentence.start, end);
  end = beforeTrailingNotes(text, format, sentence.start, end);
  while (end > sentence.start && /\s/.test(text[end - 1])) end--;
  return end;
}

/**
 * The sentence under the cursor; a cursor just after a footnote that closes a sentence
 * (`common.\footnote{…}|`) belongs to that sentence.
 */
function sentenceNear(text: string, format: 'latex' | 'markdown', offset: number): { start: number; end: number } | null {
  const here = sentenceAt(text, format, offset);
  if (here) return here;
  let i = offset;
  while (i > 0 && /[ \t]/.test(text[i - 1])) i--;
  const note = format === 'latex' ? trailingLatexNote(text, 0, i) : trailingMarkdownNote(text, 0, i);
  if (note === null || note === i) return null;
  let j = note;
  while (j > 0 && /[ \t]/.test(text[j - 1])) j--;
  return j > 0 && j < offset ? sentenceAt(text, format, j) : null;
}

/** The end of the word holding offset (the cursor itself when it is not inside a word). */
function wordEnd(text: string, offset: number): number {
  if (offset === 0 || !isWordChar(text[offset - 1])) return offset;
  let i = offset;
  while (i < text.length && isWordChar(text[i])) i++;
  return i;
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}_'’-]/u.test(c);
}

const CLOSERS = new Set(["'", '"', '’', '”', ')', ']', '»']);
const TERMINALS = new Set(['.', '!', '?', '…', ';', ':']);

/**
 * Skips back over the sentence's final punctuation and the closing quotes/brackets after it (`text.''`,
 * `word.)`): the citation goes before them. A bracket closed before the punctuation (`(see above).`) stays.
 */
function beforeFinalPunctuation(text: string, lo: number, end: number): number {
  let i = end;
  while (i > lo && CLOSERS.has(text[i - 1])) i--;
  if (i > lo && TERMINALS.has(text[i - 1])) {
    while (i > lo && TERMINALS.has(text[i - 1])) i--;
    return i;
  }
  return end;
}

/** Skips back over footnotes that end the sentence (`word\footnote{…}.`, `word[^1].`): a citation goes before them. */
function beforeTrailingNotes(text: string, format: 'latex' | 'markdown', lo: number, end: number): number {
  let i = end;
  for (;;) {
    let j = i;
    while (j > lo && /\s/.test(text[j - 1])) j--;
    const start = format === 'latex' ? trailingLatexNote(text, lo, j) : trailingMarkdownNote(text, lo, j);
    if (start === null) return i;
    i = start;
  }
}

/** Start of a `\footnote{…}` (or `\footnotemark`) that ends exactly at `end`, or null. */
function trailingLatexNote(text: string, lo: number, end: number): number | null {
  if (end > lo && text[end - 1] === '}') {
    const open = matchingOpen(text, lo, end - 1);
    if (open === null) return null;
    const m = /\\(?:footnote|footnotetext)\*?(?:\[[^\]]*\])?\s*$/.exec(text.slice(Math.max(lo, open - 40), open));
    return m ? open - m[0].length : null;
  }
  const mark = /\\footnotemark(?:\[[^\]]*\])?$/.exec(text.slice(Math.max(lo, end - 40), end));
  return mark ? end - mark[0].length : null;
}

/** Start of a Markdown footnote reference `[^id]` ending at `end`, or null. */
function trailingMarkdownNote(text: string, lo: number, end: number): number | null {
  const m = /\[\^[^\]\s]+\]$/.exec(text.slice(Math.max(lo, end - 64), end));
  return m ? end - m[0].length : null;
}

/** Offset of the `{` matching the `}` at `close`, reading no further back than lo; null if unbalanced. */
function matchingOpen(text: string, lo: number, close: number): number | null {
  let depth = 0;
  for (let i = close; i >= lo; i--) {
    const c = text[i];
    if (i > 0 && text[i - 1] === '\\' && (c === '{' || c === '}')) continue;
    if (c === '}') depth++;
    else if (c === '{' && --depth === 0) return i;
  }
  return null;
}

interface ExistingCitation {
  keys: string[];
  /** Where added keys go (just before the closing `}` or `]`). */
  insertAt: number;
}

/** A LaTeX citation command (`\cite`, `\citep[…]`, `\autocite`, `\parencite*`…) ending at `at`, ignoring a space/tie. */
function latexCitationBefore(text: string, at: number): ExistingCitation | null {
  let end = at;
  while (end > 0 && /[\s~]/.test(text[end - 1])) end--;
  if (text[end - 1] !== '}') return null;
  const window = text.slice(Math.max(0, end - 600), end);
  const m = /\\[a-zA-Z]*cite[a-zA-Z]*\*?(?:\s*\[[^\]]*\]){0,2}\s*\{([^{}]*)\}$/.exec(window);
  if (!m) return null;
  const keys = m[1]
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  return { keys, insertAt: end - 1 };
}

/** A Pandoc citation `[@a; see @b, p. 3]` ending at `at`, ignoring a space. */
function markdownCitationBefore(text: string, at: number): ExistingCitation | null {
  let end = at;
  while (end > 0 && /[ \t]/.test(text[end - 1])) end--;
  if (text[end - 1] !== ']') return null;
  const window = text.slice(Math.max(0, end - 600), end);
  const m = /\[([^[\]]*)\]$/.exec(window);
  if (!m || !/(?:^|[\s;[-])@[\w:.#$%&+?<>~/-]/.test(m[1]) || m[1].startsWith('^')) return null;
  const keys = [...m[1].matchAll(/@([\w:.#$%&+?<>~/-]*[\w])/g)].map((k) => k[1]);
  return { keys, insertAt: end - 1 };
}
