// Plain text: every character is prose; the splitter's spans are the sentences, as they are.
import { splitSentences } from './split.js';
import { MAX_UNIT_REACH, paragraphAround } from './ranges.js';
import type { Sentence } from './types.js';

function read(text: string, start: number, end: number): Sentence[] {
  return splitSentences(text.slice(start, end)).map((span) => {
    const s = start + span.start;
    const e = start + span.end;
    const slice = text.slice(s, e);
    return { start: s, end: e, text: slice, clean: slice.replace(/\s+/g, ' ').trim(), section: null };
  });
}

export function plainSentenceAt(text: string, offset: number): Sentence | null {
  const lo = Math.max(0, offset - MAX_UNIT_REACH);
  const unit = paragraphAround(text, offset, lo, Math.min(text.length, offset + MAX_UNIT_REACH));
  return read(text, unit.start, unit.end).find((s) => s.start <= offset && offset <= s.end) ?? null;
}

export function plainSentences(text: string): Sentence[] {
  return read(text, 0, text.length);
}
