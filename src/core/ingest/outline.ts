// Turning a TextModel (LaTeX or Markdown) into sections and sentences, with section numbers.
import type { Heading, TextModel } from '../text/index.js';
import { parseInTextCitations } from '../bib/in-text.js';
import type { PaperAssembler } from './paper.js';
import type { SentenceSource } from './types.js';

export type Numbering = (heading: Heading, index: number) => { number: string | null; title: string };

/** Markdown-style numbering: a title such as '2.1 Setup' or '3. Results' gives number '2.1' / '3'. */
export const numberFromTitle: Numbering = (h) => {
  const m = /^((?:\d+|[A-Z])(?:\.\d+)*)\.?\s+(\S.*)$/.exec(h.title);
  if (m && !/^[A-Z]$/.test(m[1])) return { number: m[1], title: m[2] };
  if (m && /^[A-Z]$/.test(m[1]) && /^[A-Z]/.test(m[2]) && m[2].length > 2) return { number: m[1], title: m[2] };
  return { number: null, title: h.title };
};

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * LaTeX numbering: counts \part/\chapter, \section, \subsection … as LaTeX does (starred headings and levels deeper
 * than subsubsection are unnumbered; after \appendix the top level is lettered).
 */
export function latexNumbering(text: string): Numbering {
  const counters = [0, 0, 0, 0, 0, 0];
  const appendixAt = (() => {
    const m = /^[^%\n]*?\\appendix\b/m.exec(text);
    return m ? m.index + m[0].length : Infinity;
  })();
  let appendixSeen = false;
  let top: number | null = null;
  return (h) => {
    const src = text.slice(h.start, h.start + 40);
    const m = /^\\(part|chapter|section|subsection|subsubsection|paragraph|subparagraph)(\*?)/.exec(src);
    const starred = !m || m[2] === '*';
    if (starred || h.level > 3) return { number: null, title: h.title };
    if (top === null || h.level < top) top = h.level;
    if (h.start > appendixAt && !appendixSeen) {
      appendixSeen = true;
      counters[top] = 0;
    }
    counters[h.level]++;
    for (let i = h.level + 1; i < counters.length; i++) counters[i] = 0;
    const parts: string[] = [];
    for (let i = top; i <= h.level; i++) {
      parts.push(i === top && appendixSeen ? LETTERS[(counters[i] - 1) % 26] : String(counters[i]));
    }
    return { number: parts.join('.'), title: h.title };
  };
}

/**
 * Where a sentence's text begins in its source: a sentence's span can open with markup that renders as nothing (a
 * `\newcommand` line, a `\label`), so the first word of its clean text is looked for in the span.
 */
function visibleStart(s: { start: number; text: string; clean: string }): number {
  const word = /[\p{L}\p{N}]{2,}/u.exec(s.clean)?.[0];
  const at = word ? s.text.indexOf(word) : -1;
  if (at >= 0) return s.start + at;
  const lead = /^\s*/.exec(s.text)![0].length;
  return s.start + lead;
}

/**
 * Feed a TextModel's sentences into the assembler, opening a section at each heading; `elements` (sorted by their
 * offset in the model's text) are handed over in reading order, in the section their offset is in.
 */
export function assembleTextModel(
  model: TextModel,
  asm: PaperAssembler,
  numbering: Numbering,
  elements: readonly { start: number; element: Parameters<PaperAssembler['element']>[0] }[] = [],
  locate?: (start: number) => SentenceSource,
): void {
  const headings = model.headings();
  const numbered = headings.map((h, i) => ({ h, ...numbering(h, i) }));
  let hi = -1;
  let key = '';
  let next = 0;
  const open = (at: number, section: string | null) => {
    while (hi + 1 < headings.length && headings[hi + 1].start <= at) hi++;
    const inAbstract = section === 'Abstract' && (hi < 0 || headings[hi].title !== 'Abstract');
    const k = inAbstract ? 'abstract' : `h${hi}`;
    if (k !== key) {
      key = k;
      if (inAbstract) asm.section('Abstract', null, 1);
      else if (hi < 0) asm.section(section ?? '', null, 1);
      else asm.section(numbered[hi].title, numbered[hi].number, Math.max(headings[hi].level, 0));
    }
  };
  const flushElements = (before: number) => {
    for (; next < elements.length && elements[next].start < before; next++) {
      // Before the first heading an element opens no section of its own (a figure above the abstract).
      if (hi + 1 < headings.length && headings[hi + 1].start <= elements[next].start) open(elements[next].start, null);
      asm.element(elements[next].element);
    }
  };
  for (const s of model.sentences()) {
    flushElements(s.start);
    open(s.start, s.section);
    // The source, not the clean text: `\cite{key}` and `[@key]` render as nothing.
    asm.sentence(s.clean, null, locate?.(visibleStart(s)), parseInTextCitations(s.text));
  }
  flushElements(Infinity);
}
