// The offline support score of a citing sentence against one cited paper's stored sentences. Pure: the caller
// supplies the sentences (and, when it has them, the embedder's vectors); the store is not touched here, so the
// bench scores Citation-Integrity in memory with exactly the function the CLI and the editor use.
//
// Each paper sentence gets a score from three signals that catch different paraphrases:
//   - term coverage: grounding's IDF-weighted share of the claim's content terms (Porter stems, synonyms,
//     acronyms) found in the sentence (assessSupport's score), the one that names the specific finding;
//   - lexical match: the same light-stem content tokens as the offline embedder, weighted by general-English
//     IDF, matched both ways (claim terms in the sentence, sentence terms in the claim), which rewards a
//     sentence that is about the claim rather than merely mentioning one rare word;
//   - the embedder's cosine (character n-grams: inflections and compounds that stems miss).
// A paper's score is the mean of its `top` (3) best sentences' values (a finding a paper really reports is usually
// stated, motivated or restated in more than one sentence, where a wrong paper matches one sentence by chance: this
// separates the cited paper from a swapped one far better than the best sentence alone), plus a small share of the
// claim's coverage by the whole paper (a finding stated across two sentences). A sentence's value there leans on the
// two-way lexical match (`paperLexical` of it, the rest its score): coverage rewards a sentence for naming the
// claim's terms among many others, which ranks the evidence well within a paper but lets another paper on the same
// topic score like the cited one. Weights and `top` were chosen on Citation-Integrity claims_train only
// (`npm run bench -- check` prints train and dev); a sentence's position in the paper is deliberately not used
// (in that set the annotated evidence is always an excerpt's first sentence, an artefact a real paper lacks).
import { contentTokens } from '../embed/tokenize.js';
import { offlineWordWeight } from '../embed/offline-default.js';
import { assessSupport, numbersOf } from '../grounding/index.js';

export interface ScoreWeights {
  coverage: number;
  lexical: number;
  cosine: number;
  numbers: number;
  /** Weight of the whole paper's coverage of the claim in the paper score. */
  paper: number;
  /**
   * Share of the lexical match (the rest: the sentence's score) in what the paper score averages over its `top`
   * sentences: 0 averages the sentence scores, 1 the lexical match alone.
   */
  paperLexical: number;
  /** Share of the cosine in that value (0 unless told; used only where the vectors are a neural model's). */
  paperCosine?: number;
  /** How many of the best sentences the paper score averages (1: the best sentence alone). */
  top: number;
}

/** Chosen on claims_train (bench/check.bench.ts). */
export const SCORE_WEIGHTS: ScoreWeights = {
  coverage: 0.35,
  lexical: 0.45,
  cosine: 0.15,
  numbers: 0.1,
  paper: 0.15,
  paperLexical: 0.75,
  top: 3,
};

export interface SentenceScore {
  /** Index into the sentences given. */
  index: number;
  score: number;
}

export interface PaperScore {
  /** The paper's support score (0–1). */
  score: number;
  /** Every sentence's score, best first. */
  sentences: SentenceScore[];
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/** The claim's content stems with their weights (distinct). */
function weighted(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of contentTokens(text)) if (t.length > 1) out.set(t, offlineWordWeight(t));
  return out;
}

/** Weighted share of `a`'s terms found in `b`. */
export function share(a: Map<string, number>, b: Map<string, number>): number {
  let total = 0;
  let hit = 0;
  for (const [t, w] of a) {
    total += w;
    if (b.has(t)) hit += w;
  }
  return total ? hit / total : 0;
}

/** The share of the claim's numbers (not years) the sentence states; 0 when the claim has none. */
function numberMatch(claimNumbers: Set<string>, text: string): number {
  if (!claimNumbers.size) return 0;
  const mine = numbersOf(text);
  let n = 0;
  for (const x of claimNumbers) if (mine.has(x)) n++;
  return n / claimNumbers.size;
}

/** One sentence's signals against the claim (score.ts's header says what each catches). */
export interface SentenceSignals {
  coverage: number;
  lexical: number;
  /** The embedder's cosine (≥ 0), or null without vectors. */
  cosine: number | null;
  numbers: number;
}

/** The signals of a claim against a paper's sentences, and the whole paper's coverage of it: what `combine` weighs. */
export interface PaperSignals {
  sentences: SentenceSignals[];
  whole: number;
}

/** Measures every signal once (the bench weighs them many ways; scorePaper weighs them once). */
export function paperSignals(
  claim: string,
  sentences: readonly string[],
  vectors?: { claim: Float32Array; sentences: readonly (Float32Array | null)[] } | null,
): PaperSignals {
  const claimTerms = weighted(claim);
  const claimNumbers = new Set([...numbersOf(claim)].filter((n) => !/^(19|20)\d\d$/.test(n)));
  return {
    sentences: sentences.map((text, index) => {
      const terms = weighted(text);
      const v = vectors?.sentences[index];
      return {
        coverage: assessSupport(claim, [text], { threshold: 0 }).score,
        lexical: Math.sqrt(share(claimTerms, terms) * share(terms, claimTerms)),
        cosine: vectors && v ? Math.max(0, dot(vectors.claim, v)) : null,
        numbers: numberMatch(claimNumbers, text),
      };
    }),
    whole: sentences.length ? assessSupport(claim, sentences, { threshold: 0 }).score : 0,
  };
}

/** The paper score and its sentences' scores from measured signals. */
export function combine(signals: PaperSignals, weights: ScoreWeights = SCORE_WEIGHTS): PaperScore {
  if (!signals.sentences.length) return { score: 0, sentences: [] };
  const useCos = weights.cosine > 0 && signals.sentences.every((x) => x.cosine !== null);
  const base = weights.coverage + weights.lexical + (useCos ? weights.cosine : 0);
  const paperCosine = useCos ? (weights.paperCosine ?? 0) : 0;
  const scored = signals.sentences.map((x, index) => {
    const cosine = useCos ? x.cosine! : 0;
    const s = (weights.coverage * x.coverage + weights.lexical * x.lexical + weights.cosine * cosine) / base;
    const score = Math.min(1, s + weights.numbers * x.numbers);
    const paper = weights.paperLexical * x.lexical + paperCosine * cosine + (1 - weights.paperLexical - paperCosine) * score;
    return { index, score, paper };
  });
  const ranked = scored.map(({ index, score }) => ({ index, score })).sort((a, b) => b.score - a.score || a.index - b.index);
  const best = scored
    .map((x) => x.paper)
    .sort((a, b) => b - a)
    .slice(0, Math.max(1, weights.top));
  const mean = best.reduce((a, x) => a + x, 0) / best.length;
  return { score: Math.min(1, Math.max(0, (1 - weights.paper) * mean + weights.paper * signals.whole)), sentences: ranked };
}

/**
 * Scores a claim against a paper's sentences. `vectors`: the claim's vector and one per sentence (same order), from
 * the corpus's embedder; without them the cosine term is left out and the others are rescaled.
 */
export function scorePaper(
  claim: string,
  sentences: readonly string[],
  vectors?: { claim: Float32Array; sentences: readonly (Float32Array | null)[] } | null,
  weights: ScoreWeights = SCORE_WEIGHTS,
): PaperScore {
  if (!sentences.length) return { score: 0, sentences: [] };
  return combine(paperSignals(claim, sentences, weights.cosine > 0 ? vectors : null), weights);
}
