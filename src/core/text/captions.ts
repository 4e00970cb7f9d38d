// Captions in text whose lines survive (plain text, Markdown, Zotero's extracted text): a line that opens with a
// caption label ("Table 1:", "Figure 2.", "Fig. 3 |", pandoc's "Table:") is a caption, a unit of its own as LaTeX's
// \caption and the PDF reader's caption lines are, so it never runs into the body sentence on the next line (a
// caption without a full stop did: "Table 1: <script>alert(1)</script> The body sentence …"). A caption goes on over
// wrapped lines that continue it in lower case, and ends at its line's end before a line that starts anew.

/** A caption label at a line's start: the float's name, its number, and the separator after it. */
const LABEL =
  /(?:(?:Supplementary\s+)?(?:Table|Figure|Fig\.|Tab\.|Algorithm|Listing|Scheme|Chart|Plate)\s*(?:[A-Z]?\d+[a-z]?|[IVX]+)(?:[.-]\d+)*\s*([:.|\u2013\u2014])|(?:Table|Figure)(:))(?=\s)/y;

/** A caption wraps over at most this many more lines (a longer lower-case run is body text after all). */
const MAX_WRAPS = 8;

export interface CaptionRange {
  /** The label's first character. */
  start: number;
  /** Past the label and its separator (a full stop there does not end a sentence). */
  labelEnd: number;
  /** The end of the caption's last line (before its line break). */
  end: number;
}

const ENDS_SENTENCE = /[.!?]["'\u201d\u2019)]*\s*$/;
const CONTINUES = /^[ \t]*\p{Ll}/u;
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\u00a0';

/**
 * The captions of text[start, end). A label after a line that did not end a sentence ("… as shown in\nFig. 3. The
 * …") counts only with a colon, bar or dash: a full stop there is the body sentence's own.
 */
export function captionRanges(text: string, start: number, end: number): CaptionRange[] {
  const out: CaptionRange[] = [];
  let line = start;
  while (line < end) {
    let nl = text.indexOf('\n', line);
    if (nl < 0 || nl > end) nl = end;
    let k = line;
    while (k < nl && isSpace(text[k])) k++;
    LABEL.lastIndex = k;
    const m = /[TFALSCP]/.test(text[k] ?? '') ? LABEL.exec(text) : null;
    if (m && m.index + m[0].length <= nl) {
      const separator = m[1] ?? m[2];
      if (separator !== '.' || line === start || afterSentenceEnd(text, start, line)) {
        let last = nl;
        // Wrapped caption lines: the line does not end a sentence and the next one goes on in lower case.
        const wraps = (at: number) =>
          at < end &&
          !ENDS_SENTENCE.test(text.slice(Math.max(k, at - 16), at)) &&
          CONTINUES.test(text.slice(at + 1, Math.min(end, at + 17)));
        for (let n = 0; n < MAX_WRAPS && wraps(last); n++) {
          const next = text.indexOf('\n', last + 1);
          last = next < 0 || next > end ? end : next;
        }
        let e = last;
        while (e > k && isSpace(text[e - 1])) e--;
        out.push({ start: k, labelEnd: m.index + m[0].length, end: e });
        line = last + 1;
        continue;
      }
    }
    line = nl + 1;
  }
  return out;
}

/** True when the text before `line` ends a sentence (or there is none). */
function afterSentenceEnd(text: string, start: number, line: number): boolean {
  let j = line - 1;
  while (j >= start && (isSpace(text[j]) || text[j] === '\n')) j--;
  return j < start || /[.!?:;)\]"'\u201d\u2019]/.test(text[j]);
}

/** text[start, end) cut before and after each caption: the pieces, in order, captions among them. */
export function splitAtCaptions(text: string, start: number, end: number): Array<[number, number]> {
  const cuts = [start];
  for (const c of captionRanges(text, start, end)) cuts.push(c.start, c.end);
  cuts.push(end);
  const out: Array<[number, number]> = [];
  for (let i = 1; i < cuts.length; i++) if (cuts[i] > cuts[i - 1]) out.push([cuts[i - 1], cuts[i]]);
  return out;
}
