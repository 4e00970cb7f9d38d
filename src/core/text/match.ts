// Text matching for the checks: verifying a quote against a paper's stored sentences (exact on normalised text,
// else approximate-substring similarity ≥ threshold) and finding runs of ≥ N words copied from corpus sentences.

/** Case-preserving normalisation: NFKC, typographic quotes/dashes/spaces unified, soft hyphens dropped. */
export function normalizeKeepCase(s: string): string {
  return s
    .normalize('NFKC')
    .replace(/\u00ad|\u200b|\u200c|\u200d|\ufeff/g, '') // (not a class: joiners in one read as a joined sequence)
    .replace(/[\u2018\u2019\u201a\u201b\u2032\u00b4`]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g, '"')
    .replace(/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g, '-')
    .replace(/\u2039/g, '<')
    .replace(/\u203a/g, '>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Per-code-unit lower case (keeps the length, so offsets stay valid). */
function lowerSameLength(s: string): string {
  let out = '';
  for (const c of s) {
    const l = c.toLowerCase();
    out += l.length === c.length ? l : c;
  }
  return out;
}

export function normalizeText(s: string): string {
  return lowerSameLength(normalizeKeepCase(s));
}

/** Strips what models wrap quotes in: quotation marks, leading/trailing ellipses, list bullets. */
export function cleanQuote(q: string): string {
  let s = normalizeKeepCase(q);
  s = s.replace(/^(?:[-*•]\s+)/, '');
  for (let i = 0; i < 3; i++) {
    s = s
      .replace(/^["']+|["']+$/g, '')
      .replace(/^(?:\.\.\.|…)\s*|\s*(?:\.\.\.|…)$/g, '')
      .trim();
  }
  return s;
}

const WORD = /[\p{L}\p{N}]+(?:['-][\p{L}\p{N}]+)*/gu;

export function words(s: string): string[] {
  return normalizeText(s).match(WORD) ?? [];
}

/**
 * Smallest edit distance between `pattern` and any substring of `text` (Sellers), with the end of the best
 * substring; characters compared as given (callers lower-case both).
 */
function sellers(pattern: string, text: string): { distance: number; end: number } {
  const m = pattern.length;
  let prev = new Uint16Array(m + 1);
  let cur = new Uint16Array(m + 1);
  for (let i = 0; i <= m; i++) prev[i] = i;
  let best = prev[m];
  let end = 0;
  for (let j = 1; j <= text.length; j++) {
    cur[0] = 0;
    const tc = text.charCodeAt(j - 1);
    for (let i = 1; i <= m; i++) {
      const sub = prev[i - 1] + (pattern.charCodeAt(i - 1) === tc ? 0 : 1);
      const del = prev[i] + 1;
      const ins = cur[i - 1] + 1;
      cur[i] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
    }
    if (cur[m] < best) {
      best = cur[m];
      end = j;
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return { distance: best, end };
}

function reverse(s: string): string {
  return s.split('').reverse().join('');
}

/** Best approximate occurrence of pattern in text: similarity = 1 − distance / |pattern|, and its span. */
export function partialSimilarity(pattern: string, text: string): { similarity: number; start: number; end: number } {
  if (!pattern.length) return { similarity: 0, start: 0, end: 0 };
  const p = pattern.slice(0, 2000);
  const f = sellers(p, text);
  // The start: the same search, reversed, over the text up to the best end.
  const r = sellers(reverse(p), reverse(text.slice(0, f.end)));
  const start = f.end - r.end;
  return { similarity: 1 - f.distance / p.length, start, end: f.end };
}

export interface QuoteMatch {
  match: 'exact' | 'fuzzy';
  similarity: number;
  /** The stored text the quote was found as (for an exact match, the model's cleaned quote). */
  text: string;
}

/** Longest quote aligned approximately (characters); longer ones must match exactly. */
export const MAX_FUZZY_CHARS = 600;

/** Shortest quote worth keeping: shorter strings match anywhere and say nothing. */
export const MIN_QUOTE_WORDS = 4;

/**
 * Finds `quote` in the paper's stored sentences: exact (normalised substring of the text, sentences joined),
 * else the best approximate substring in a window of 1–3 consecutive sentences with similarity ≥ threshold.
 */
export function verifyQuote(quote: string, sentences: readonly string[], threshold = 0.9): QuoteMatch | null {
  const q = cleanQuote(quote);
  const qWords = words(q);
  if (qWords.length < MIN_QUOTE_WORDS) return null;
  const nq = lowerSameLength(q);
  const keep = sentences.map(normalizeKeepCase);
  const low = keep.map(lowerSameLength);
  if (low.join(' ').includes(nq)) return { match: 'exact', similarity: 1, text: q };
  // A quote is one or two sentences; a longer one that is not exact is not worth an O(n·m) alignment.
  if (nq.length > MAX_FUZZY_CHARS) return null;

  // Candidate windows by word containment, then approximate substring search on the best few.
  const qSet = new Set(qWords);
  const sentWords = low.map((s) => new Set(s.match(WORD) ?? []));
  const windows: { from: number; to: number; containment: number }[] = [];
  for (let i = 0; i < low.length; i++) {
    const seen = new Set<string>();
    for (let w = 0; w < 3 && i + w < low.length; w++) {
      for (const x of sentWords[i + w]) if (qSet.has(x)) seen.add(x);
      const containment = seen.size / qSet.size;
      if (containment >= 0.6) windows.push({ from: i, to: i + w, containment });
    }
  }
  windows.sort((a, b) => b.containment - a.containment || a.to - a.from - (b.to - b.from));
  let best: QuoteMatch | null = null;
  for (const w of windows.slice(0, 4)) {
    const origText = keep.slice(w.from, w.to + 1).join(' ');
    const r = partialSimilarity(nq, lowerSameLength(origText));
    if (r.similarity >= threshold && (!best || r.similarity > best.similarity)) {
      best = { match: 'fuzzy', similarity: Math.round(r.similarity * 1000) / 1000, text: expandToWords(origText, r.start, r.end) };
    }
  }
  return best;
}

/** Widens [start, end) to whole words of s. */
function expandToWords(s: string, start: number, end: number): string {
  const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
  while (start > 0 && isWordChar(s[start - 1]) && isWordChar(s[start])) start--;
  while (end < s.length && isWordChar(s[end - 1]) && isWordChar(s[end])) end++;
  return s.slice(start, end).trim();
}

export interface SpanSource {
  text: string;
  paperId: string;
}

export interface CopiedRun {
  words: number;
  text: string;
  paperId: string;
}

/**
 * The words a copy is counted in: {@link words} with hyphenated compounds split ("COVID-19" is two words, as a reader
 * counts them in "a copy of 12 words"), so the copy rule does not depend on how a model hyphenates.
 */
export function copyWords(s: string): string[] {
  return words(s).flatMap((w) => w.split('-'));
}

/** An index of the N-word shingles (copyWords) of corpus sentences, for {@link findCopiedSpans}. */
export class ShingleIndex {
  /** Shingle → the index of the first source sentence that holds it. */
  private readonly grams = new Map<string, number>();
  constructor(
    private readonly sources: readonly SpanSource[],
    readonly n = 12,
  ) {
    sources.forEach((s, k) => {
      const w = copyWords(s.text);
      for (let i = 0; i + n <= w.length; i++) {
        const g = w.slice(i, i + n).join(' ');
        if (!this.grams.has(g)) this.grams.set(g, k);
      }
    });
  }

  /** The corpus sentence a run found by {@link find} starts in. */
  sourceOf(run: Pick<CopiedRun, 'text'>): SpanSource | undefined {
    const k = this.grams.get(run.text.split(' ').slice(0, this.n).join(' '));
    return k === undefined ? undefined : this.sources[k];
  }

  /** Maximal runs of ≥ n consecutive words of `text` that also occur, in order, in one corpus sentence. */
  find(text: string): CopiedRun[] {
    const n = this.n;
    const w = copyWords(text);
    const runs: CopiedRun[] = [];
    let i = 0;
    while (i + n <= w.length) {
      const k = this.grams.get(w.slice(i, i + n).join(' '));
      if (k === undefined) {
        i++;
        continue;
      }
      const paperId = this.sources[k].paperId;
      let last = i;
      while (last + 1 + n <= w.length && this.grams.has(w.slice(last + 1, last + 1 + n).join(' '))) last++;
      const span = w.slice(i, last + n);
      runs.push({ words: span.length, text: span.join(' '), paperId });
      i = last + n;
    }
    return runs;
  }
}

export interface CopiedSpanAt extends CopiedRun {
  /** Character offsets of the run in the text searched. */
  start: number;
  end: number;
}

/** Words of `text` with their offsets, as {@link copyWords} counts them (typographic apostrophes joined, hyphens split). */
export function wordsAt(text: string, skip: readonly [number, number][] = []): { word: string; start: number; end: number }[] {
  const out: { word: string; start: number; end: number }[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+(?:['\u2019\u2018][\p{L}\p{N}]+)*/gu)) {
    const start = m.index!;
    if (skip.some(([a, b]) => start >= a && start < b)) continue;
    for (const w of words(m[0].replace(/[\u2019\u2018]/g, "'"))) out.push({ word: w, start, end: start + m[0].length });
  }
  return out;
}

/** Runs of ≥ n words of `text` found in one corpus sentence, with their offsets; `skip`: ranges not searched (citations). */
export function findCopiedSpans(index: ShingleIndex, text: string, skip: readonly [number, number][] = []): CopiedSpanAt[] {
  const tokens = wordsAt(text, skip);
  const out: CopiedSpanAt[] = [];
  let offset = 0;
  for (const run of index.find(tokens.map((t) => t.word).join(' '))) {
    const runWords = run.text.split(' ');
    // Locate the run among the tokens (find() reports runs in order).
    for (let i = offset; i + runWords.length <= tokens.length; i++) {
      if (runWords.every((w, k) => tokens[i + k].word === w)) {
        out.push({ ...run, start: tokens[i].start, end: tokens[i + runWords.length - 1].end });
        offset = i + runWords.length;
        break;
      }
    }
  }
  return out;
}
