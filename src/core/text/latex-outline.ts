// One pass over a LaTeX document that finds what per-cursor lookups must not rescan: where the body starts,
// the non-prose blocks (display math, floats, code, headings), the prose islands inside them (captions,
// footnotes, the abstract) and the headings.
import type { Heading } from './types.js';
import type { Range } from './ranges.js';
import { latexCleanText } from './latex-inline.js';
import { HEADING_LEVELS, NON_PROSE_ENVS, VERBATIM_ENVS } from './latex-symbols.js';

export interface Island extends Range {
  kind: 'caption' | 'footnote' | 'abstract';
}

export interface LatexOutline {
  /** First offset of the body (after `\begin{document}`), 0 for a file without one (an `\input` part). */
  bodyStart: number;
  /** Offset of `\end{document}`, or the text's length. */
  bodyEnd: number;
  /** Non-prose regions of the body, sorted and disjoint; headings are blocks too. */
  blocks: Range[];
  /** Prose units inside blocks or the preamble, sorted by start (footnotes may nest in captions). */
  islands: Island[];
  headings: Heading[];
  /** Clean `\title{…}`, if the document has one. */
  title: string | null;
}

// Only the commands the outline needs; the regex engine skips all others without a callback. Control
// symbols (`\%`, `\\`, `\[`) are matched so that an escaped `%` never starts a comment.
const TOKEN =
  /%|\$\$|\\(?:(begin|end|caption|captionof|title|footnote|footnotetext|part|chapter|section|subsection|subsubsection|paragraph|subparagraph|bibliography|bibliographystyle|printbibliography|appendix|maketitle|tableofcontents|input|include)(?![a-zA-Z@])\*?|[^a-zA-Z@])/g;
/**
 * Commands that print no prose of their own and stand between paragraphs: blocks, so that a sentence written
 * right above `\bibliography{refs}` ends before it (a citation placed at its end must not land after it).
 */
const STRUCTURAL = new Set([
  'bibliography',
  'bibliographystyle',
  'printbibliography',
  'appendix',
  'maketitle',
  'tableofcontents',
  'input',
  'include',
]);
const ENV_NAME = /\s*\{([^{}\n]{1,40})\}/y;

export function latexOutline(text: string): LatexOutline {
  return new OutlineScanner(text).scan();
}

class OutlineScanner {
  private readonly outline: LatexOutline;
  /** The float or math environment being skipped, with its nesting depth. */
  private block: { name: string; start: number; depth: number } | null = null;
  private abstractStart = -1;

  constructor(private readonly text: string) {
    this.outline = {
      bodyStart: findBodyStart(text),
      bodyEnd: text.length,
      blocks: [],
      islands: [],
      headings: [],
      title: null,
    };
  }

  scan(): LatexOutline {
    const { text } = this;
    TOKEN.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = TOKEN.exec(text))) {
      const k = m.index;
      const next = this.token(m[0], m[1], k);
      if (next < 0) break;
      TOKEN.lastIndex = Math.max(next, k + 1);
    }
    if (this.block) this.closeBlock(text.length);
    this.outline.islands.sort((a, b) => a.start - b.start);
    this.outline.blocks = outermost(this.outline.blocks);
    return this.outline;
  }

  /** Handles one token; returns where the scan goes on, or -1 to stop. */
  private token(tok: string, name: string | undefined, k: number): number {
    const { text } = this;
    if (tok === '%') {
      const nl = text.indexOf('\n', k);
      return nl < 0 ? text.length : nl;
    }
    const inBody = k >= this.outline.bodyStart;
    if (tok === '$$' || tok === '\\[') {
      if (!inBody || this.block) return k + tok.length;
      const close = text.indexOf(tok === '$$' ? '$$' : '\\]', k + 2);
      if (close < 0) return k + 2;
      this.outline.blocks.push({ start: k, end: close + 2 });
      return close + 2;
    }
    if (!name) return k + tok.length;
    if (name === 'begin' || name === 'end') return this.environment(name, k + tok.length, k, inBody);
    if (name === 'caption' || name === 'captionof') return this.caption(name, k + tok.length);
    if (name === 'title' && this.outline.title === null) {
      const arg = this.group(this.skipOptional(k + tok.length));
      if (arg) this.outline.title = latexCleanText(text.slice(arg.start + 1, arg.end - 1));
      return k + tok.length;
    }
    if (!inBody || this.block) return k + tok.length;
    if (name === 'footnote' || name === 'footnotetext') {
      const arg = this.group(this.skipOptional(k + tok.length));
      if (arg) this.outline.islands.push({ start: arg.start + 1, end: arg.end - 1, kind: 'footnote' });
      return k + tok.length;
    }
    if (name in HEADING_LEVELS) return this.heading(name, k, k + tok.length);
    if (STRUCTURAL.has(name)) return this.structural(k, k + tok.length);
    return k + tok.length;
  }

  private environment(kind: 'begin' | 'end', p: number, k: number, inBody: boolean): number {
    ENV_NAME.lastIndex = p;
    const m = ENV_NAME.exec(this.text);
    if (!m) return p;
    const env = m[1].trim();
    const after = ENV_NAME.lastIndex;
    if (kind === 'begin' && VERBATIM_ENVS.has(env)) {
      const close = this.text.indexOf(`\\end{${env}}`, after);
      const end = close < 0 ? this.text.length : close + env.length + 6;
      if (inBody && !this.block) this.outline.blocks.push({ start: k, end });
      return end;
    }
    if (env === 'document') {
      if (kind === 'end' && k >= this.outline.bodyStart) {
        this.outline.bodyEnd = k;
        return -1;
      }
      return after;
    }
    if (env === 'abstract') return this.abstract(kind, k, after, inBody);
    if (!inBody || !NON_PROSE_ENVS.has(env)) return after;
    if (!this.block) {
      if (kind === 'begin') this.block = { name: env, start: k, depth: 1 };
    } else if (this.block.name === env) {
      this.block.depth += kind === 'begin' ? 1 : -1;
      if (this.block.depth === 0) this.closeBlock(after);
    }
    return after;
  }

  /** The abstract is an island wherever it is; in the body it is also a block, so it is read once. */
  private abstract(kind: 'begin' | 'end', k: number, after: number, inBody: boolean): number {
    if (kind === 'begin') this.abstractStart = after;
    else if (this.abstractStart >= 0) {
      this.outline.islands.push({ start: this.abstractStart, end: k, kind: 'abstract' });
      if (inBody && !this.block) this.outline.blocks.push({ start: this.abstractStart, end: k });
      this.abstractStart = -1;
    }
    return after;
  }

  private closeBlock(end: number): void {
    if (this.block) this.outline.blocks.push({ start: this.block.start, end });
    this.block = null;
  }

  private caption(name: string, p: number): number {
    let q = this.skipOptional(p);
    if (name === 'captionof') q = this.group(q)?.end ?? q;
    const arg = this.group(this.skipOptional(q));
    if (!arg) return p;
    if (this.block || p >= this.outline.bodyStart) {
      this.outline.islands.push({ start: arg.start + 1, end: arg.end - 1, kind: 'caption' });
    }
    return arg.start + 1;
  }

  private heading(name: string, k: number, p: number): number {
    const arg = this.group(this.skipOptional(p));
    if (!arg) return p;
    this.outline.headings.push({
      start: k,
      end: arg.end,
      level: HEADING_LEVELS[name],
      title: latexCleanText(this.text.slice(arg.start + 1, arg.end - 1)),
    });
    this.outline.blocks.push({ start: k, end: arg.end });
    return arg.end;
  }

  /** A structural command with its optional and braced arguments, as a block. */
  private structural(k: number, p: number): number {
    const end = this.group(this.skipOptional(p))?.end ?? this.skipOptional(p);
    this.outline.blocks.push({ start: k, end });
    return end;
  }

  private skipOptional(p: number): number {
    let q = p;
    while (/\s/.test(this.text[q] ?? '')) q++;
    if (this.text[q] !== '[') return p;
    const close = this.text.indexOf(']', q);
    return close < 0 || close - q > 500 ? p : close + 1;
  }

  /** The balanced `{…}` group starting at p (after spaces), or undefined. */
  private group(p: number): Range | undefined {
    const { text } = this;
    let q = p;
    while (q < text.length && /\s/.test(text[q])) q++;
    if (text[q] !== '{') return undefined;
    let depth = 0;
    const stop = Math.min(text.length, q + 20000);
    for (let j = q; j < stop; j++) {
      const ch = text[j];
      if (ch === '\\') j++;
      else if (ch === '{') depth++;
      else if (ch === '}' && --depth === 0) return { start: q, end: j + 1 };
    }
    return undefined;
  }
}

/** Offset after the first uncommented `\begin{document}`, or 0. */
function findBodyStart(text: string): number {
  const needle = '\\begin{document}';
  for (let k = text.indexOf(needle); k >= 0; k = text.indexOf(needle, k + 1)) {
    const lineStart = text.lastIndexOf('\n', k) + 1;
    if (!/(^|[^\\])%/.test(text.slice(lineStart, k))) return k + needle.length;
  }
  return 0;
}

/** Sorted by start, with ranges that lie inside another dropped (a `$$` block inside an abstract). */
function outermost(ranges: Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Range[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start < last.end) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}
