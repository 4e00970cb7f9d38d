/**
 * Sentence boundaries of plain prose, after the rules of pragmatic_segmenter / pySBD (the "Golden Rules"),
 * tuned for text extracted from papers: inline math arrives masked as runs of `x`, single newlines are
 * spaces, a blank line always ends a sentence.
 *
 * One left-to-right pass per paragraph with bounded look-around at each candidate terminal, so the cost is
 * linear in the input; the few regular expressions are simple scans or run on tokens of bounded length.
 */
import {
  ABBREVIATIONS,
  BEFORE_INITIALS,
  CITATION_ABBREVIATIONS,
  CONJUNCTIONS,
  EXCLAMATION_NAMES,
  INITIAL_BREAKERS,
  NAME_JOINERS,
  NEVER_FINAL,
  REFERENCE_WORDS,
  SENTENCE_STARTERS,
  TIME_PREPOSITIONS,
} from './abbreviations.js';
import { captionRanges } from './captions.js';

export interface Span {
  start: number;
  end: number;
}

const TERMINALS = new Set('.?!…‼⁇⁈⁉．。！？');
const WIDE_TERMINALS = new Set('．。！？');
const CLOSERS = new Set('"\'”’»›)]}」』）¹²³⁰⁴⁵⁶⁷⁸⁹');
const OPENERS = new Set('"\'“‘«‹([{`「『（');
const BULLETS = new Set('•◦▪‣⁃●○■□▸►');
/** Per-UTF-16-unit flags, so the per-character loops test one typed-array entry. */
const F_SPACE = 1;
const F_TERMINAL = 2;
const F_BULLET = 4;
const F_ENCLOSE = 8;
const F_LABEL = 16;
const F_QUOTE_END = 32;
const FLAGS = new Uint8Array(0x10000);
const flagChars = (chars: string, f: number): void => {
  for (const ch of chars) FLAGS[ch.charCodeAt(0)] |= f;
};
// The characters of JavaScript's \s.
flagChars('\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff', F_SPACE);
for (let c = 0x2000; c <= 0x200a; c++) FLAGS[c] |= F_SPACE;
flagChars([...TERMINALS].join(''), F_TERMINAL);
flagChars([...BULLETS].join(''), F_BULLET);
flagChars('()[]“”«»"\'`‘’', F_ENCLOSE);
flagChars('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', F_LABEL);
flagChars('"”', F_QUOTE_END);

/** Quotes and brackets longer than this are taken to be unbalanced rather than protecting their content. */
const QUOTE_LIMIT = 1000;
const PAREN_LIMIT = 600;
/** Longer tokens are URLs, paths or noise: never abbreviations, and never scanned further back. */
const TOKEN_LIMIT = 64;
/** How far a list item is searched for the line break that ends it. */
const ITEM_LINE_LIMIT = 300;

/** Sentence spans of plain text, in order, each trimmed of surrounding white space; empty text → []. */
export function splitSentences(text: string): Span[] {
  const cuts: number[] = [0, text.length];
  for (const [ps, pe] of paragraphs(text)) {
    cuts.push(ps, pe);
    const from = cuts.length;
    splitParagraph(text, ps, pe, cuts);
    // A caption line is a unit of its own (captions.ts); the full stop of its label ("Figure 2.") ends nothing.
    for (const c of captionRanges(text, ps, pe)) {
      let after = c.labelEnd;
      while (after < pe && isSpace(text.charCodeAt(after))) after++;
      for (let i = cuts.length - 1; i >= from; i--) if (cuts[i] > c.start && cuts[i] <= after) cuts.splice(i, 1);
      cuts.push(c.start, c.end);
    }
  }
  return spansBetween(text, cuts);
}

// ---------------------------------------------------------------------------------------------------------
// Characters

function isSpace(c: number): boolean {
  return (FLAGS[c] & F_SPACE) !== 0;
}

type CharClass = 'upper' | 'lower' | 'caseless' | 'digit' | 'other';

const UPPER_RE = /^[\p{Lu}\p{Lt}]$/u;
const LOWER_RE = /^\p{Ll}$/u;
const LETTER_RE = /^\p{L}$/u;

function classAt(t: string, i: number): CharClass {
  const c = t.charCodeAt(i);
  if (c >= 48 && c <= 57) return 'digit';
  if (c >= 65 && c <= 90) return 'upper';
  if (c >= 97 && c <= 122) return 'lower';
  if (c < 128 || Number.isNaN(c)) return 'other';
  const cp = t.codePointAt(i) ?? 0;
  const ch = String.fromCodePoint(cp);
  if (UPPER_RE.test(ch)) return 'upper';
  if (LOWER_RE.test(ch)) return 'lower';
  return LETTER_RE.test(ch) ? 'caseless' : 'other';
}

function isWordChar(t: string, i: number): boolean {
  return classAt(t, i) !== 'other';
}

// ---------------------------------------------------------------------------------------------------------
// Paragraphs and spans

/** Paragraph ranges: a white-space run holding two line breaks (or a U+2029) separates paragraphs. */
function paragraphs(t: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const lineBreak = /[\n\u2029]/g;
  let start = 0;
  for (let m = lineBreak.exec(t); m; m = lineBreak.exec(t)) {
    let a = m.index;
    while (a > start && isSpace(t.charCodeAt(a - 1))) a--;
    let b = m.index;
    let breaks = 0;
    for (; b < t.length && isSpace(t.charCodeAt(b)); b++) breaks += lineBreakWeight(t.charCodeAt(b));
    if (breaks >= 2) {
      out.push([start, a]);
      start = b;
    }
    lineBreak.lastIndex = b;
  }
  out.push([start, t.length]);
  return out;
}

function lineBreakWeight(c: number): number {
  return c === 10 ? 1 : c === 0x2029 ? 2 : 0;
}

function spansBetween(t: string, cuts: number[]): Span[] {
  cuts.sort((a, b) => a - b);
  const out: Span[] = [];
  for (let k = 1; k < cuts.length; k++) {
    let a = cuts[k - 1];
    let b = cuts[k];
    while (a < b && isSpace(t.charCodeAt(a))) a++;
    while (b > a && isSpace(t.charCodeAt(b - 1))) b--;
    if (a < b) out.push({ start: a, end: b });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// One paragraph

interface Para {
  /** The whole text; the paragraph is text[start, end). */
  text: string;
  start: number;
  end: number;
  /** Quote and bracket regions as sorted `open + 1` and `close` offsets; see depthAt. */
  opens: number[];
  closes: number[];
  /** How many of `opens` / `closes` lie at or before `queried`, the last position depthAt was asked about. */
  opensPassed: number;
  closesPassed: number;
  queried: number;
  markers: Marker[];
  /** Offsets of the characters the main pass looks at: terminals, bullets, closing double quotes. */
  stops: number[];
  cuts: number[];
  lastCut: number;
  contentFor: number;
  content: number;
}

function splitParagraph(t: string, ps: number, pe: number, cuts: number[]): void {
  const p = newPara(t, ps, pe, cuts);
  prescan(p);
  const listed = listCuts(p);
  let li = 0;
  let resume = ps;
  for (const i of p.stops) {
    if (i < resume) continue;
    const f = FLAGS[t.charCodeAt(i)];
    while (li < listed.length && listed[li] <= i) cut(p, listed[li++]);
    if (f & F_BULLET && i > ps && isSpace(t.charCodeAt(i - 1))) cut(p, i);
    else if (f & F_QUOTE_END) interruptedQuote(p, i);
    resume = f & F_TERMINAL ? terminal(p, i) : i + 1;
  }
  while (li < listed.length) cut(p, listed[li++]);
}

function newPara(t: string, ps: number, pe: number, cuts: number[]): Para {
  const regions = { opens: [], closes: [], opensPassed: 0, closesPassed: 0, queried: ps };
  return { text: t, start: ps, end: pe, ...regions, markers: [], stops: [], cuts, lastCut: ps, contentFor: -1, content: ps };
}

function cut(p: Para, at: number): void {
  p.cuts.push(at);
  if (at > p.lastCut) p.lastCut = at;
}

/** First offset of the current sentence's words, past white space, opening quotes and bullets. */
function sentenceContent(p: Para): number {
  if (p.contentFor !== p.lastCut) {
    let k = p.lastCut;
    while (k < p.end && (isSpace(p.text.charCodeAt(k)) || OPENERS.has(p.text[k]) || BULLETS.has(p.text[k]))) k++;
    p.contentFor = p.lastCut;
    p.content = k;
  }
  return p.content;
}

function atSentenceStart(p: Para, tokenStart: number): boolean {
  return tokenStart <= sentenceContent(p);
}

// ---------------------------------------------------------------------------------------------------------
// Quotes and brackets: terminals inside them do not end the enclosing sentence

/**
 * One pass over the quote, bracket and period characters: records the regions that protect their content
 * and the enumeration markers (`1.`, `a)`, `(iv)`) that end at a `.` or `)`.
 */
function prescan(p: Para): void {
  const q: Quotes = { stacks: { '(': [], '[': [], '“': [], '«': [] }, dq: -1, sq: -1, csq: -1 };
  const t = p.text;
  for (let i = p.start; i < p.end; i++) {
    const f = FLAGS[t.charCodeAt(i)];
    if ((f & (F_ENCLOSE | F_TERMINAL | F_BULLET)) === 0) continue;
    if (f & (F_TERMINAL | F_BULLET | F_QUOTE_END)) p.stops.push(i);
    if (t[i] === '.' || t[i] === ')') markerEndingAt(p, i);
    if (f & F_ENCLOSE) enclose(p, q, i);
  }
  p.opens.sort((a, b) => a - b);
}

/** Open quotes and brackets while the paragraph is read: stacks for the paired ones, offsets or -1. */
interface Quotes {
  stacks: Record<string, number[]>;
  dq: number;
  sq: number;
  csq: number;
}

const PAIRS: Record<string, string> = { ')': '(', ']': '[', '”': '“', '»': '«' };

function enclose(p: Para, q: Quotes, i: number): void {
  const ch = p.text[i];
  if (ch in q.stacks) q.stacks[ch].push(i);
  else if (ch in PAIRS) {
    const o = q.stacks[PAIRS[ch]].pop();
    if (o !== undefined) region(p, o, i, ch === ')' || ch === ']' ? PAREN_LIMIT : QUOTE_LIMIT);
  } else if (ch === '"') q.dq = straightDouble(p, i, q.dq);
  else if (ch === "'" || ch === '`') q.sq = straightSingle(p, i, q.sq);
  else if (ch === '‘') q.csq = i;
  else if (ch === '’' && q.csq >= 0 && closesSingle(p.text, p.end, i, false)) {
    region(p, q.csq, i, QUOTE_LIMIT);
    q.csq = -1;
  }
}

function region(p: Para, o: number, c: number, limit: number): void {
  if (c - o > limit) return;
  p.opens.push(o + 1);
  p.closes.push(c);
}

function opensQuote(t: string, ps: number, pe: number, i: number): boolean {
  const before = i === ps || isSpace(t.charCodeAt(i - 1)) || OPENERS.has(t[i - 1]) || '—–-/'.includes(t[i - 1]);
  return before && i + 1 < pe && !isSpace(t.charCodeAt(i + 1));
}

/** Straight double quotes alternate; one after a digit (`3/4"`) or between spaces opens nothing. */
function straightDouble(p: Para, i: number, open: number): number {
  if (open < 0 || i - open > QUOTE_LIMIT) return opensQuote(p.text, p.start, p.end, i) ? i : -1;
  if (i > p.start && !isSpace(p.text.charCodeAt(i - 1))) {
    region(p, open, i, QUOTE_LIMIT);
    return -1;
  }
  return open;
}

/** A straight single quote closes only after punctuation, so apostrophes (`isn't`, `students'`) never do. */
function straightSingle(p: Para, i: number, open: number): number {
  const t = p.text;
  const live = open >= 0 && i - open <= QUOTE_LIMIT;
  if (t[i] === "'" && live && closesSingle(t, p.end, i, true)) {
    region(p, open, i, QUOTE_LIMIT);
    return -1;
  }
  // A new opening quote replaces an unclosed one: that one was more likely an apostrophe or a typo.
  if (t[i] === '`' || opensQuote(t, p.start, p.end, i)) return i;
  return live ? open : -1;
}

function closesSingle(t: string, pe: number, i: number, needPunctuation: boolean): boolean {
  if (i + 1 < pe && isWordChar(t, i + 1)) return false;
  const before = t[i - 1] ?? ' ';
  if (needPunctuation) return '.?!,;:…'.includes(before);
  return !isSpace(before.charCodeAt(0));
}

/** A terminal inside quotes or brackets counts only when the closers right after it leave them all. */
function isEnclosed(p: Para, terminalAt: number, after: number): boolean {
  return depthAt(p, terminalAt) > 0 && depthAt(p, after) > 0;
}

/** How many regions strictly enclose pos; queries come in increasing order, so two cursors suffice. */
function depthAt(p: Para, pos: number): number {
  if (pos < p.queried) p.opensPassed = p.closesPassed = 0;
  p.queried = pos;
  while (p.opensPassed < p.opens.length && p.opens[p.opensPassed] <= pos) p.opensPassed++;
  while (p.closesPassed < p.closes.length && p.closes[p.closesPassed] <= pos) p.closesPassed++;
  return p.opensPassed - p.closesPassed;
}

// ---------------------------------------------------------------------------------------------------------
// Terminal clusters

interface Cluster {
  end: number;
  dots: number;
  strong: boolean;
  wide: boolean;
  spaced: boolean;
  ellipsis: boolean;
}

/** Decides the terminal cluster starting at i; returns where scanning resumes. */
function terminal(p: Para, i: number): number {
  const c = scanCluster(p, i);
  let at: number;
  if (c.wide) at = afterWide(p, i, c.end);
  else if (c.strong) at = afterStrong(p, i, c.end);
  else if (c.dots === 1 && !c.ellipsis) at = afterPeriod(p, i);
  else at = afterEllipsis(p, i, c);
  if (at >= 0) cut(p, at);
  return Math.max(c.end, at);
}

function scanCluster(p: Para, i: number): Cluster {
  const c: Cluster = { end: i, dots: 0, strong: false, wide: false, spaced: false, ellipsis: false };
  const t = p.text;
  let j = i;
  while (j < p.end) {
    const ch = t[j];
    if (ch === '.') c.dots++;
    else if (ch === '…') c.ellipsis = true;
    else if (WIDE_TERMINALS.has(ch)) c.wide = true;
    else if (TERMINALS.has(ch)) c.strong = true;
    else if (ch === ' ' && t[j + 1] === '.' && j + 1 < p.end && c.dots > 0 && !c.strong && !c.wide) c.spaced = true;
    else break;
    j++;
  }
  c.end = j;
  return c;
}

/** Past closing quotes, brackets, superscripts and attached numeric citations (`.[7][8]`). */
function skipClosers(p: Para, j: number): number {
  for (;;) {
    while (j < p.end && CLOSERS.has(p.text[j])) j++;
    const e = p.text[j] === '[' ? citationEnd(p, j) : -1;
    if (e < 0) return j;
    j = e;
  }
}

function citationEnd(p: Para, j: number): number {
  let digits = 0;
  for (let k = j + 1; k < p.end && k - j <= 32; k++) {
    const ch = p.text[k];
    if (ch === ']') return digits > 0 ? k + 1 : -1;
    if (ch >= '0' && ch <= '9') digits++;
    else if (!', -–—'.includes(ch)) return -1;
  }
  return -1;
}

function skipSpaces(p: Para, j: number): number {
  while (j < p.end && isSpace(p.text.charCodeAt(j))) j++;
  return j;
}

/** Where the sentence ends after a terminal cluster (past its closers), if the next word may begin one. */
function nextAfter(p: Para, i: number, end: number): { at: number; next: Next } | undefined {
  const j = skipClosers(p, end);
  if (j >= p.end || !isSpace(p.text.charCodeAt(j)) || isEnclosed(p, i, j)) return undefined;
  return { at: j, next: nextWord(p, skipSpaces(p, j)) };
}

/** `"… afore she comes, to--" At this moment …`: speech broken off by a dash ends like a terminal. */
function interruptedQuote(p: Para, i: number): void {
  const t = p.text;
  if (t[i - 1] !== '—' && !(t[i - 1] === '-' && t[i - 2] === '-')) return;
  const n = nextAfter(p, i - 1, i);
  if (n && n.next.kind === 'upper') cut(p, n.at);
}

/** Full-width terminals (CJK) end a sentence even with no space after them. */
function afterWide(p: Para, i: number, end: number): number {
  const j = skipClosers(p, end);
  return j < p.end && !isEnclosed(p, i, j) ? j : -1;
}

function afterStrong(p: Para, i: number, end: number): number {
  if (i > p.start && '([{'.includes(p.text[i - 1])) return -1;
  if (p.text[i] === '!' && EXCLAMATION_NAMES.has(previousToken(p, i).lower)) return -1;
  const n = nextAfter(p, i, end);
  if (!n) return -1;
  const k = n.next.kind;
  return k === 'upper' || k === 'digit' || k === 'mask' ? n.at : -1;
}

function afterEllipsis(p: Para, i: number, c: Cluster): number {
  const t = p.text;
  if (i > p.start && '[('.includes(t[i - 1]) && '])'.includes(t[c.end] ?? 'x')) return -1;
  const n = nextAfter(p, i, c.end);
  const capital = n !== undefined && n.next.kind === 'upper';
  if (c.spaced && c.dots === 2) {
    // `et al. . We`: a citation removed between two periods leaves a plain period behind, not an ellipsis.
    return n && endsSentence(p, { start: i, lower: '', category: 'regular' }, n.next) ? n.at : -1;
  }
  if (c.spaced) {
    // `word. . . . Next`: the attached period ends the sentence, the spaced dots open the next one;
    // a free-standing `. . .` is an omission inside the sentence, `. . . .` one followed by a period.
    if (i > p.start && !isSpace(t.charCodeAt(i - 1))) return capital ? i + 1 : -1;
    if (c.dots < 4) return -1;
  }
  return capital && n ? n.at : -1;
}

// ---------------------------------------------------------------------------------------------------------
// The single period

function afterPeriod(p: Para, i: number): number {
  if (i + 1 < p.end && isWordChar(p.text, i + 1)) return periodInWord(p, i);
  const n = nextAfter(p, i, i + 1);
  if (!n) return -1;
  return endsSentence(p, previousToken(p, i), n.next) ? n.at : -1;
}

type NextKind = 'upper' | 'lower' | 'mask' | 'digit' | 'other' | 'end';

interface Next {
  kind: NextKind;
  word: string;
  /** Where the word ends, for the words that have letters. */
  end?: number;
}

/** The next word, looking past an item label: `(a) Hapten-specific …` and `c) Confocal …` open sentences. */
function nextWord(p: Para, k: number): Next {
  const w = wordAt(p, k);
  if (w.kind !== 'lower' && w.kind !== 'other' && w.kind !== 'digit') return w;
  const after = labelEnd(p, k);
  if (after < 0) return w;
  const v = wordAt(p, skipSpaces(p, after));
  return v.kind === 'upper' ? v : w;
}

/** End of a short item label (`(a)`, `c)`, `(12)`, `(iv)`) at k that is followed by a space, or -1. */
function labelEnd(p: Para, k: number): number {
  const t = p.text;
  let e = t[k] === '(' ? k + 1 : k;
  const s = e;
  while (e < p.end && e - s <= 4 && FLAGS[t.charCodeAt(e)] & F_LABEL) e++;
  if (e === s || e - s > 4 || t[e] !== ')') return -1;
  return e + 1 < p.end && isSpace(t.charCodeAt(e + 1)) ? e + 1 : -1;
}

function wordAt(p: Para, k: number): Next {
  const t = p.text;
  if (k >= p.end) return { kind: 'end', word: '' };
  if (BULLETS.has(t[k])) return { kind: 'upper', word: '' };
  const opener = OPENERS.has(t[k]) ? t[k] : '';
  while (k < p.end && OPENERS.has(t[k])) k++;
  if (k >= p.end) return { kind: 'other', word: '' };
  const cls = classAt(t, k);
  // `(3)` after a period is an equation or list label, `[3]` a citation opening the sentence.
  if (cls === 'digit') return { kind: opener === '(' || opener === '{' ? 'other' : 'digit', word: '' };
  if (cls === 'other') return { kind: 'other', word: '' };
  let e = k;
  while (e < p.end && e - k < 24 && classAt(t, e) !== 'other' && classAt(t, e) !== 'digit') e++;
  const word = t.slice(k, e);
  // Gene and product names keep their lower-case first letter at a sentence start (`mRNA`, `shRNA`, `hESC`).
  if (cls !== 'lower' || /^\p{Ll}+\p{Lu}/u.test(word)) return { kind: 'upper', word, end: e };
  const masked = /^x+$/.test(word) && (e >= p.end || classAt(t, e) === 'other');
  return { kind: masked ? 'mask' : 'lower', word, end: e };
}

type Category = 'never' | 'abbrev' | 'ampm' | 'initialism' | 'upperInitial' | 'lowerLetter' | 'number' | 'degree' | 'citation' | 'regular';

interface Prev {
  start: number;
  lower: string;
  category: Category;
}

const INITIALISM_RE = /^\p{L}(?:\.\p{L})+$/u;

/** The token that a period ends, without its opening quotes or brackets. */
function previousToken(p: Para, i: number): Prev {
  const t = p.text;
  // Not past the last cut, which may sit inside a token (`Tuesday.|Mr. Smith`).
  const floor = p.lastCut < i ? Math.max(p.start, p.lastCut) : p.start;
  let s = i;
  while (s > floor && i - s < TOKEN_LIMIT && !isSpace(t.charCodeAt(s - 1))) s--;
  if (i - s >= TOKEN_LIMIT) return { start: s, lower: '', category: 'regular' };
  while (s < i && (OPENERS.has(t[s]) || BULLETS.has(t[s]))) s++;
  const word = t.slice(s, i);
  const lower = word.toLowerCase();
  if (lower === 'cit' && CITATION_ABBREVIATIONS.has(`${tokenBefore(p, s)} cit`)) {
    return { start: s, lower, category: 'citation' };
  }
  return { start: s, lower, category: categorize(word, lower) };
}

/** The lower-case word (without its final period) that ends right before the white space before s. */
function tokenBefore(p: Para, s: number): string {
  let e = s;
  while (e > p.start && isSpace(p.text.charCodeAt(e - 1))) e--;
  if (e === s || p.text[e - 1] !== '.') return '';
  let b = e - 1;
  while (b > p.start && e - b < 8 && classAt(p.text, b - 1) !== 'other') b--;
  return p.text.slice(b, e - 1).toLowerCase();
}

function categorize(word: string, lower: string): Category {
  if (lower.length === 0) return 'regular';
  if (lower.endsWith('°')) return 'degree';
  // In capitals a listed word is an acronym (`DR.` for diabetic retinopathy) or a heading (`SEC. 12`):
  // it may end a sentence, but not before a number or a lower-case word.
  if (word.length > 1 && word === word.toUpperCase() && word !== lower && !word.includes('.')) {
    return NEVER_FINAL.has(lower) || ABBREVIATIONS.has(lower) ? 'abbrev' : 'regular';
  }
  const single = [...word].length === 1;
  if (single && classAt(word, 0) === 'upper') return 'upperInitial';
  if (CITATION_ABBREVIATIONS.has(lower)) return 'citation';
  if (NEVER_FINAL.has(lower)) return 'never';
  if (lower === 'a.m' || lower === 'p.m') return 'ampm';
  if (ABBREVIATIONS.has(lower)) return 'abbrev';
  if (INITIALISM_RE.test(word)) return 'initialism';
  // Inline math is masked as `x`, so a lone `x.` is a formula ending the sentence, not an abbreviation.
  if (single && classAt(word, 0) === 'lower' && word !== 'x') return 'lowerLetter';
  if (/^\d{1,2}$/.test(word)) return 'number';
  // Short tokens without a vowel are not words but abbreviations or units (`lr.`, `wd.`, `mg.`, `nr.`).
  if (/^[a-z]{1,4}$/.test(lower) && !/[aeiouyx]/.test(lower)) return 'abbrev';
  return 'regular';
}

function isStarter(word: string): boolean {
  return SENTENCE_STARTERS.has(word.toLowerCase());
}

function endsSentence(p: Para, prev: Prev, next: Next): boolean {
  const upper = next.kind === 'upper';
  switch (prev.category) {
    case 'never':
      return false;
    case 'abbrev':
      return upper && !(prev.lower === 'co' && next.word === 'KG') && !abbreviationFollows(p, next);
    case 'ampm':
      return upper && !opensWithTimePhrase(p, prev.start);
    case 'initialism':
      // Lower-case ones (`i.p.`, `s.e.m.`, `i.v.`) are units and statistics, never part of a name (`U.S. Army`).
      return upper && (isStarter(next.word) || p.text.startsWith(prev.lower, prev.start));
    case 'upperInitial':
      if (!upper || atSentenceStart(p, prev.start)) return false;
      return INITIAL_BREAKERS.has(next.word.toLowerCase()) || isLabel(p, prev.start);
    case 'lowerLetter':
      return upper && !atSentenceStart(p, prev.start);
    case 'degree':
      return upper;
    case 'citation':
      return upper && opensSentenceAfterCitation(p, next);
    case 'number':
      if (atSentenceStart(p, prev.start)) return false;
      return upper || next.kind === 'digit' || next.kind === 'mask';
    case 'regular':
      return upper || next.kind === 'digit' || next.kind === 'mask';
  }
}

/** `Proc. Natl. Acad. Sci.`, `J. Biol. Chem.`: an abbreviated journal title goes on with another abbreviation. */
function abbreviationFollows(p: Para, next: Next): boolean {
  const k = next.end ?? p.end;
  if (k >= p.end || p.text[k] !== '.') return false;
  const lower = next.word.toLowerCase();
  return ABBREVIATIONS.has(lower) || NEVER_FINAL.has(lower);
}

/**
 * After `et al.`, `ibid.`, `op. cit.`, `loc. cit.` a capitalised word is usually a name, a venue or a part
 * of the work (`et al. Nature 2019`, `op. cit. Chapter 4`, `ibid. Part II`): the sentence ends only before a
 * word that opens sentences (`It`, `The`, `However`) or a capitalised word followed by a lower-case one
 * that is not part of a name (`et al. Results show …`, but not `et al. Bergström and Lind …`).
 */
function opensSentenceAfterCitation(p: Para, next: Next): boolean {
  if (isStarter(next.word)) return true;
  if (REFERENCE_WORDS.has(next.word.toLowerCase())) return false;
  const k = next.end ?? p.end;
  if (k < p.end && p.text[k] === '.') return false; // another abbreviation: `Proc.`, `J.`
  if (k >= p.end || !isSpace(p.text.charCodeAt(k))) return false;
  const after = wordAt(p, skipSpaces(p, k));
  return after.kind === 'lower' && !NAME_JOINERS.has(after.word);
}

/** Whether the capital letter at s labels the lower-case word before it (`model B`) rather than a name. */
function isLabel(p: Para, s: number): boolean {
  let e = s;
  while (e > p.start && isSpace(p.text.charCodeAt(e - 1))) e--;
  let b = e;
  while (b > p.start && e - b <= 24 && classAt(p.text, b - 1) === 'lower') b--;
  if (b === e || e - b > 24 || (b > p.start && !isSpace(p.text.charCodeAt(b - 1)))) return false;
  return !BEFORE_INITIALS.has(p.text.slice(b, e));
}

/** `At 5 a.m. Mr. Smith …`: a sentence cannot be just an opening time phrase. */
function opensWithTimePhrase(p: Para, tokenStart: number): boolean {
  const s = sentenceContent(p);
  if (tokenStart < s || tokenStart - s > 40) return false;
  const words = p.text
    .slice(s, tokenStart)
    .split(/\s+/)
    .filter((w) => w.length > 0);
  return words.length >= 1 && words.length <= 2 && TIME_PREPOSITIONS.has(words[0].toLowerCase());
}

/** A period touching the next word: only `world.Today` (missing space) and `word.12 Next` (note marks) end. */
function periodInWord(p: Para, i: number): number {
  const cls = classAt(p.text, i + 1);
  if (cls === 'digit') return noteNumbers(p, i);
  if (cls !== 'upper') return -1;
  const before = classAt(p.text, i - 1);
  if (i === p.start || (before !== 'lower' && before !== 'digit')) return -1;
  if (!plainWordBefore(p, i) || !capitalisedWordAfter(p, i + 1)) return -1;
  return i + 1;
}

function plainWordBefore(p: Para, i: number): boolean {
  const min = Math.max(p.start, i - TOKEN_LIMIT);
  for (let k = i - 1; k >= min; k--) {
    const ch = p.text[k];
    if (isSpace(ch.charCodeAt(0))) return true;
    if ('.@/:_\\'.includes(ch)) return false;
  }
  return i - TOKEN_LIMIT < p.start;
}

/** `Today` in `world.Today is`, `Mr` in `Tuesday.Mr. Smith`, but not `Awesome` in `testurl.Awesome.com`. */
function capitalisedWordAfter(p: Para, k: number): boolean {
  let e = k + 1;
  while (e < p.end && e - k < 40 && classAt(p.text, e) === 'lower') e++;
  if (e === k + 1) return false;
  if (e >= p.end || isSpace(p.text.charCodeAt(e))) return true;
  if (!'.?!,;:'.includes(p.text[e])) return false;
  return e + 1 >= p.end || isSpace(p.text.charCodeAt(e + 1));
}

/**
 * Note numbers glued to the period: `consultation.11 12 Take …`, `(1987).1 According …`,
 * `tissues.14–19 In contrast …`, `et al.27 Gene …`.
 */
function noteNumbers(p: Para, i: number): number {
  const t = p.text;
  const before = i > p.start ? classAt(t, i - 1) : 'other';
  const letter = before === 'lower' || before === 'upper';
  if (!letter && t[i - 1] !== ')') return -1;
  if (letter && !allowsNote(previousToken(p, i))) return -1;
  const e = noteEnd(p, i + 1);
  if (e < 0 || !isSpace(t.charCodeAt(e))) return -1;
  return nextWord(p, skipSpaces(p, e)).kind === 'upper' ? e : -1;
}

function allowsNote(prev: Prev): boolean {
  return prev.category === 'regular' || prev.lower === 'al' || prev.lower === 'etc';
}

/** End of a list of note numbers (`11 12`, `14–19`, `13,14`, `8, 9, 10`) starting at k, or -1. */
function noteEnd(p: Para, k: number): number {
  let e = digitsEnd(p, k);
  while (e > 0 && e < p.end && e - k < 40) {
    let f = e;
    if (',–-'.includes(p.text[f])) f++;
    if (p.text[f] === ' ') f++;
    const g = f > e ? digitsEnd(p, f) : -1;
    if (g < 0) break;
    e = g;
  }
  return e;
}

/** End of a run of one to three digits starting at k, or -1. */
function digitsEnd(p: Para, k: number): number {
  let e = k;
  while (e < p.end && e - k < 4 && classAt(p.text, e) === 'digit') e++;
  return e > k && e - k <= 3 ? e : -1;
}

// ---------------------------------------------------------------------------------------------------------
// Enumerations: `1) first 2) second`, `a. one b. two`, `(i) … (ii) …`

interface Marker {
  start: number;
  end: number;
  form: string;
  atStart: boolean;
  /** Whether the item's first word is capitalised; the items of one list agree on it. */
  capital: boolean;
  readings: Array<[string, number]>;
}

interface Link {
  marker: Marker;
  value: number;
}

/**
 * Cuts before the items of enumerations. A run of markers counts when it starts a sentence and its values
 * go up by one; an item introduced by `,`, `;`, `:` or a conjunction stays in the sentence, so inline
 * enumerations in prose (`we (i) fit, and (ii) test`) are left alone.
 */
function listCuts(p: Para): number[] {
  const out: number[] = [];
  const chains = new Map<string, Link[]>();
  for (const m of p.markers) {
    for (const [kind, value] of m.readings) {
      const key = m.form + kind;
      const chain = chains.get(key);
      const last = chain?.[chain.length - 1];
      if (chain && last && value === last.value + 1 && continuesList(p, chain[0].marker, last.marker, m)) {
        chain.push({ marker: m, value });
      } else if (m.atStart || (value === 1 && chain !== undefined && chain.length >= 2)) {
        if (chain) emitChain(p, chain, out);
        chains.set(key, [{ marker: m, value }]);
      }
    }
  }
  for (const chain of chains.values()) emitChain(p, chain, out);
  return out.sort((a, b) => a - b);
}

/**
 * Whether m is the next item after last: its first word is capitalised like the first item's, and the item
 * in between holds words and no sentence end except at its close (else the list ended before m).
 */
function continuesList(p: Para, first: Marker, last: Marker, m: Marker): boolean {
  if (m.capital !== first.capital || skipSpaces(p, last.end) >= m.start) return false;
  let s = lowerBound(p.stops, last.end);
  for (let n = 0; s < p.stops.length && p.stops[s] < m.start; s++, n++) {
    if (n > 16) return false;
    if (endsSentenceInside(p, p.stops[s], m.start)) return false;
  }
  return true;
}

/** A terminal at i that plainly ends a sentence and is followed by more words before `to`. */
function endsSentenceInside(p: Para, i: number, to: number): boolean {
  const t = p.text;
  if ((FLAGS[t.charCodeAt(i)] & F_TERMINAL) === 0) return false;
  if (t[i] === '.' && previousToken(p, i).category !== 'regular') return false;
  let k = i + 1;
  while (k < to && k - i < 50 && (FLAGS[t.charCodeAt(k)] & (F_TERMINAL | F_SPACE) || CLOSERS.has(t[k]))) k++;
  return k < to && isSpace(t.charCodeAt(k - 1));
}

function lowerBound(a: number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function emitChain(p: Para, chain: Link[], out: number[]): void {
  if (chain.length < 2) return;
  chain.forEach((link, k) => {
    const m = link.marker;
    if (k === 0 || !continuesSentence(p, m.start)) out.push(bulletBefore(p, m.start));
    const itemEnd = k + 1 < chain.length ? chain[k + 1].marker.start : p.end;
    const line = lineEndOfItem(p, m.end, itemEnd);
    if (line >= 0) out.push(line);
  });
}

/** A list item without a terminal ends at its line break when a capitalised line follows. */
function lineEndOfItem(p: Para, from: number, to: number): number {
  // Bounded, as the last item of every run would otherwise scan to the end of the paragraph.
  const end = Math.min(to, from + ITEM_LINE_LIMIT);
  for (let k = from; k < end; k++) {
    const ch = p.text[k];
    if (TERMINALS.has(ch)) return -1;
    if (ch === '\n') {
      const n = skipSpaces(p, k);
      return n < to && classAt(p.text, n) === 'upper' ? k : -1;
    }
  }
  return -1;
}

/** Where an item begins: at its bullet when it has one (`• 9. The first item`). */
function bulletBefore(p: Para, s: number): number {
  let k = s;
  while (k > p.start && isSpace(p.text.charCodeAt(k - 1))) k--;
  return k > p.start && BULLETS.has(p.text[k - 1]) ? k - 1 : s;
}

function continuesSentence(p: Para, s: number): boolean {
  let k = s;
  while (k > p.start && isSpace(p.text.charCodeAt(k - 1))) k--;
  if (k === p.start) return false;
  if (',;:'.includes(p.text[k - 1])) return true;
  let w = k;
  while (w > p.start && k - w < 8 && !isSpace(p.text.charCodeAt(w - 1))) w--;
  return CONJUNCTIONS.has(p.text.slice(w, k).toLowerCase());
}

/** Records the marker whose `.` or `)` is at i, if any: its label is at most six characters back. */
function markerEndingAt(p: Para, i: number): void {
  const t = p.text;
  let s = i;
  if (t[i] === ')' && t[i - 1] === '.') s--;
  const labelEnd = s;
  while (s > p.start && labelEnd - s < 7 && FLAGS[t.charCodeAt(s - 1)] & F_LABEL) s--;
  if (s === labelEnd || labelEnd - s > 6) return;
  if (t[i] === ')' && t[s - 1] === '(') s--;
  if (s > p.start && (FLAGS[t.charCodeAt(s - 1)] & (F_SPACE | F_BULLET)) === 0) return;
  const last = p.markers[p.markers.length - 1];
  if (last && last.end > s) return;
  const m = parseMarker(p, s);
  if (m) p.markers.push(m);
}

function parseMarker(p: Para, i: number): Marker | undefined {
  const t = p.text;
  const paren = t[i] === '(';
  let k = paren ? i + 1 : i;
  const ls = k;
  while (k < p.end && k - ls < 7 && FLAGS[t.charCodeAt(k)] & F_LABEL) k++;
  const label = t.slice(ls, k);
  let form: string;
  if (label.length === 0 || label.length > 6) return undefined;
  if (paren) form = t[k] === ')' ? '()' : '';
  else if (t[k] === ')') form = ')';
  else if (t[k] === '.') form = t[k + 1] === ')' ? '.)' : '.';
  else form = '';
  if (!form) return undefined;
  k += form === '()' ? 1 : form.length;
  if (k >= p.end || !isSpace(t.charCodeAt(k)) || afterAbbreviation(p, i)) return undefined;
  const readings = readingsOf(label, form);
  if (readings.length === 0) return undefined;
  const capital = wordAt(p, skipSpaces(p, k)).kind === 'upper';
  return { start: i, end: k, form, atStart: startsSentence(p, i), capital, readings };
}

/** `Fig. 2.` and `Eq. (3)` are references, not list markers. */
function afterAbbreviation(p: Para, i: number): boolean {
  let k = i;
  while (k > p.start && isSpace(p.text.charCodeAt(k - 1))) k--;
  if (k === p.start || p.text[k - 1] !== '.') return false;
  const c = previousToken(p, k - 1).category;
  return c === 'never' || c === 'abbrev';
}

function startsSentence(p: Para, i: number): boolean {
  let k = i;
  while (k > p.start && isSpace(p.text.charCodeAt(k - 1))) k--;
  if (k === p.start || BULLETS.has(p.text[k - 1])) return true;
  while (k > p.start && CLOSERS.has(p.text[k - 1])) k--;
  if (k === p.start || !TERMINALS.has(p.text[k - 1])) return false;
  if (p.text[k - 1] !== '.') return true;
  const c = previousToken(p, k - 1).category;
  return c !== 'never' && c !== 'abbrev' && c !== 'initialism';
}

const ROMAN_RE = /^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$/;
const ROMAN_VALUES: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100, d: 500, m: 1000 };

function readingsOf(label: string, form: string): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  if (/^\d{1,2}$/.test(label)) return [['n', Number(label)]];
  if (/^\d/.test(label)) return out;
  const lowerCase = label === label.toLowerCase();
  // With a bare period, capitals are initials (`E. Smith`) and roman numerals are words (`vi.`).
  if (form === '.') return label.length === 1 && lowerCase ? [['a', label.charCodeAt(0) - 96]] : out;
  if (label.length === 1) out.push([lowerCase ? 'a' : 'A', label.toLowerCase().charCodeAt(0) - 96]);
  const roman = romanValue(label.toLowerCase());
  if (roman > 0 && (lowerCase || label === label.toUpperCase())) out.push([lowerCase ? 'r' : 'R', roman]);
  return out;
}

function romanValue(s: string): number {
  if (!ROMAN_RE.test(s)) return 0;
  let v = 0;
  for (let k = 0; k < s.length; k++) {
    const a = ROMAN_VALUES[s[k]];
    const b = ROMAN_VALUES[s[k + 1]] ?? 0;
    v += a < b ? -a : a;
  }
  return v;
}
