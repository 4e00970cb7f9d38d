// Offsets to lines: a text's line starts, found once, and the 0-based line and column of an offset by binary search,
// for whatever reports a place in a document (citation sites, diagnostics, a sentence's source line).

/** Offsets at which each line of `text` starts (the first is 0). */
export function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

/** 0-based line and column of `offset`, given the text's `lineStarts`. */
export function positionAt(starts: readonly number[], offset: number): { line: number; character: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - starts[lo] };
}
