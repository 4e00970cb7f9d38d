// What the check bench's learned ranker (check-ranker.ts) reads of one citing sentence against each sentence of a
// cited paper. Only relations between the two texts: nothing about a sentence alone (its position, length or citation
// markers), so the ranker cannot learn how an evaluation set's excerpts were cut instead of what supports a claim.
import { contentTokens, rawTokens } from '../src/core/embed/tokenize.js';
import { offlineWordWeight } from '../src/core/embed/offline-default.js';
import { share, type PaperSignals } from '../src/core/cite-check/score.js';

/** The names of the features, in the order `pairFeatures` returns them. */
export const PAIR_FEATURES = [
  'coverage',
  'lexical',
  'claimInSentence',
  'sentenceInClaim',
  'cosine',
  'numbers',
  'bm25',
  'rarestMatch',
  'matched',
  'bigrams',
  'names',
] as const;

interface Bag {
  weights: Map<string, number>;
  counts: Map<string, number>;
  length: number;
  bigrams: Set<string>;
  /** Tokens written with a digit or a capital past the first letter (gene, protein, method names). */
  names: Set<string>;
}

function bag(text: string): Bag {
  const tokens = contentTokens(text).filter((t) => t.length > 1);
  const weights = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const t of tokens) {
    weights.set(t, offlineWordWeight(t));
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const bigrams = new Set<string>();
  for (let i = 1; i < tokens.length; i++) bigrams.add(`${tokens[i - 1]} ${tokens[i]}`);
  const names = new Set<string>();
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu))
    if (/\d/.test(m[0]) ? /\p{L}/u.test(m[0]) : /.\p{Lu}/u.test(m[0])) for (const t of rawTokens(m[0])) names.add(t);
  return { weights, counts, length: tokens.length, bigrams, names };
}

/** A typical stored sentence's count of content tokens (BM25's length normalisation). */
const AVERAGE_LENGTH = 18;

/**
 * One feature row per sentence (PAIR_FEATURES' order). `signals`: score.ts's measured signals of the same claim
 * and sentences (coverage, lexical, cosine, numbers), so nothing is measured twice.
 */
export function pairFeatures(claim: string, sentences: readonly string[], signals: PaperSignals): number[][] {
  const c = bag(claim);
  const claimMax = Math.max(0, ...c.weights.values());
  const claimTotal = [...c.weights.values()].reduce((a, x) => a + x, 0);
  const k1 = 1.2;
  const b = 0.75;
  return sentences.map((text, i) => {
    const s = bag(text);
    const sig = signals.sentences[i];
    let bm25 = 0;
    let rarest = 0;
    let matched = 0;
    for (const [t, w] of c.weights) {
      const tf = s.counts.get(t);
      if (!tf) continue;
      matched++;
      rarest = Math.max(rarest, w);
      bm25 += (w * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * s.length) / AVERAGE_LENGTH));
    }
    let bigrams = 0;
    for (const g of c.bigrams) if (s.bigrams.has(g)) bigrams++;
    let names = 0;
    for (const n of c.names) if (s.names.has(n) || s.counts.has(n)) names++;
    return [
      sig.coverage,
      sig.lexical,
      share(c.weights, s.weights),
      share(s.weights, c.weights),
      sig.cosine ?? 0,
      sig.numbers,
      claimTotal ? bm25 / claimTotal : 0,
      claimMax ? rarest / claimMax : 0,
      Math.log1p(matched),
      c.bigrams.size ? bigrams / c.bigrams.size : 0,
      c.names.size ? names / c.names.size : 0,
    ];
  });
}
