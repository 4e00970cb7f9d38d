// Which words of the result sentences to highlight in the side panel. Pure (no DOM, no I/O): the webview bundles
// it and turns the returned character ranges into <mark> elements built from text nodes, so no HTML is ever
// assembled from corpus strings.
//
// Two modes:
// - `recurring`: words and bigrams that occur in at least `minHits` (default 2) different result sentences —
//   the field's common phrasing. A bigram is two adjacent content words ("language model"); overlapping
//   recurring bigrams merge into one phrase range ("large language models"), which wins over its words.
// - `rare`: content words that occur in exactly one result (counting its previous/next sentences and the query
//   too), are not in the query, and are long enough to carry meaning; at most `maxRarePerText` per sentence,
//   the longest first (word length is a cheap, corpus-free proxy for rarity in English).
//
// Normalisation: NFKD with diacritics removed, lowercase, typographic apostrophes folded, possessive 's
// dropped, and a light plural/-ing/-ed stem so "models"/"model" and "studies"/"study" count as one term.
// Tokens without a letter (numbers, citations like [12]) and one-letter tokens are ignored.

import { isHighlightStopWord } from '../text/stop-words.js';

export type HighlightMode = 'recurring' | 'rare';

/** A single word, two adjacent words, or a run of overlapping recurring bigrams (3+ words). */
export type TermKind = 'word' | 'bigram' | 'phrase';

/** A span to highlight in one text: [start, end) in UTF-16 code units of that text. */
export interface HighlightRange {
  start: number;
  end: number;
  /** The normalised term (a stem, or stems joined by a space for a bigram or phrase). */
  term: string;
  kind: TermKind;
  /** How many different texts (hits) contain the term. */
  hits: number;
}

export interface HighlightInput {
  /** The texts to highlight, one per hit (normally each hit's displayed sentence). */
  texts: readonly string[];
  /** Extra text per hit that counts for rarity but is not highlighted (previous/next sentences). */
  context?: readonly (string | null | undefined)[];
  /** The user's sentence: its words are never "rare" and are reported via `queryTerms`. */
  query?: string;
}

export interface HighlightOptions {
  mode: HighlightMode;
  /** recurring: a term must occur in at least this many different texts (default 2). */
  minHits?: number;
  /** recurring: also find bigrams (default true). */
  bigrams?: boolean;
  /** rare: at most this many words per text (default 3). */
  maxRarePerText?: number;
  /** rare: minimum word length in characters (default 5). */
  minRareLength?: number;
}

export interface HighlightResult {
  /** Per input text, sorted, non-overlapping ranges. */
  ranges: HighlightRange[][];
  /** The terms highlighted anywhere, with the number of texts containing each (most shared first). */
  terms: { term: string; kind: TermKind; hits: number }[];
}

/** A word occurrence in a text. */
export interface Token {
  start: number;
  end: number;
  /** Lowercased, diacritic-free surface form (possessive dropped). */
  norm: string;
  /** Light stem of `norm`: the key terms are compared by. */
  stem: string;
  stop: boolean;
}

// Letters/digits, with inner apostrophes and hyphens ("state-of-the-art", "don't") kept in one token.
const WORD_RE = /[\p{L}\p{N}]+(?:['’\-‐][\p{L}\p{N}]+)*/gu;
const HAS_LETTER_RE = /\p{L}/u;

function fold(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[’]/g, "'");
}

/** A light English stem: plurals, -ing and -ed, never shorter than 3 characters. */
export function stem(word: string): string {
  const w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return w.slice(0, -3) + 'y';
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ing') && w.length > 5) {
    const s = undouble(w.slice(0, -3));
    if (VOWEL_RE.test(s)) return s;
  }
  if (w.endsWith('ed') && w.length > 4 && !w.endsWith('eed')) {
    const s = undouble(w.slice(0, -2));
    if (VOWEL_RE.test(s)) return s;
  }
  if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is') && !w.endsWith('ys')) {
    return w.slice(0, -1);
  }
  return w;
}

const VOWEL_RE = /[aeiouy]/;

// "running" → "runn" → "run", "embedded" → "embedd" → "embed" (but "falling" → "fall", "passed" → "pass").
function undouble(w: string): string {
  const n = w.length;
  if (n >= 4 && w[n - 1] === w[n - 2] && !'lsz'.includes(w[n - 1])) return w.slice(0, -1);
  return w;
}

/** The word tokens of `text` with their UTF-16 ranges. Tokens without a letter and 1-letter tokens are dropped. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  WORD_RE.lastIndex = 0;
  for (let m = WORD_RE.exec(text); m !== null; m = WORD_RE.exec(text)) {
    const surface = m[0];
    if (!HAS_LETTER_RE.test(surface)) continue;
    let norm = fold(surface);
    if (norm.endsWith("'s")) norm = norm.slice(0, -2);
    if (norm.length < 2) continue;
    const stop = isHighlightStopWord(norm) || norm.split(/['\-‐]/).every((p) => p.length === 0 || isHighlightStopWord(p));
    out.push({ start: m.index, end: m.index + surface.length, norm, stem: stop ? norm : stem(norm), stop });
  }
  return out;
}

interface Analysed {
  tokens: Token[];
  words: Set<string>;
  bigrams: Map<string, [number, number][]>;
}

function analyse(text: string, withBigrams: boolean): Analysed {
  const tokens = tokenize(text);
  const words = new Set<string>();
  const bigrams = new Map<string, [number, number][]>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.stop) continue;
    words.add(t.stem);
    if (!withBigrams || i + 1 >= tokens.length) continue;
    const u = tokens[i + 1];
    // Adjacent in the text: only whitespace or a hyphen between them (not a comma or a full stop).
    if (u.stop || !/^[\s\-‐]*$/.test(text.slice(t.end, u.start))) continue;
    const key = `${t.stem} ${u.stem}`;
    let list = bigrams.get(key);
    if (!list) bigrams.set(key, (list = []));
    list.push([i, i + 1]);
  }
  return { tokens, words, bigrams };
}

/** The ranges to highlight in each of `input.texts`. */
export function highlightTerms(input: HighlightInput, options: HighlightOptions): HighlightResult {
  return options.mode === 'rare' ? rare(input, options) : recurring(input, options);
}

function recurring(input: HighlightInput, options: HighlightOptions): HighlightResult {
  const minHits = Math.max(2, options.minHits ?? 2);
  const withBigrams = options.bigrams ?? true;
  const docs = input.texts.map((t) => analyse(t ?? '', withBigrams));
  const wordDf = new Map<string, number>();
  const bigramDf = new Map<string, number>();
  for (const d of docs) {
    for (const w of d.words) wordDf.set(w, (wordDf.get(w) ?? 0) + 1);
    for (const b of d.bigrams.keys()) bigramDf.set(b, (bigramDf.get(b) ?? 0) + 1);
  }
  const used = new Map<string, { kind: TermKind; hits: number }>();
  const ranges = docs.map((d) => {
    // link[i]: the bigram (i, i+1) recurs; runs of links become one phrase ("large language model").
    const link = new Int32Array(d.tokens.length);
    for (const [key, spans] of d.bigrams) {
      const df = bigramDf.get(key) ?? 0;
      if (df < minHits) continue;
      for (const [a] of spans) link[a] = df;
    }
    const out: HighlightRange[] = [];
    for (let i = 0; i < d.tokens.length; i++) {
      const t = d.tokens[i];
      if (link[i]) {
        let j = i;
        let hits = Infinity;
        while (link[j]) hits = Math.min(hits, link[j++]);
        const stems = d.tokens.slice(i, j + 1).map((x) => x.stem);
        const term = stems.join(' ');
        const kind: TermKind = stems.length === 2 ? 'bigram' : 'phrase';
        out.push({ start: t.start, end: d.tokens[j].end, term, kind, hits });
        used.set(term, { kind, hits });
        i = j;
        continue;
      }
      if (t.stop) continue;
      const df = wordDf.get(t.stem) ?? 0;
      if (df < minHits) continue;
      out.push({ start: t.start, end: t.end, term: t.stem, kind: 'word', hits: df });
      used.set(t.stem, { kind: 'word', hits: df });
    }
    return out;
  });
  return { ranges, terms: termList(used) };
}

function rare(input: HighlightInput, options: HighlightOptions): HighlightResult {
  const maxPer = Math.max(0, options.maxRarePerText ?? 3);
  const minLen = Math.max(1, options.minRareLength ?? 5);
  const docs = input.texts.map((t, i) => {
    const words = new Set<string>();
    const tokens = tokenize(t ?? '');
    for (const tok of tokens) if (!tok.stop) words.add(tok.stem);
    const ctx = input.context?.[i];
    if (ctx) for (const tok of tokenize(ctx)) if (!tok.stop) words.add(tok.stem);
    return { tokens, words };
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.words) df.set(w, (df.get(w) ?? 0) + 1);
  const queryWords = new Set<string>();
  if (input.query) for (const tok of tokenize(input.query)) if (!tok.stop) queryWords.add(tok.stem);
  const used = new Map<string, { kind: TermKind; hits: number }>();
  const ranges = docs.map((d) => {
    const seen = new Set<string>();
    const candidates: { tok: Token; order: number }[] = [];
    d.tokens.forEach((tok, order) => {
      if (tok.stop || seen.has(tok.stem)) return;
      seen.add(tok.stem);
      if (df.get(tok.stem) !== 1 || queryWords.has(tok.stem)) return;
      if (tok.norm.replace(/['\-‐]/g, '').length < minLen) return;
      candidates.push({ tok, order });
    });
    candidates.sort((a, b) => b.tok.norm.length - a.tok.norm.length || a.order - b.order);
    const chosen = candidates.slice(0, maxPer).map(({ tok }) => {
      used.set(tok.stem, { kind: 'word', hits: 1 });
      return { start: tok.start, end: tok.end, term: tok.stem, kind: 'word' as const, hits: 1 };
    });
    return chosen.sort((a, b) => a.start - b.start);
  });
  return { ranges, terms: termList(used) };
}

function termList(used: Map<string, { kind: TermKind; hits: number }>): HighlightResult['terms'] {
  const words = (t: string) => t.split(' ').length;
  return [...used]
    .map(([term, v]) => ({ term, ...v }))
    .sort((a, b) => b.hits - a.hits || words(b.term) - words(a.term) || a.term.localeCompare(b.term));
}

/**
 * Splits `text` into segments at the given ranges: the webview appends plain segments as text nodes and marked
 * ones inside a <mark>, so corpus text is never parsed as HTML.
 */
export function segments(text: string, ranges: readonly HighlightRange[]): { text: string; range?: HighlightRange }[] {
  const out: { text: string; range?: HighlightRange }[] = [];
  let at = 0;
  for (const r of ranges) {
    if (r.start < at || r.end > text.length || r.end <= r.start) continue;
    if (r.start > at) out.push({ text: text.slice(at, r.start) });
    out.push({ text: text.slice(r.start, r.end), range: r });
    at = r.end;
  }
  if (at < text.length) out.push({ text: text.slice(at) });
  return out;
}
