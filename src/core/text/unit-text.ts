import { CITATION_ABBREVIATIONS, NEVER_FINAL } from './abbreviations.js';
import { splitSentences } from './split.js';

/**
 * The prose of one unit (a paragraph, caption, footnote, list item) with markup removed, and a map from
 * every clean character back to the source range that produced it.
 *
 * `mask` has the same length as `clean`; it is what the sentence splitter reads. Inline math and code keep
 * their text in `clean` but are masked as `x` runs, so a period inside them never ends a sentence.
 */
export interface Plain {
  clean: string;
  mask: string;
  from: number[];
  to: number[];
  /** Source ranges that produced no clean text but belong to the sentence they touch (`\cite{…}`, `[@key]`). */
  silent: Array<[number, number]>;
}

/** A sentence of a unit: its source span and its clean text. */
export interface UnitSentence {
  start: number;
  end: number;
  clean: string;
}

const CLOSING_PUNCTUATION = '.,;:!?)';

/** Accumulates clean text and its source map while a unit's markup is read left to right. */
export class PlainBuilder {
  private readonly clean: string[] = [];
  private readonly mask: string[] = [];
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  private readonly silent: Array<[number, number]> = [];
  /** Set after a dropped citation that follows a sentence's end: the next letter may start a sentence. */
  private capitalizeNext = false;

  /** Appends text produced by source [srcFrom, srcTo); white space collapses into one space. */
  push(text: string, srcFrom: number, srcTo: number, masked = false): void {
    for (let i = 0; i < text.length; i++) {
      let ch = text[i];
      if (ch === '\n' || ch === '\t' || ch === '\r' || ch === '\f' || ch === '\v' || ch === '\u00a0') ch = ' ';
      if (ch === ' ' && this.lastIsSpace()) continue;
      // a dropped citation or reference leaves `word .`: the space before punctuation goes
      if (CLOSING_PUNCTUATION.includes(ch) && this.clean[this.clean.length - 1] === ' ') this.pop();
      let maskCh = masked && ch !== ' ' ? 'x' : ch;
      if (this.capitalizeNext && ch !== ' ') {
        // `It holds. \citet{x} show …`: the splitter must see a capital where the citation stood
        maskCh = maskCh.toUpperCase();
        this.capitalizeNext = false;
      }
      this.append(ch, maskCh, srcFrom, srcTo);
    }
  }

  /** Appends source [a, b) as it is, each character mapped to itself. */
  pushSource(source: string, a: number, b: number): void {
    for (let i = a; i < b; i++) this.push(source[i], i, i + 1);
  }

  /** A boundary no sentence crosses: a blank line for the splitter, never part of a sentence. */
  hardBreak(at: number): void {
    while (this.clean[this.clean.length - 1] === ' ') this.pop();
    if (this.lastIsSpace()) return;
    this.append('\n', '\n', at, at);
    this.append('\n', '\n', at, at);
  }

  /** Records source that renders as nothing but belongs to the neighbouring sentence. */
  markSilent(srcFrom: number, srcTo: number): void {
    this.silent.push([srcFrom, srcTo]);
    const last = this.clean[this.clean.length - 1] === ' ' ? this.clean[this.clean.length - 2] : undefined;
    if (last !== undefined && '.!?'.includes(last) && !this.afterCitingAbbreviation()) this.capitalizeNext = true;
  }

  /**
   * A placeholder for text the source prints but the reader does not know (a textual citation's authors): after a
   * sentence's end it opens the next sentence, as the names would.
   */
  pushPlaceholder(text: string, srcFrom: number, srcTo: number): void {
    const last = this.clean[this.clean.length - 1] === ' ' ? this.clean[this.clean.length - 2] : undefined;
    if (last !== undefined && '.!?'.includes(last) && !this.afterCitingAbbreviation()) this.capitalizeNext = true;
    this.push(text, srcFrom, srcTo, true);
  }

  /** `Smith et al.~\cite{x} show`, `cf.~\cite{x}`: the period ends an abbreviation, not the sentence. */
  private afterCitingAbbreviation(): boolean {
    let e = this.clean.length - 1;
    while (e >= 0 && this.clean[e] === ' ') e--;
    if (this.clean[e] !== '.') return false;
    let b = e;
    while (b > 0 && e - b < 12 && /[\p{L}.]/u.test(this.clean[b - 1])) b--;
    const word = this.clean.slice(b, e).join('').toLowerCase();
    return CITATION_ABBREVIATIONS.has(word) || NEVER_FINAL.has(word);
  }

  /** True at the start and after a space or a break, where another space would add nothing. */
  private lastIsSpace(): boolean {
    const last = this.clean[this.clean.length - 1];
    return last === undefined || last === ' ' || last === '\n';
  }

  private append(ch: string, maskCh: string, from: number, to: number): void {
    this.clean.push(ch);
    this.mask.push(maskCh);
    this.from.push(from);
    this.to.push(to);
  }

  private pop(): void {
    this.clean.pop();
    this.mask.pop();
    this.from.pop();
    this.to.pop();
  }

  build(): Plain {
    return { clean: this.clean.join(''), mask: this.mask.join(''), from: this.from, to: this.to, silent: this.silent };
  }
}

/**
 * Splits a unit's prose into sentences and maps each back to a source span in `source`. A silent range (a
 * citation) right after a sentence joins it (`elements.\cite{x}`, or a cite ending the line); one that
 * opens the next sentence on the same line joins that one (`\citet{x} show that`).
 */
export function unitSentences(plain: Plain, source: string): UnitSentence[] {
  const spans = splitSentences(plain.mask);
  const out: UnitSentence[] = [];
  for (const span of spans) {
    const clean = plain.clean.slice(span.start, span.end).trim();
    if (!/[\p{L}\p{N}]/u.test(clean)) continue;
    out.push({ start: plain.from[span.start], end: plain.to[span.end - 1], clean });
  }
  if (plain.silent.length && out.length) attachSilent(out, plain.silent, source);
  return out;
}

const blank = (s: string) => /^\s*$/.test(s);

function attachSilent(sentences: UnitSentence[], silent: Array<[number, number]>, source: string): void {
  const ranges = [...silent].sort((x, y) => x[0] - y[0]);
  let i = 0;
  for (const [a, b] of ranges) {
    while (i + 1 < sentences.length && sentences[i + 1].start <= a) i++;
    const prev = sentences[i];
    if (prev.start <= a && b <= prev.end) continue;
    const next = prev.start > a ? prev : sentences[i + 1];
    const before = prev.start <= a ? prev : undefined;
    const joinsBefore =
      before &&
      (a === before.end ||
        (blank(source.slice(before.end, a)) &&
          !/\n\s*\n/.test(source.slice(before.end, a)) &&
          (!next || /\n/.test(source.slice(b, next.start)))));
    if (joinsBefore) before.end = b;
    else if (next && b <= next.start && blank(source.slice(b, next.start))) next.start = a;
  }
}
