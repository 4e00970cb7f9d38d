// The sentence at a cursor, and all sentences, of a LaTeX document.
import { latexPlain } from './latex-inline.js';
import { latexOutline, type Island, type LatexOutline } from './latex-outline.js';
import { unitSentences } from './unit-text.js';
import {
  MAX_UNIT_REACH,
  innermostHolding,
  lastStartingAtOrBefore,
  paragraphAround,
  prevNewline,
  rangeHolding,
  type Range,
} from './ranges.js';
import type { Sentence } from './types.js';

export { latexOutline, type LatexOutline };

export function latexSentenceAt(text: string, outline: LatexOutline, offset: number): Sentence | null {
  if (inComment(text, offset)) return null;
  const unit = unitAt(text, outline, offset);
  if (!unit) return null;
  const found = unitSentences(latexPlain(text, unit.start, unit.end), text).find((s) => s.start <= offset && offset <= s.end);
  return found ? toSentence(text, outline, found, unit) : null;
}

export function latexSentences(text: string, outline: LatexOutline): Sentence[] {
  const out: Sentence[] = [];
  for (const unit of allUnits(outline)) {
    for (const s of unitSentences(latexPlain(text, unit.start, unit.end), text)) {
      out.push(toSentence(text, outline, s, unit));
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The prose unit holding offset: an island (caption, footnote, abstract) or a body paragraph. */
function unitAt(text: string, outline: LatexOutline, offset: number): (Range & { island?: Island }) | null {
  const island = innermostHolding(outline.islands, offset);
  if (island) return { start: island.start, end: island.end, island };
  if (offset < outline.bodyStart || offset > outline.bodyEnd) return null;
  if (rangeHolding(outline.blocks, offset)) return null;
  const i = lastStartingAtOrBefore(outline.blocks, offset);
  const lo = Math.max(outline.bodyStart, i >= 0 ? outline.blocks[i].end : 0, offset - MAX_UNIT_REACH);
  const nextBlock = outline.blocks[i + 1];
  const hi = Math.min(outline.bodyEnd, nextBlock ? nextBlock.start : text.length, offset + MAX_UNIT_REACH);
  return paragraphAround(text, offset, lo, hi);
}

/** Every prose unit in document order: the body between blocks, split at blank lines, and the islands. */
function* allUnits(outline: LatexOutline): Generator<Range & { island?: Island }> {
  let from = outline.bodyStart;
  const gaps: Range[] = [];
  for (const block of outline.blocks) {
    if (block.start > from) gaps.push({ start: from, end: Math.min(block.start, outline.bodyEnd) });
    from = Math.max(from, block.end);
  }
  if (from < outline.bodyEnd) gaps.push({ start: from, end: outline.bodyEnd });
  for (const gap of gaps) {
    if (gap.end > gap.start) yield gap; // the reader turns blank lines into unit breaks
  }
  for (const island of outline.islands) yield { start: island.start, end: island.end, island };
}

function toSentence(
  text: string,
  outline: LatexOutline,
  s: { start: number; end: number; clean: string },
  unit: { island?: Island },
): Sentence {
  return {
    start: s.start,
    end: s.end,
    text: text.slice(s.start, s.end),
    clean: s.clean,
    section: unit.island?.kind === 'abstract' ? 'Abstract' : sectionAt(outline, s.start),
  };
}

export function sectionAt(outline: LatexOutline, offset: number): string | null {
  const i = lastStartingAtOrBefore(outline.headings, offset);
  return i >= 0 ? outline.headings[i].title : null;
}

/** True when an unescaped `%` comes before offset on its line. */
function inComment(text: string, offset: number): boolean {
  const lo = Math.max(0, offset - MAX_UNIT_REACH);
  const nl = prevNewline(text, offset - 1, lo);
  const lineStart = nl < 0 ? lo : nl + 1;
  for (let i = lineStart; i < offset; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '%') return true;
  }
  return false;
}
