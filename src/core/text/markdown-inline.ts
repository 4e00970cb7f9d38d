// Reads the Markdown source of one prose unit (paragraph, list item, footnote) into clean text with a
// source map. Emphasis markers, link targets, images, HTML tags and Pandoc citations render as nothing;
// code spans and math keep their text but are never split inside.
import { PlainBuilder, type Plain } from './unit-text.js';
import { pushInlineMath } from './latex-inline.js';

const ORDINARY = /[^\\`$[\]!<*_~&@\n\r]+/y;
const LINE_MARKERS = /[ \t]*(?:>[ \t]?)*[ \t]*(?:([-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?|(\[\^[^\]\s]+\]:)[ \t]*)?/y;
const CITATION = /^\s*(?:[^\]@]*?[\s;(-])?-?@[\p{L}\p{N}_]/u;
/** `[12]`, `[3, 4]`, `[5–7]`, `[1; 2, 9-11]`: numbered citations as Markdown papers write them. */
const NUMERIC_CITATION = /^\s*\d{1,3}(?:\s*[,;\u2013-]\s*\d{1,3})*\s*$/;
const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
};
const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

export function markdownPlain(src: string, start: number, end: number): Plain {
  const out = new PlainBuilder();
  const reader = new MarkdownReader(src, out);
  reader.read(reader.lineMarkers(start, end), end);
  return out.build();
}

export function markdownCleanText(fragment: string): string {
  return markdownPlain(fragment, 0, fragment.length).clean.replace(/\s+/g, ' ').trim();
}

class MarkdownReader {
  constructor(
    private readonly src: string,
    private readonly out: PlainBuilder,
  ) {}

  read(start: number, end: number): void {
    let i = start;
    while (i < end) {
      ORDINARY.lastIndex = i;
      if (ORDINARY.test(this.src)) {
        const stop = Math.min(ORDINARY.lastIndex, end);
        this.out.pushSource(this.src, i, stop);
        i = stop;
        continue;
      }
      i = Math.max(this.special(i, end), i + 1);
    }
  }

  /** Skips a line's block quote, list or footnote-definition markers; a list item starts a new unit. */
  lineMarkers(p: number, end: number): number {
    LINE_MARKERS.lastIndex = p;
    const m = LINE_MARKERS.exec(this.src);
    if (!m || m.index !== p) return p;
    if (m[1] || m[2]) this.out.hardBreak(p);
    return Math.min(LINE_MARKERS.lastIndex, end);
  }

  private special(i: number, end: number): number {
    const { src, out } = this;
    const c = src[i];
    switch (c) {
      case '\n':
      case '\r':
        return this.newline(i, end);
      case '\\':
        return this.escape(i, end);
      case '`':
        return this.codeSpan(i, end);
      case '$':
        return this.math(i, end);
      case '[':
        return this.bracket(i, end);
      case '!':
        if (src[i + 1] === '[') return this.image(i, end);
        out.push('!', i, i + 1);
        return i + 1;
      case '<':
        return this.angle(i, end);
      case '&':
        return this.entity(i, end);
      case '@':
        return this.bareCitation(i, end);
      case '*':
      case '_':
      case '~':
        return this.emphasis(i, end);
      default:
        out.push(c, i, i + 1);
        return i + 1;
    }
  }

  private newline(i: number, end: number): number {
    let j = i + 1;
    let lines = this.src[i] === '\n' ? 1 : 0;
    while (j < end && /[ \t\r\n]/.test(this.src[j])) {
      if (this.src[j] === '\n') lines++;
      j++;
    }
    if (lines >= 2) this.out.hardBreak(i);
    else this.out.push(' ', i, i + 1);
    const lineStart = this.src.lastIndexOf('\n', j - 1) + 1;
    return j < end ? this.lineMarkers(Math.max(lineStart, i + 1), end) : j;
  }

  private escape(i: number, end: number): number {
    const next = this.src[i + 1];
    if (next === '(' || next === '[') {
      const close = this.src.indexOf(next === '(' ? '\\)' : '\\]', i + 2);
      if (close >= 0 && close + 2 <= end) {
        this.pushMath(this.src.slice(i + 2, close), i, close + 2, i + 2);
        return close + 2;
      }
    }
    if (next === '\n' || next === undefined) {
      this.out.push(' ', i, i + 1);
      return i + 1;
    }
    this.out.push(next, i, Math.min(i + 2, end));
    return i + 2;
  }

  private codeSpan(i: number, end: number): number {
    let n = 0;
    while (this.src[i + n] === '`') n++;
    const fence = '`'.repeat(n);
    let close = this.src.indexOf(fence, i + n);
    while (close >= 0 && this.src[close + n] === '`') close = this.src.indexOf(fence, close + n + 1);
    if (close < 0 || close + n > end) {
      this.out.push(fence, i, i + n);
      return i + n;
    }
    this.out.push(this.src.slice(i + n, close).trim(), i, close + n, true);
    return close + n;
  }

  /** Pandoc's rule: `$x$` is math when the opening `$` has no space after it and the closing none before. */
  private math(i: number, end: number): number {
    const { src } = this;
    const display = src[i + 1] === '$';
    const open = display ? 2 : 1;
    if (!display && /\s/.test(src[i + 1] ?? ' ')) return this.literal('$', i);
    let close = src.indexOf(display ? '$$' : '$', i + open);
    while (!display && close >= 0 && close < end && (src[close - 1] === '\\' || /\s/.test(src[close - 1]))) {
      close = src.indexOf('$', close + 1);
    }
    if (close < 0 || close + open > end || (!display && /\d/.test(src[close + 1] ?? ''))) return this.literal('$', i);
    this.pushMath(src.slice(i + open, close), i, close + open, i + open);
    return close + open;
  }

  private pushMath(tex: string, a: number, b: number, texStart: number): void {
    pushInlineMath(this.out, tex, a, b, texStart);
  }

  private literal(text: string, i: number): number {
    this.out.push(text, i, i + text.length);
    return i + text.length;
  }

  /** `[text](url)` and `[text][ref]` keep their text; `[@key]` citations and `[^note]` marks are silent. */
  private bracket(i: number, end: number): number {
    const close = this.matching(i, '[', ']', end);
    if (close < 0) return this.literal('[', i);
    const inner = this.src.slice(i + 1, close);
    if (inner.startsWith('^') || CITATION.test(inner)) {
      this.out.markSilent(i, close + 1);
      return close + 1;
    }
    const after = this.linkTarget(close + 1, end);
    if (after === close + 1 && this.src[close + 1] !== '[' && NUMERIC_CITATION.test(inner)) {
      // `improved by [12]`: a numeric citation, silent like `[@key]` (its number alone would read as a quantity).
      this.out.markSilent(i, close + 1);
      return close + 1;
    }
    if (after === close + 1 && this.src[close + 1] !== '[') {
      this.read(i + 1, close); // plain brackets: keep the words, drop the brackets
      return close + 1;
    }
    this.read(i + 1, close);
    return after;
  }

  /** Index after a link's `(url)` or `[ref]` at p, or p when there is none. */
  private linkTarget(p: number, end: number): number {
    const open = this.src[p];
    if (open !== '(' && open !== '[') return p;
    const close = this.matching(p, open, open === '(' ? ')' : ']', end);
    return close < 0 ? p : close + 1;
  }

  private image(i: number, end: number): number {
    const close = this.matching(i + 1, '[', ']', end);
    if (close < 0) return this.literal('!', i);
    return this.linkTarget(close + 1, end);
  }

  private matching(p: number, open: string, close: string, end: number): number {
    let depth = 0;
    const stop = Math.min(end, p + 2000);
    for (let j = p; j < stop; j++) {
      const ch = this.src[j];
      if (ch === '\\') j++;
      else if (ch === open) depth++;
      else if (ch === close && --depth === 0) return j;
      else if (ch === '\n' && /^\n[ \t]*\n/.test(this.src.slice(j, j + 40))) return -1;
    }
    return -1;
  }

  /** Autolinks keep their address; HTML tags and comments render as nothing. */
  private angle(i: number, end: number): number {
    const { src } = this;
    if (src.startsWith('<!--', i)) {
      const close = src.indexOf('-->', i + 4);
      return close < 0 || close + 3 > end ? end : close + 3;
    }
    const m = /^<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\s<>]*|[^\s@<>]+@[^\s@<>]+)>|^<\/?[a-zA-Z][^<>\n]*>/.exec(
      src.slice(i, Math.min(end, i + 500)),
    );
    if (!m) return this.literal('<', i);
    if (m[1]) this.out.push(m[1], i, i + m[0].length, true);
    return i + m[0].length;
  }

  private entity(i: number, end: number): number {
    const m = /^&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/.exec(this.src.slice(i, Math.min(end, i + 12)));
    if (!m) return this.literal('&', i);
    const name = m[1];
    let text = ENTITIES[name];
    if (name.startsWith('#')) {
      const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      text = code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    if (text === undefined) return this.literal('&', i);
    this.out.push(text, i, i + m[0].length);
    return i + m[0].length;
  }

  /** Pandoc's in-text citation `@key` (not an e-mail address) renders as nothing. */
  private bareCitation(i: number, end: number): number {
    if (isWordChar(this.src[i - 1])) return this.literal('@', i);
    const m = /^@[\p{L}\p{N}_](?:[\p{L}\p{N}_:.#$%&+?<>~/-]*[\p{L}\p{N}_])?/u.exec(this.src.slice(i, Math.min(end, i + 200)));
    if (!m) return this.literal('@', i);
    this.out.markSilent(i, i + m[0].length);
    return i + m[0].length;
  }

  /** Emphasis and strike-through markers go; `snake_case` and a lone `*` between spaces stay. */
  private emphasis(i: number, end: number): number {
    const c = this.src[i];
    let j = i;
    while (j < end && this.src[j] === c) j++;
    const before = this.src[i - 1];
    const after = this.src[j];
    const intraword = isWordChar(before) && isWordChar(after);
    const spaced = (before === undefined || /\s/.test(before)) && (after === undefined || /\s/.test(after));
    if ((c === '_' && intraword) || spaced || (c === '~' && j - i === 1)) this.out.push(this.src.slice(i, j), i, j);
    return j;
  }
}
