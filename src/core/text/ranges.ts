/** How far a lookup reads around the cursor when no blank line comes first (a file that is one huge line). */
export const MAX_UNIT_REACH = 8000;

/** A half-open range of source offsets. */
export interface Range {
  start: number;
  end: number;
}

/** Index of the last range (sorted by start) whose start is ≤ offset, or -1. */
export function lastStartingAtOrBefore(ranges: readonly Range[], offset: number): number {
  let lo = 0;
  let hi = ranges.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid].start <= offset) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The range of a sorted, non-overlapping list that holds offset (start ≤ offset < end), if any. */
export function rangeHolding<T extends Range>(ranges: readonly T[], offset: number): T | undefined {
  const i = lastStartingAtOrBefore(ranges, offset);
  return i >= 0 && offset < ranges[i].end ? ranges[i] : undefined;
}

/**
 * The innermost range of a start-sorted list, possibly nested, that holds offset with its end included
 * (a cursor right after a caption's last word is still in the caption).
 */
export function innermostHolding<T extends Range>(ranges: readonly T[], offset: number): T | undefined {
  for (let i = lastStartingAtOrBefore(ranges, offset), seen = 0; i >= 0 && seen < 8; i--, seen++) {
    if (offset <= ranges[i].end) return ranges[i];
  }
  return undefined;
}

/** Index of the last `\n` in [lo, pos], or -1; never reads before lo. */
export function prevNewline(text: string, pos: number, lo: number): number {
  for (let i = Math.min(pos, text.length - 1); i >= lo; i--) if (text.charCodeAt(i) === 10) return i;
  return -1;
}

/** Index of the first `\n` in [pos, hi), or -1; never reads at or after hi. */
export function nextNewline(text: string, pos: number, hi: number): number {
  for (let i = Math.max(pos, 0); i < hi; i++) if (text.charCodeAt(i) === 10) return i;
  return -1;
}

/**
 * The paragraph around offset within [lo, hi): bounded by blank lines (lines of only white space).
 * Reads only the lines between the cursor and those boundaries.
 */
export function paragraphAround(text: string, offset: number, lo: number, hi: number): Range {
  let start = lo;
  let lineStart = prevNewline(text, offset - 1, lo) + 1;
  while (lineStart > lo) {
    const prevStart = prevNewline(text, lineStart - 2, lo) + 1;
    if (isBlank(text, Math.max(prevStart, lo), lineStart - 1)) {
      start = lineStart;
      break;
    }
    lineStart = prevStart;
  }
  let end = hi;
  let lineEnd = nextNewline(text, offset, hi);
  while (lineEnd >= 0) {
    const nextEnd = nextNewline(text, lineEnd + 1, hi);
    if (isBlank(text, lineEnd + 1, nextEnd < 0 ? hi : nextEnd)) {
      end = lineEnd;
      break;
    }
    lineEnd = nextEnd;
  }
  return { start: Math.max(start, lo), end: Math.min(end, hi) };
}

function isBlank(text: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}
