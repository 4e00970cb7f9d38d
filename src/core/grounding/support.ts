// Offline claim support: does a generated sentence say what the quotes it cites say? Always on, no model.
// A sentence's content terms (Porter-stemmed words, numbers, names of methods/datasets) are looked up in the
// cited papers' verified quotes (and the topic); on top of that score, hard rules catch what a bag of words
// cannot: a number that no cited quote contains, a negation the quotes do not make, a finding turned into its
// opposite (antonym of a quoted word, or the two sides of a comparison swapped), a method name no quote names.
// Tuned on the train half of test/fixtures/claim-support.json; `npm run bench -- review` prints both halves.
import { stemmer } from 'stemmer';
import { OFFLINE_IDF_GROUPS, OFFLINE_IDF_MAX } from '../embed/offline-idf.generated.js';
import { stem as lightStem } from '../embed/tokenize.js';
import { isStopWord } from '../text/stop-words.js';
import { normalizeKeepCase } from '../text/match.js';
import { NUMBER_WORDS } from '../text/number-words.js';

export type SupportVerdict = 'supported' | 'unsupported';

export interface SupportOptions {
  /** Share of the sentence's content terms that must occur in the cited quotes or the topic. */
  threshold?: number;
}

export interface SupportResult {
  /** Share of content terms found (0–1; 1 when the sentence has none). */
  score: number;
  verdict: SupportVerdict;
  /** Why it is unsupported (empty when supported). */
  reasons: string[];
  /** Content terms of the sentence found in no cited quote nor the topic. */
  missing: string[];
}

/** Default of {@link SupportOptions.threshold}, chosen on the fixture's train half (see the bench). */
export const SUPPORT_THRESHOLD = 0.7;

/**
 * Words that frame a claim rather than make it ("prior work shows that…", "one study reports…"): a paraphrase
 * adds them freely, so they count neither for nor against support.
 */
const FRAMING = new Set(
  (
    'study studies work works paper papers prior previous previously earlier recent recently research line lines ' +
    'strand strands approach approaches show shows showed shown find finds found report reports reported ' +
    'demonstrate demonstrates demonstrated observe observes observed suggest suggests suggested propose proposes ' +
    'proposed present presents presented describe describes described introduce introduces introduced note notes ' +
    'noted argue argues argued also one ones use uses used using employ employs employed rely relies relied ' +
    'achieve achieves achieved reach reaches reached obtain obtains obtained yield yields yielded lead leads led ' +
    'instead particular specific existing various several many other others like including whose whom thereby ' +
    'according analysis authors researchers their its itself them they be can could would while yet both'
  ).split(/\s+/),
);

/** Negation cues (as stems): a sentence's negation must have one in a quote about the same terms. */
const NEGATION = new Set([
  'not',
  'no',
  'never',
  'none',
  'nor',
  'neither',
  'nobodi',
  'noth',
  'cannot',
  'without',
  'fail',
  'lack',
  'unabl',
  'reject',
  'nt',
]);

/**
 * Paraphrase vocabulary: common words a writer swaps for one another in scientific prose, mapped to one stem
 * (general English, not the fixture's words). Opposites are never in one class.
 */
const SYNONYMS: string[][] = [
  ['increas', 'rais', 'boost', 'grow', 'rise', 'grew', 'rose', 'higher'],
  ['reduc', 'decreas', 'cut', 'drop', 'shrink', 'lessen', 'lower'],
  ['improv', 'enhanc', 'better'],
  ['best', 'strongest', 'top', 'highest'],
  ['contain', 'includ', 'mention', 'featur'],
  ['singl', 'individu'],
  ['against', 'versu', 'compar'],
  ['larg', 'big'],
  ['fast', 'quick', 'rapid'],
  ['need', 'requir'],
  ['show', 'display'],
  ['lose', 'lost', 'loss', 'cost'],
  ['base', 'built', 'build'],
  ['suffici', 'suffic', 'enough'],
  ['judg', 'rate', 'assess'],
  ['other', 'elsewher', 'beyond'],
  ['keep', 'retain', 'preserv'],
  ['studi', 'examin', 'investig'],
  ['help', 'aid', 'assist'],
  ['perform', 'work'],
];
const CANON = new Map<string, string>();
for (const group of SYNONYMS) for (const w of group) CANON.set(w, group[0]);
const canon = (stem: string) => CANON.get(stem) ?? stem;

/** Opposites: a sentence using one side where its quotes use only the other has reversed the finding. */
const ANTONYMS: [string, string][] = [
  ['increas', 'reduc'],
  ['more', 'less'],
  ['more', 'fewer'],
  ['most', 'least'],
  ['best', 'worst'],
  ['faster', 'slower'],
  ['long', 'short'],
  ['longer', 'shorter'],
  ['agre', 'disagre'],
  ['accept', 'reject'],
  ['improv', 'degrad'],
  ['improv', 'hurt'],
  ['improv', 'wors'],
  ['outperform', 'underperform'],
  ['larger', 'smaller'],
  ['gain', 'loss'],
  ['gain', 'lose'],
  ['help', 'hurt'],
  ['success', 'failur'],
  ['above', 'below'],
  ['well', 'poor'],
  ['wide', 'rare'],
  ['common', 'rare'],
  ['strong', 'weak'],
  ['easi', 'hard'],
  ['preced', 'follow'],
];
const OPPOSITE = new Map<string, Set<string>>();
for (const [x, y] of ANTONYMS) {
  const a = canon(x);
  const b = canon(y);
  OPPOSITE.set(a, (OPPOSITE.get(a) ?? new Set()).add(b));
  OPPOSITE.set(b, (OPPOSITE.get(b) ?? new Set()).add(a));
}

/** Words that split a statement into two ordered sides ("A outperforms B", "A rather than B", "A whereas B"). */
const DIRECTIONAL = new Set(
  ['outperform', 'than', 'whereas', 'against', 'versus', 'beat', 'surpass', 'exceed', 'over'].map((w) => canon(stemmer(w))),
);

const WORD = /[\p{L}\p{N}]+(?:[.@'][\p{L}\p{N}]+)*/gu;

interface Token {
  raw: string;
  stem: string;
}

/** Citation markers ([P3], \cite{…}, [@k]) are not words of the claim. */
function stripCitations(s: string): string {
  return s
    .replace(/\[(?:P\d+(?:[,;\s]*P?\d+)*)\]/gi, ' ')
    .replace(/\\[a-zA-Z]*cite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*@[^\]]*\]/g, ' ');
}

function tokens(text: string): Token[] {
  const t = normalizeKeepCase(stripCitations(text));
  const out: Token[] = [];
  for (const m of t.matchAll(WORD)) {
    for (const part of m[0].split(/(?<=\p{L})(?=\d)|@/u)) {
      if (!part) continue;
      const low = part.toLowerCase();
      out.push({ raw: part, stem: /\d/.test(low) ? low : canon(adverbless(stemmer(low.replace(/'s$/, '')))) });
    }
  }
  return out;
}

/** How informative a word is (inverse frequency in everyday English): rare, technical words weigh most. */
const IDF = new Map<string, number>();
for (const [w, stems] of Object.entries(OFFLINE_IDF_GROUPS)) for (const s of stems.split(' ')) IDF.set(s, Number(w));
function weight(raw: string): number {
  return IDF.get(lightStem(raw.toLowerCase())) ?? OFFLINE_IDF_MAX;
}

/** "significantli" → "signific" (Porter keeps the adverb's -li; the adjective's claim is the same). */
function adverbless(stem: string): string {
  return stem.length > 6 && stem.endsWith('li') ? stemmer(stem.slice(0, -2)) : stem;
}

/** A number's canonical value ("0.50" → "0.5", "4,200" → "4200"). */
function canonical(n: string): string {
  const v = Number(n.replace(/,/g, ''));
  return Number.isFinite(v) ? String(v) : n;
}

/** Every number of a text: digits (with decimals, thousands separators) and number words; percentages too. */
export function numbersOf(text: string): Set<string> {
  const t = normalizeKeepCase(stripCitations(text));
  const out = new Set<string>();
  for (const m of t.matchAll(/(?<![\p{L}\d.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|\.\d+)(?![\d])/gu)) out.add(canonical(m[1]));
  for (const m of t.toLowerCase().matchAll(/\b[a-z]+\b/g)) {
    const v = NUMBER_WORDS[m[0]];
    if (v !== undefined) out.add(String(v));
  }
  return out;
}

/** Names of methods, models, datasets: acronyms, mixed case, letters with digits (BM25, SciBERT, WordNet, GPU). */
function isName(raw: string, first: boolean): boolean {
  if (/^\d/.test(raw)) return false;
  if (/\p{L}\d|\d\p{L}/u.test(raw) && /\p{L}{2}/u.test(raw)) return true;
  if (/^\p{Lu}{2,}s?$/u.test(raw)) return true;
  if (/^\p{L}+$/u.test(raw) && /\p{Ll}\p{Lu}/u.test(raw)) return true;
  return !first && /^\p{Lu}\p{Ll}+$/u.test(raw) && raw.length > 2;
}

function isContent(t: Token): boolean {
  if (/^\d/.test(t.raw)) return false; // numbers have their own rule
  const low = t.raw.toLowerCase();
  if (low.length < 2 || isStopWord(low) || FRAMING.has(low) || FRAMING.has(t.stem) || NEGATION.has(t.stem)) return false;
  return NUMBER_WORDS[low] === undefined;
}

export interface EvidenceIndex {
  stems: Set<string>;
  /** Lower-cased words, for names. */
  words: Set<string>;
  numbers: Set<string>;
  /** The content stems after each negation in the quotes (its scope). */
  negations: Set<string>[];
  /** Acronyms of the quotes/topic (lower case) and the initials of their consecutive content words. */
  acronyms: Set<string>;
  initials: string[];
  /** Token stems of each quote in order (for the antonym and direction checks). */
  quotes: string[][];
  /** Each number of the quotes → the content stems that follow it ("0.69 for moves": moves). */
  bindings: Map<string, Set<string>>;
}

const NUMBER = /^\d+(?:[.,]\d+)*$/;

/** The number of each numeric token → the first content stem within the next three tokens, if any. */
function numberBindings(ts: readonly Token[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  ts.forEach((t, i) => {
    if (!NUMBER.test(t.raw)) return;
    const next = ts.slice(i + 1, i + 4).find((x) => isContent(x) || NUMBER.test(x.raw));
    if (next && !NUMBER.test(next.raw)) out.push([canonical(t.raw), next.stem]);
  });
  return out;
}

/**
 * Two numbers the quotes state, given to each other's terms ("0.51 for moves and 0.69 for steps" where the quote
 * has 0.69 for moves): each number and term is in the quotes, so term and number checks alone pass it.
 */
function reboundNumber(ts: readonly Token[], ev: EvidenceIndex): string | null {
  const pairs = numberBindings(ts);
  for (const [n, stem] of pairs) {
    const own = ev.bindings.get(n);
    if (!own || own.has(stem)) continue;
    const other = pairs.find(([m]) => m !== n && ev.bindings.get(m)?.has(stem));
    if (other) return `gives ${n} to "${ts.find((t) => t.stem === stem)?.raw ?? stem}", which the cited quotes give ${other[0]}`;
  }
  return null;
}

/** The searchable form of the cited quotes (numbers and order come from the quotes only, not the topic). */
export function evidenceIndex(quotes: readonly string[], topic = ''): EvidenceIndex {
  const stems = new Set<string>();
  const words = new Set<string>();
  const numbers = new Set<string>();
  const ordered: string[][] = [];
  const negations: Set<string>[] = [];
  const acronyms = new Set<string>();
  const initials: string[] = [];
  const bindings = new Map<string, Set<string>>();
  const add = (ts: Token[]) => {
    for (const t of ts) {
      stems.add(t.stem);
      words.add(t.raw.toLowerCase());
      if (/^\p{Lu}{2,}s?$/u.test(t.raw)) acronyms.add(t.raw.replace(/s$/, '').toLowerCase());
    }
    initials.push(
      ts
        .filter(isContent)
        .map((t) => t.raw[0].toLowerCase())
        .join(''),
    );
  };
  for (const q of quotes) {
    const ts = tokens(q);
    ordered.push(ts.map((t) => t.stem));
    add(ts);
    for (const n of numbersOf(q)) numbers.add(n);
    for (const [n, stem] of numberBindings(ts)) bindings.set(n, (bindings.get(n) ?? new Set()).add(stem));
    negations.push(...negationScopes(ts));
  }
  add(tokens(topic));
  return { stems, words, numbers, negations, acronyms, initials, quotes: ordered, bindings };
}

/** The next three content stems after each negation cue. */
function negationScopes(ts: readonly Token[]): Set<string>[] {
  const out: Set<string>[] = [];
  ts.forEach((t, i) => {
    if (!NEGATION.has(t.stem)) return;
    out.push(
      new Set(
        ts
          .slice(i + 1)
          .filter((x) => isContent(x) && !NEGATION.has(x.stem))
          .slice(0, 3)
          .map((x) => x.stem),
      ),
    );
  });
  return out;
}

/** A negation of the sentence that no quote makes about the same terms. */
function unbackedNegation(ts: readonly Token[], ev: EvidenceIndex): boolean {
  return negationScopes(ts).some((scope) => !ev.negations.some((q) => !scope.size || [...scope].some((s) => q.has(s))));
}

/**
 * Content tokens spelled out from an acronym of the evidence ("reciprocal rank fusion" for RRF), or an acronym
 * whose spelled-out form the evidence uses: indices of the tokens so covered.
 */
function acronymCovered(content: readonly Token[], ev: EvidenceIndex): Set<number> {
  const out = new Set<number>();
  const letters = content.map((t) => t.raw[0].toLowerCase());
  for (let i = 0; i < content.length; i++) {
    for (let n = 2; n <= 5 && i + n <= content.length; n++) {
      if (ev.acronyms.has(letters.slice(i, i + n).join(''))) for (let k = i; k < i + n; k++) out.add(k);
    }
    const t = content[i].raw;
    if (/^\p{Lu}{2,5}s?$/u.test(t) && ev.initials.some((s) => s.includes(t.replace(/s$/, '').toLowerCase()))) out.add(i);
  }
  return out;
}

function overlap(a: readonly string[], b: ReadonlySet<string>): number {
  let n = 0;
  for (const x of new Set(a)) if (b.has(x)) n++;
  return n;
}

/** The two sides of a directional statement around `cue`, as content stems (at most 6 each). */
function sides(stems: readonly string[], at: number): [string[], string[]] {
  const keep = (s: string) => s.length > 2 && !isStopWord(s) && !DIRECTIONAL.has(s) && !/^\d/.test(s);
  return [
    stems
      .slice(Math.max(0, at - 8), at)
      .filter(keep)
      .slice(-6),
    stems
      .slice(at + 1, at + 9)
      .filter(keep)
      .slice(0, 6),
  ];
}

/** "A outperforms B" where a quote says "B outperforms A": the sides swapped. */
function swappedSides(sentence: readonly string[], ev: EvidenceIndex): boolean {
  for (let i = 0; i < sentence.length; i++) {
    if (!DIRECTIONAL.has(sentence[i])) continue;
    const [sl, sr] = sides(sentence, i);
    for (const q of ev.quotes) {
      const j = q.indexOf(sentence[i]);
      if (j < 0) continue;
      const [ql, qr] = sides(q, j);
      const same = overlap(sl, new Set(ql)) + overlap(sr, new Set(qr));
      const crossed = overlap(sl, new Set(qr)) + overlap(sr, new Set(ql));
      if (crossed >= 2 && crossed > same) return true;
    }
  }
  return false;
}

/** "A is faster than B" where the quotes say "A is as fast as B". */
function equalityMadeDifference(sentence: string, ev: EvidenceIndex): boolean {
  const comparatives = [
    ...normalizeKeepCase(sentence)
      .toLowerCase()
      .matchAll(/\b([a-z]+?)(?:er|r)\s+than\b/g),
  ].map((m) => m[1]);
  return comparatives.some((base) =>
    ev.quotes.some((q) => q.join(' ').includes(`as ${stemmer(base)} as`) || q.join(' ').includes(`as ${stemmer(base + 'e')} as`)),
  );
}

/** A word whose opposite the quotes use instead: near the same terms when the quotes use both. */
function reversedTerm(sentence: readonly string[], ev: EvidenceIndex): string | null {
  for (let i = 0; i < sentence.length; i++) {
    const w = sentence[i];
    const opposites = OPPOSITE.get(w);
    if (!opposites) continue;
    const opposite = [...opposites].find((o) => ev.stems.has(o));
    if (!opposite) continue;
    if (!ev.stems.has(w)) {
      if (sentence.includes(opposite)) continue; // "reducing b raised MRR" for "lowering b improves MRR"
      return w;
    }
    // Both in the quotes ("agreed on the extremes but disagreed on the middle ground"): compare neighbours.
    const near = (arr: readonly string[], k: number) =>
      new Set(arr.slice(Math.max(0, k - 4), k + 5).filter((s) => s.length > 2 && !isStopWord(s) && s !== w && !opposites.has(s)));
    const mine = [...near(sentence, i)];
    let withSame = 0;
    let withOpposite = 0;
    for (const q of ev.quotes) {
      q.forEach((s, k) => {
        if (s === w) withSame = Math.max(withSame, overlap(mine, near(q, k)));
        if (opposites.has(s)) withOpposite = Math.max(withOpposite, overlap(mine, near(q, k)));
      });
    }
    if (withOpposite >= 2 && withOpposite > withSame) return w;
  }
  return null;
}

/** IDF-weighted share of distinct content terms for which `found` holds. */
function coverage(content: readonly Token[], found: (t: Token, i: number) => boolean): number {
  const seen = new Map<string, { w: number; ok: boolean }>();
  content.forEach((t, i) => {
    const prev = seen.get(t.stem);
    const ok = found(t, i) || !!prev?.ok;
    seen.set(t.stem, { w: Math.max(prev?.w ?? 0, weight(t.raw)), ok });
  });
  let total = 0;
  let covered = 0;
  for (const { w, ok } of seen.values()) {
    total += w;
    if (ok) covered += w;
  }
  return total ? covered / total : 1;
}

/** Clauses joined by ", and" / ", while" / ";", and the means a claim names ("… with labels produced by X"). */
function clauses(sentence: string): string[] {
  return stripCitations(sentence).split(
    /;|,\s*(?=(?:and|but|while|whereas|which|although|though|yet|so)\b)|\s(?=(?:with|using|via|through)\s)/i,
  );
}

/**
 * The offline check of one sentence against its cited quotes (and the topic). `allowedNumbers`: numbers the
 * sentence may state without a quote (the cited papers' years).
 */
export function assessSupport(
  sentence: string,
  quotes: readonly string[] | EvidenceIndex,
  options: SupportOptions & { topic?: string; allowedNumbers?: readonly (string | number)[] } = {},
): SupportResult {
  const ev = Array.isArray(quotes) ? evidenceIndex(quotes, options.topic) : (quotes as EvidenceIndex);
  const threshold = options.threshold ?? SUPPORT_THRESHOLD;
  const reasons: string[] = [];
  const ts = tokens(sentence);
  const content = ts.filter(isContent);
  const spelled = acronymCovered(content, ev);
  const found = (t: Token, i: number) => ev.stems.has(t.stem) || spelled.has(i);
  const missing = [...new Set(content.filter((t, i) => !found(t, i)).map((t) => t.raw.toLowerCase()))];
  const score = coverage(content, found);
  if (score < threshold)
    reasons.push(`only ${Math.round(score * 100)}% of its terms are in the cited quotes (missing: ${missing.slice(0, 6).join(', ')})`);
  else {
    // An added claim hides in its own clause (", and they were also much shorter"): each clause must be covered.
    const weak = clauses(sentence).find((c) => {
      const terms = tokens(c).filter(isContent);
      if (new Set(terms.map((t) => t.stem)).size < 2) return false;
      return (
        coverage(terms, (t) =>
          found(
            t,
            content.findIndex((x) => x.stem === t.stem),
          ),
        ) < threshold
      );
    });
    if (weak) reasons.push(`the clause "${weak.trim().slice(0, 60)}" is not in the cited quotes`);
  }

  const allowed = new Set((options.allowedNumbers ?? []).map((n) => canonical(String(n))));
  const numbers = [...numbersOf(sentence)].filter((n) => !ev.numbers.has(n) && !allowed.has(n));
  if (numbers.length) reasons.push(`states ${numbers.join(', ')}, which no cited quote contains`);
  else {
    const rebound = reboundNumber(ts, ev);
    if (rebound) reasons.push(rebound);
  }

  const unnamed = (t: Token, i: number) =>
    isName(t.raw, i === 0) && !ev.words.has(t.raw.toLowerCase()) && !ev.stems.has(t.stem) && !spelled.has(content.indexOf(t));
  const names = [...new Set(ts.filter(unnamed).map((t) => t.raw))];
  if (names.length) reasons.push(`names ${names.join(', ')}, which no cited quote names`);

  if (unbackedNegation(ts, ev)) reasons.push('negates something the cited quotes do not negate');
  const stems = ts.map((t) => t.stem);
  const reversed = reversedTerm(stems, ev);
  if (reversed) reasons.push(`says "${ts[stems.indexOf(reversed)].raw}" where the cited quotes say the opposite`);
  else if (swappedSides(stems, ev)) reasons.push('swaps the sides of a comparison the cited quotes make');
  else if (equalityMadeDifference(sentence, ev)) reasons.push('states a difference where the cited quotes state an equality');
  return { score: Math.round(score * 1000) / 1000, verdict: reasons.length ? 'unsupported' : 'supported', reasons, missing };
}

/** The baseline the bench compares with: a sentence is "supported" when it shares any content word with its quotes. */
export function anySharedWord(sentence: string, quotes: readonly string[]): boolean {
  const words = (s: string) =>
    (
      normalizeKeepCase(s)
        .toLowerCase()
        .match(/\p{L}+/gu) ?? []
    ).filter((w) => w.length > 2 && !isStopWord(w));
  const q = new Set(quotes.flatMap(words));
  return words(sentence).some((w) => q.has(w));
}
