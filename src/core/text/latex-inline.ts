// Reads the LaTeX source of one prose unit into clean text with a source map (see plain.ts).
import { PlainBuilder, type Plain } from './unit-text.js';
import {
  ACCENTS,
  DROP_WITH_ARGS,
  HEADING_LEVELS,
  KEEP_LAST_ARG,
  MASKED_ARG,
  MATH_SYMBOLS,
  REFERENCES,
  SYMBOLS,
  TEXT_LETTERS,
} from './latex-symbols.js';

/**
 * Dropped commands that do not join a sentence's span: units of their own (footnotes, captions) and
 * anchors (a `\label` after a heading belongs to no sentence).
 */
const NOT_SILENT = new Set(['footnote', 'footnotetext', 'marginpar', 'todo', 'caption', 'captionof', 'label', 'index']);
/** What a cross-reference reads as in the clean text. */
const REFERENCE_PLACEHOLDER = '[ref]';
/**
 * Textual citations print their authors' names in the typeset paper ("As shown by Smith et al. (2019), …"); the names
 * live in the .bib, not here, so a placeholder stands where they are printed: dropping them left "As shown by, …"
 * and sentences with no subject ("show that …").
 */
const TEXTUAL_CITATIONS = new Set(['citet', 'Citet', 'citealt', 'Citealt', 'citeauthor', 'Citeauthor', 'textcite', 'Textcite']);
const CITATION_PLACEHOLDER = '[cite]';
/** Number of required arguments where it is not one. */
const ARITY: Record<string, number> = {
  setcounter: 2,
  addtocounter: 2,
  setlength: 2,
  definecolor: 3,
  newcommand: 2,
  renewcommand: 2,
  providecommand: 2,
  newenvironment: 3,
  captionof: 2,
  crefrange: 2,
  Crefrange: 2,
  hypertarget: 2,
  resizebox: 2,
  scalebox: 1,
  raisebox: 1,
  rule: 2,
  ifthenelse: 3,
  acrodef: 2,
  newacronym: 3,
  footnotemark: 0,
  printbibliography: 0,
  linewidth: 0,
  textwidth: 0,
  bibitem: 1,
};
/** A terminal closing inline math, before optional spacing commands (`p.\\,`). */
const FINAL_TERMINAL = /([.?!])(?:\s|\\[,;:! ]|\\q?quad\b)*$/;
/** Inline math that is only a superscript citation number or range: `^{12}`, `^{3,4}`, `^{5-7}`. */
const SUPERSCRIPT_CITATION = /^\s*\^\s*\{?\s*\d{1,3}(?:\s*[,\u2013-]+\s*\d{1,3})*\s*\}?\s*$/;
const ORDINARY = /[^\\%${}~`'\-\n\r&]+/y;
const isLetter = (c: string | undefined) => c !== undefined && /[a-zA-Z@]/.test(c);

/** Clean text of LaTeX source [start, end). Never throws, whatever the input. */
export function latexPlain(src: string, start: number, end: number): Plain {
  const out = new PlainBuilder();
  new LatexReader(src, out).read(start, end);
  return out.build();
}

/** Clean text of a short LaTeX fragment such as a heading's title. */
export function latexCleanText(fragment: string): string {
  return latexPlain(fragment, 0, fragment.length).clean.replace(/\s+/g, ' ').trim();
}

class LatexReader {
  constructor(
    private readonly src: string,
    private readonly out: PlainBuilder,
  ) {}

  read(start: number, end: number): void {
    const { src, out } = this;
    let i = start;
    while (i < end) {
      ORDINARY.lastIndex = i;
      if (ORDINARY.test(src)) {
        const stop = Math.min(ORDINARY.lastIndex, end);
        out.pushSource(src, i, stop);
        i = stop;
        continue;
      }
      i = this.special(i, end);
    }
  }

  /** Handles the special character at i; returns where reading goes on. */
  private special(i: number, end: number): number {
    const { src, out } = this;
    const c = src[i];
    switch (c) {
      case '%':
        return this.skipComment(i, end);
      case '\\':
        return this.command(i, end);
      case '$':
        return this.dollarMath(i, end);
      case '~':
        out.push(' ', i, i + 1);
        return i + 1;
      case '&':
        out.push(' ', i, i + 1);
        return i + 1;
      case '`':
        if (src[i + 1] === '`') return this.pushText('“', i, i + 2);
        return this.pushText('‘', i, i + 1);
      case "'":
        if (src[i + 1] === "'") return this.pushText('”', i, i + 2);
        return this.pushText("'", i, i + 1);
      case '-':
        if (src.startsWith('---', i)) return this.pushText('—', i, i + 3);
        if (src.startsWith('--', i)) return this.pushText('–', i, i + 2);
        return this.pushText('-', i, i + 1);
      case '\n':
      case '\r':
        return this.newline(i, end);
      default: // { and }: grouping only
        return i + 1;
    }
  }

  private pushText(text: string, a: number, b: number, masked = false): number {
    this.out.push(text, a, b, masked);
    return b;
  }

  /** `%` to the end of the line, and (as TeX does) the line break and the next line's indent. */
  private skipComment(i: number, end: number): number {
    const nl = this.src.indexOf('\n', i);
    if (nl < 0 || nl >= end) return end;
    let j = nl + 1;
    while (j < end && (this.src[j] === ' ' || this.src[j] === '\t')) j++;
    return j;
  }

  /** A line break is a space; a blank line ends the paragraph. */
  private newline(i: number, end: number): number {
    const { src } = this;
    let j = i + 1;
    let lines = src[i] === '\n' ? 1 : 0;
    while (j < end && /[ \t\r\n]/.test(src[j])) {
      if (src[j] === '\n') lines++;
      j++;
    }
    if (lines >= 2) this.out.hardBreak(i);
    else this.out.push(' ', i, i + 1);
    return j;
  }

  private dollarMath(i: number, end: number): number {
    const { src } = this;
    const display = src[i + 1] === '$';
    const open = display ? 2 : 1;
    const close = this.findUnescaped(display ? '$$' : '$', i + open, end);
    if (close < 0) return i + open;
    this.pushMath(src.slice(i + open, close), i, close + open, i + open);
    return close + open;
  }

  private pushMath(tex: string, a: number, b: number, texStart: number): void {
    pushInlineMath(this.out, tex, a, b, texStart);
  }

  private findUnescaped(needle: string, from: number, end: number): number {
    let j = from;
    while (j < end) {
      const k = this.src.indexOf(needle, j);
      if (k < 0 || k + needle.length > end) return -1;
      if (this.src[k - 1] !== '\\') return k;
      j = k + 1;
    }
    return -1;
  }

  private command(i: number, end: number): number {
    const { src } = this;
    const next = src[i + 1];
    if (next === undefined || i + 1 >= end) return i + 1;
    if (!isLetter(next)) return this.controlSymbol(i, next, end);
    let p = i + 1;
    while (p < end && isLetter(src[p])) p++;
    const name = src.slice(i + 1, p);
    if (src[p] === '*') p++;
    return this.namedCommand(name, i, p, end);
  }

  private namedCommand(name: string, i: number, p: number, end: number): number {
    const { out } = this;
    if (name === 'item') {
      out.hardBreak(i);
      return this.skipOptional(p, end);
    }
    if (name === 'begin' || name === 'end') {
      out.hardBreak(i);
      return this.skipOptional(this.skipGroup(this.skipSpaces(p, end), end), end);
    }
    if (name === 'par') {
      out.hardBreak(i);
      return p;
    }
    if (name === 'verb') return this.verb(p, end);
    if (name in HEADING_LEVELS) {
      out.hardBreak(i);
      return this.skipArgs(p, end, 1);
    }
    if (ACCENTS[name] && name.length === 1) return this.accent(name, i, p, end);
    if (name in SYMBOLS) {
      out.push(SYMBOLS[name], i, p);
      if (startsWithEmptyGroup(this.src, p)) return p + 2;
      return LETTER_SET.has(name) ? this.skipBlanks(p, end) : p;
    }
    if (name in KEEP_LAST_ARG) return this.skipArgs(p, end, KEEP_LAST_ARG[name] - 1);
    if (REFERENCES.has(name)) {
      // `Fig.~\ref{x}.` would read "Fig.." and `(see Sec.~\ref{s})` "(see Sec.)": the number is not known
      // here (it lives in the .aux), so a placeholder stands where LaTeX prints it.
      const after = this.skipArgs(p, end, ARITY[name] ?? 1);
      out.push(REFERENCE_PLACEHOLDER, i, after);
      return after;
    }
    if (TEXTUAL_CITATIONS.has(name)) {
      const after = this.skipArgs(p, end, ARITY[name] ?? 1);
      out.pushPlaceholder(CITATION_PLACEHOLDER, i, after);
      return after;
    }
    if (DROP_WITH_ARGS.has(name)) {
      const after = this.skipArgs(p, end, ARITY[name] ?? 1);
      if (!NOT_SILENT.has(name)) out.markSilent(i, after);
      return after;
    }
    if (MASKED_ARG.has(name)) return this.maskedArg(i, p, end);
    if (name === 'ensuremath') {
      const after = this.skipGroup(p, end);
      this.pushMath(this.src.slice(p + 1, after - 1), i, after, p + 1);
      return after;
    }
    // A letter macro glued to the rest of a word, as authors write it (`Wroc\\law`, `Gr\\oe nbech`): the letter and the rest.
    const glued = this.afterWord(i) ? gluedLetter(name) : null;
    if (glued) {
      out.push(SYMBOLS[glued], i, i + 1 + glued.length);
      out.pushSource(this.src, i + 1 + glued.length, p);
      return p;
    }
    // Unknown commands (font switches, user macros): the name goes, the arguments' text stays.
    return this.skipOptionalTight(p, end);
  }

  private controlSymbol(i: number, c: string, end: number): number {
    const { out } = this;
    if (c === '\\') {
      out.push(' ', i, i + 2);
      let p = i + 2;
      if (this.src[p] === '*') p++;
      return this.skipOptionalTight(p, end);
    }
    if ('%&#$_{}'.includes(c)) return this.pushText(c, i, i + 2);
    if (ACCENTS[c]) return this.accent(c, i, i + 2, end);
    if (' ,;:>'.includes(c)) return this.pushText(' ', i, i + 2);
    if (c === '(') return this.delimitedMath(i, '\\)', end);
    if (c === '[') {
      const after = this.delimitedMath(i, '\\]', end);
      this.out.hardBreak(after);
      return after;
    }
    return i + 2; // \- \/ \@ \! and the like render as nothing
  }

  private delimitedMath(i: number, close: string, end: number): number {
    const k = this.src.indexOf(close, i + 2);
    if (k < 0 || k + 2 > end) return i + 2;
    this.pushMath(this.src.slice(i + 2, k), i, k + 2, i + 2);
    return k + 2;
  }

  private accent(name: string, i: number, p: number, end: number): number {
    const { src } = this;
    let q = name.length === 1 && isLetter(name) ? this.skipSpaces(p, end) : p;
    let base: string;
    if (src[q] === '{') {
      const after = this.skipGroup(q, end);
      base = src
        .slice(q + 1, after - 1)
        .replace(/\\([ij])\b/, '$1')
        .trim()
        .slice(0, 1);
      q = after;
    } else if (src[q] === '\\' && /[ij]/.test(src[q + 1] ?? '')) {
      base = src[q + 1];
      q += 2;
    } else {
      base = q < end ? src[q] : '';
      q = Math.min(q + 1, end);
    }
    if (base) this.out.push((base + ACCENTS[name]).normalize('NFC'), i, q);
    return q;
  }

  private verb(p: number, end: number): number {
    const delim = this.src[p];
    if (!delim || p >= end) return p;
    const close = this.src.indexOf(delim, p + 1);
    if (close < 0 || close >= end) return end;
    this.out.push(this.src.slice(p + 1, close), p - 5, close + 1, true);
    return close + 1;
  }

  private maskedArg(i: number, p: number, end: number): number {
    const q = this.skipOptional(p, end);
    if (this.src[q] !== '{') return q;
    const after = this.skipGroup(q, end);
    const text = this.src
      .slice(q + 1, Math.max(q + 1, after - 1))
      .replace(/\\textunderscore\b\s*/g, '_')
      .replace(/\\([_%&#$])/g, '$1')
      .replace(/\\[a-zA-Z]+\s*/g, '')
      .replace(/[{}]/g, '');
    this.out.push(text, i, after, true);
    return after;
  }

  /** Skips optional `[…]` arguments and `count` required `{…}` ones, with spaces between them. */
  private skipArgs(p: number, end: number, count: number): number {
    let q = this.skipOptional(p, end);
    for (let n = 0; n < count; n++) {
      const r = this.skipSpaces(q, end);
      if (this.src[r] !== '{') {
        // a one-token argument (`\cite x` is rare, `\label x` never): stop here
        return q;
      }
      q = this.skipOptional(this.skipGroup(r, end), end);
    }
    return q;
  }

  /** True when a word (letters that are not a command's name) ends right before i. */
  private afterWord(i: number): boolean {
    let j = i;
    while (j > 0 && /[a-zA-Z]/.test(this.src[j - 1])) j--;
    return j < i && this.src[j - 1] !== '\\';
  }

  /** Spaces and tabs (not a line break). */
  private skipBlanks(p: number, end: number): number {
    while (p < end && (this.src[p] === ' ' || this.src[p] === '\t')) p++;
    return p;
  }

  private skipSpaces(p: number, end: number): number {
    while (p < end && (this.src[p] === ' ' || this.src[p] === '\t' || this.src[p] === '\n')) p++;
    return p;
  }

  /** Optional arguments, allowing spaces before each. */
  private skipOptional(p: number, end: number): number {
    for (;;) {
      const q = this.skipSpaces(p, end);
      if (this.src[q] !== '[') return p;
      const after = this.skipBracket(q, end);
      if (after < 0) return p;
      p = after;
    }
  }

  /** Optional arguments written right after the command (`\\[2pt]`, `\foo[x]`). */
  private skipOptionalTight(p: number, end: number): number {
    while (this.src[p] === '[') {
      const after = this.skipBracket(p, end);
      if (after < 0) return p;
      p = after;
    }
    return p;
  }

  /** Index after the `]` matching the `[` at p, or -1 when none comes soon (then it is prose). */
  private skipBracket(p: number, end: number): number {
    const stop = Math.min(end, p + 400);
    let depth = 0;
    for (let j = p; j < stop; j++) {
      const ch = this.src[j];
      if (ch === '\\') j++;
      else if (ch === '{') depth++;
      else if (ch === '}') depth--;
      else if (ch === ']' && depth <= 0) return j + 1;
      else if (ch === '\n' && this.src[j + 1] === '\n') return -1;
    }
    return -1;
  }

  /** Index after the `}` matching the `{` at p (p itself when there is none; `end` when unbalanced). */
  private skipGroup(p: number, end: number): number {
    if (this.src[p] !== '{') return p;
    let depth = 0;
    for (let j = p; j < end; j++) {
      const ch = this.src[j];
      if (ch === '\\') j++;
      else if (ch === '%') {
        const nl = this.src.indexOf('\n', j);
        j = nl < 0 ? end : nl;
      } else if (ch === '{') depth++;
      else if (ch === '}' && --depth === 0) return j + 1;
    }
    return end;
  }
}

const LETTER_SET = new Set(TEXT_LETTERS);

/** The text letter an unknown command name starts with, when the rest is lower-case letters (`law` → `l`). */
export function gluedLetter(name: string): string | null {
  for (const l of TEXT_LETTERS) if (name.length > l.length && name.startsWith(l) && /^[a-z]+$/.test(name.slice(l.length))) return l;
  return null;
}

function startsWithEmptyGroup(src: string, p: number): boolean {
  return src[p] === '{' && src[p + 1] === '}';
}

/**
 * Inline math source [a, b), whose formula `tex` starts at texStart, as masked text. A terminal that closes
 * the formula (`$\\log p.$ We …`) ends the sentence like one written after it, so it stays visible to the
 * splitter (mapped to the rest of the math's source); a formula that is only a superscript number
 * (`.$^{12}$`) is a citation mark, silent like `\\cite`.
 */
export function pushInlineMath(out: PlainBuilder, tex: string, a: number, b: number, texStart: number): void {
  if (SUPERSCRIPT_CITATION.test(tex)) {
    out.markSilent(a, b);
    return;
  }
  const end = FINAL_TERMINAL.exec(tex);
  const text = mathText(end ? tex.slice(0, end.index) : tex);
  if (!end) {
    if (text) out.push(text, a, b, true);
    return;
  }
  const at = texStart + end.index;
  if (text) out.push(text, a, at, true);
  out.push(end[1], at, b);
}

/** Readable text of inline math: Greek letters and operators as Unicode, commands and braces gone. */
export function mathText(tex: string): string {
  return tex
    .replace(/\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, '$1/$2')
    .replace(/\\sqrt\s*\{([^{}]*)\}/g, '√$1')
    .replace(/\\([a-zA-Z]+)/g, (_m, name: string) => MATH_SYMBOLS[name] ?? '')
    .replace(/\\[,;:! ]/g, ' ')
    .replace(/\\(.)/g, '$1')
    .replace(/[{}^_&$]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
