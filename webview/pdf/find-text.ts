// Finds a stored PDF sentence among a page's PDF.js text runs (pure: no DOM, no PDF.js), so the viewer can draw
// its highlight. The stored sentence is what the indexing reader (src/core/ingest/pdf-layout.ts, pdf-assemble.ts)
// made of these same runs: NFKC (ligatures ﬁ → fi), soft hyphens dropped, lines joined with a space, a word broken
// by a hyphen at a line end joined, superscript footnote marks and running headers dropped. Rather than replay
// those rules, both sides are compared as their letters and digits only (lower case), which every one of those
// rules leaves alone but for the dropped marks and headers; an edit-distance search absorbs those few extra
// characters. The sentence may run onto the next page: the runs of both pages are searched as one text.

/** One PDF.js text run, as far as the search needs it. */
export interface Run {
  str: string;
  /** The page it is on (1-based): a match may span two pages. */
  page: number;
}

/** Part of one run the sentence covers: characters [from, to) of `runs[run].str`. */
export interface RunSpan {
  run: number;
  from: number;
  to: number;
}

export interface Found {
  spans: RunSpan[];
  /** Edits (skipped or differing letters) the match needed, and the compared length of the sentence. */
  distance: number;
  length: number;
}

/** At most this share of the sentence's letters may differ (dropped footnote marks, a running header between pages). */
const MAX_EDIT_SHARE = 0.15;
/** ... and never fewer than this many (a short sentence with a superscript mark). */
const MIN_EDITS = 3;
/** Sentences are compared on at most this many letters (their start): the search is length × page text. */
const MAX_COMPARED = 1500;

const LETTER = /[\p{L}\p{N}]/u;

/** A text's letters and digits (NFKC, lower case) with, for each, where it came from. */
function letters(runs: readonly Run[]): { text: string; at: Array<[number, number]> } {
  let text = '';
  const at: Array<[number, number]> = [];
  runs.forEach((r, i) => {
    let offset = 0;
    for (const ch of r.str) {
      for (const c of ch.normalize('NFKC').toLowerCase()) {
        if (LETTER.test(c)) {
          text += c;
          at.push([i, offset]);
        }
      }
      offset += ch.length;
    }
  });
  return { text, at };
}

export function comparable(s: string): string {
  return letters([{ str: s, page: 0 }]).text;
}

/** A stretch of the text that may be skipped at no cost: what lies between a page's last body line and the next page's first. */
interface Gap {
  /** The letter index where the second page starts. */
  at: number;
  /** How far before and after it the skip may start and end. */
  reach: number;
}

/**
 * The end (exclusive) in `text` of the best match of `pattern` and its edit distance: Sellers' semi-global alignment
 * (the match may start anywhere), or, `anchored`, a match starting at the text's start. Within `gap`, the match may
 * jump from a position up to `reach` letters before the page break to one up to `reach` after it: a page's footnotes,
 * page number and the next page's running header lie there. Linear memory.
 */
function bestEnd(pattern: string, text: string, anchored: boolean, gap: Gap | null): { end: number; distance: number } {
  const m = pattern.length;
  let col = new Int32Array(m + 1);
  let next = new Int32Array(m + 1);
  const beforeGap = gap ? new Int32Array(m + 1).fill(1 << 30) : null;
  for (let i = 0; i <= m; i++) col[i] = i;
  let best = { end: 0, distance: m };
  for (let j = 1; j <= text.length; j++) {
    if (gap && beforeGap && j - 1 >= gap.at - gap.reach && j - 1 <= gap.at)
      for (let i = 0; i <= m; i++) beforeGap[i] = Math.min(beforeGap[i], col[i]);
    next[0] = anchored ? j : 0;
    const t = text.charCodeAt(j - 1);
    const jump = gap && beforeGap && j - 1 >= gap.at && j - 1 <= gap.at + gap.reach;
    if (jump) col = col.map((v, i) => Math.min(v, beforeGap[i]));
    for (let i = 1; i <= m; i++) {
      const sub = col[i - 1] + (pattern.charCodeAt(i - 1) === t ? 0 : 1);
      next[i] = Math.min(sub, col[i] + 1, next[i - 1] + 1);
    }
    if (next[m] < best.distance) best = { end: j, distance: next[m] };
    [col, next] = [next, col];
  }
  return best;
}

/**
 * Which letters of `text` the alignment of all of `pattern` with all of `text` pairs with a letter of the pattern
 * (the others, e.g. a running header between two pages, are skipped).
 */
function aligned(pattern: string, text: string): boolean[] {
  const m = pattern.length;
  const n = text.length;
  // 0: diagonal, 1: skip a text letter, 2: skip a pattern letter.
  const how = new Uint8Array((m + 1) * (n + 1));
  let prev = new Int32Array(n + 1);
  let cur = new Int32Array(n + 1);
  for (let j = 0; j <= n; j++) {
    prev[j] = j;
    how[j] = 1;
  }
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    how[i * (n + 1)] = 2;
    const p = pattern.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const diag = prev[j - 1] + (p === text.charCodeAt(j - 1) ? 0 : 1);
      const skipText = cur[j - 1] + 1;
      const skipPattern = prev[j] + 1;
      let v = diag;
      let h = 0;
      if (skipText < v) [v, h] = [skipText, 1];
      if (skipPattern < v) [v, h] = [skipPattern, 2];
      cur[j] = v;
      how[i * (n + 1) + j] = h;
    }
    [prev, cur] = [cur, prev];
  }
  const paired = new Array<boolean>(n).fill(false);
  for (let i = m, j = n; i > 0 || j > 0;) {
    const h = i === 0 ? 1 : j === 0 ? 2 : how[i * (n + 1) + j];
    if (h === 0) {
      paired[j - 1] = pattern.charCodeAt(i - 1) === text.charCodeAt(j - 1);
      i--;
      j--;
    } else if (h === 1) j--;
    else i--;
  }
  return paired;
}

const reverse = (s: string) => [...s].reverse().join('');

/** A run counts as the sentence's when at least this share of its letters in the match pair with the sentence's. */
const OWN_SHARE = 0.6;
/** Letters a match may skip on either side of a page break (footnotes, a page number, a running header). */
const PAGE_BREAK_REACH = 400;

/** Where `sentence` is among `runs` (in reading order), or null when it is not there closely enough. */
export function findSentence(sentence: string, runs: readonly Run[]): Found | null {
  const pattern = comparable(sentence).slice(0, MAX_COMPARED);
  if (!pattern.length) return null;
  const { text, at } = letters(runs);
  const breakAt = at.findIndex(([run]) => runs[run].page !== runs[at[0][0]].page);
  const gap = breakAt > 0 ? { at: breakAt, reach: PAGE_BREAK_REACH } : null;
  const { end, distance } = bestEnd(pattern, text, false, gap);
  if (distance > Math.max(MIN_EDITS, Math.floor(pattern.length * MAX_EDIT_SHARE))) return null;
  // The start: the same search backwards from the end, over the text before it.
  const back = bestEnd(
    reverse(pattern),
    reverse(text.slice(0, end)),
    true,
    gap && gap.at < end ? { at: end - gap.at, reach: gap.reach } : null,
  );
  const start = end - back.end;
  const paired = aligned(pattern, text.slice(start, end));
  // Per run, its letters in the match and the paired ones among them.
  const perRun = new Map<number, { first: number; last: number; paired: number[] }>();
  for (let k = start; k < end; k++) {
    const run = at[k][0];
    const r = perRun.get(run) ?? { first: k, last: k, paired: [] };
    r.last = k;
    if (paired[k - start]) r.paired.push(k);
    perRun.set(run, r);
  }
  const order = [...perRun.keys()];
  const spans: RunSpan[] = [];
  for (const [run, r] of perRun) {
    if (!r.paired.length) continue;
    // A run the sentence only passes through must be mostly its own: a running header whose "of the" the alignment
    // happened to pair is not. The first and last runs may hold the sentence's start or end only.
    const letterCount = r.last - r.first + 1;
    const own =
      run === order[0] || run === order[order.length - 1]
        ? r.paired.length >= OWN_SHARE * (r.paired[r.paired.length - 1] - r.paired[0] + 1)
        : r.paired.length >= OWN_SHARE * letterCount;
    if (!own) continue;
    // The sentence runs on past this run (or came from before it): it covers the run to its end (from its start).
    const from = at[run === order[0] ? r.paired[0] : r.first][1];
    const lastOffset = at[run === order[order.length - 1] ? r.paired[r.paired.length - 1] : r.last][1];
    let to = lastOffset + (runs[run].str.codePointAt(lastOffset)! > 0xffff ? 2 : 1);
    // The sentence's closing punctuation (letters only were compared).
    if (run === order[order.length - 1]) to += /^[.!?;:)\]”’"']*/.exec(runs[run].str.slice(to))![0].length;
    spans.push({ run, from, to });
  }
  return { spans, distance, length: pattern.length };
}
