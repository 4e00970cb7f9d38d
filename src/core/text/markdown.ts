// The sentence at a cursor, and all sentences, of a Markdown document.
import { splitAtCaptions } from './captions.js';
import { markdownPlain } from './markdown-inline.js';
import { markdownOutline, type MarkdownOutline } from './markdown-outline.js';
import { unitSentences } from './unit-text.js';
import { MAX_UNIT_REACH, lastStartingAtOrBefore, paragraphAround, rangeHolding, type Range } from './ranges.js';
import type { Sentence } from './types.js';

export { markdownOutline, type MarkdownOutline };

export function markdownSentenceAt(text: string, outline: MarkdownOutline, offset: number): Sentence | null {
  if (rangeHolding(outline.blocks, offset) || inHtmlComment(text, offset)) return null;
  const i = lastStartingAtOrBefore(outline.blocks, offset);
  const lo = Math.max(i >= 0 ? outline.blocks[i].end : 0, offset - MAX_UNIT_REACH);
  const next = outline.blocks[i + 1];
  const hi = Math.min(next ? next.start : text.length, offset + MAX_UNIT_REACH);
  const unit = paragraphAround(text, offset, lo, hi);
  // A caption line is read apart from the body text around it (captions.ts), as markdownSentences reads it.
  const [a, b] = splitAtCaptions(text, unit.start, unit.end).find(([, e]) => offset <= e) ?? [unit.start, unit.end];
  const found = unitSentences(markdownPlain(text, a, b), text).find((s) => s.start <= offset && offset <= s.end);
  return found ? toSentence(text, outline, found) : null;
}

export function markdownSentences(text: string, outline: MarkdownOutline): Sentence[] {
  const out: Sentence[] = [];
  let from = 0;
  const gaps: Range[] = [];
  for (const block of outline.blocks) {
    if (block.start > from) gaps.push({ start: from, end: block.start });
    from = Math.max(from, block.end);
  }
  if (from < text.length) gaps.push({ start: from, end: text.length });
  for (const gap of gaps) {
    for (const [a, b] of splitAtCaptions(text, gap.start, gap.end))
      for (const s of unitSentences(markdownPlain(text, a, b), text)) out.push(toSentence(text, outline, s));
  }
  return out;
}

function toSentence(text: string, outline: MarkdownOutline, s: { start: number; end: number; clean: string }): Sentence {
  const h = lastStartingAtOrBefore(outline.headings, s.start);
  return {
    start: s.start,
    end: s.end,
    text: text.slice(s.start, s.end),
    clean: s.clean,
    section: h >= 0 ? outline.headings[h].title : null,
  };
}

/** True inside `<!-- … -->` that opened on the cursor's line or shortly before. */
function inHtmlComment(text: string, offset: number): boolean {
  const from = Math.max(0, offset - MAX_UNIT_REACH);
  const found = text.slice(from, offset + 4).lastIndexOf('<!--');
  if (found < 0) return false;
  const open = from + found;
  const close = text.indexOf('-->', open + 4);
  return close < 0 || offset < close + 3;
}
