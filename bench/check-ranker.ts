/**
 * A learned support score measured by the check bench (`npm run bench -- check --ranker`; not shipped: it does not
 * beat score.ts's hand-weighted score, docs/benchmarks.md): logistic regressions over check-features.ts, trained on
 * Citation-Integrity claims_train only.
 *   - the sentence model: for each labelled claim, its cited paper's annotated evidence sentence (1) against the
 *     paper's other sentences (0) (and, in one variant, the swapped paper's sentences too (0));
 *   - the paper model: own cited paper (1) against the neighbouring claim's cited paper (0), over aggregates of the
 *     sentence model's values (best, mean of the best 2 and 3) and score.ts's hand-weighted paper score; nothing that
 *     grows or shrinks with the paper's length (a mean over all sentences, the whole paper's coverage): the excerpts
 *     have 5 sentences, each cut for its own claim, a stored paper hundreds (such inputs measured AUC 0.866 in
 *     cross-validation here, the excerpts' artefact).
 * Hyper-parameters are chosen by 5-fold cross-validation inside train, folds grouped by citing paper (a citing
 * paper's claims are never split between training and held-out folds); the chosen model is refitted on all of
 * train and measured once on dev.
 */
import { combine, SCORE_WEIGHTS, type PaperSignals } from '../src/core/cite-check/score.js';
import { PAIR_FEATURES } from './check-features.js';

interface Linear {
  weights: number[];
  bias: number;
}

interface RankerModel {
  sentence: Linear;
  paper: Linear;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const applyLinear = (m: Linear, x: readonly number[]) => m.bias + m.weights.reduce((a, w, j) => a + w * x[j], 0);

/** The paper model's inputs: the sentence values' best and the means of the best 2 and 3, and score.ts's paper score. */
function paperInputs(values: readonly number[], handScore: number): number[] {
  const s = [...values].sort((a, b) => b - a);
  const top = (k: number) => s.slice(0, k).reduce((a, x) => a + x, 0) / Math.min(k, s.length);
  return [s[0], top(2), top(3), handScore];
}

/** score.ts's paper score without the cosine (the ranker reads no vectors: a corpus built by another embedder has none). */
export const handScore = (signals: PaperSignals) => combine(signals, { ...SCORE_WEIGHTS, cosine: 0 }).score;

export interface Example {
  /** The claim's citing paper (fold grouping). */
  group: number;
  label: 'SUPPORT' | 'REFUTE' | null;
  /** The evidence sentence indexes of the own paper. */
  evidence: number[];
  /** Feature rows of the own paper's sentences and score.ts's paper score without the cosine. */
  own: { rows: number[][]; hand: number };
  swapped: Example['own'] | null;
}

/** L2-regularised logistic regression by Newton's method on standardised features; weights returned on the raw scale. */
function fitLogistic(X: readonly number[][], y: readonly number[], l2: number): Linear {
  const n = X.length;
  const d = X[0].length;
  const mean = new Array<number>(d).fill(0);
  const sd = new Array<number>(d).fill(0);
  for (const x of X) for (let j = 0; j < d; j++) mean[j] += x[j] / n;
  for (const x of X) for (let j = 0; j < d; j++) sd[j] += (x[j] - mean[j]) ** 2 / n;
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(sd[j]) || 1;
  const Z = X.map((x) => [1, ...x.map((v, j) => (v - mean[j]) / sd[j])]);
  const w = new Array<number>(d + 1).fill(0);
  for (let iter = 0; iter < 30; iter++) {
    const g = new Array<number>(d + 1).fill(0);
    const H = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    for (let i = 0; i < n; i++) {
      const z = Z[i];
      let s = 0;
      for (let j = 0; j <= d; j++) s += w[j] * z[j];
      const p = 1 / (1 + Math.exp(-s));
      const r = (p - y[i]) / n;
      const h = (p * (1 - p)) / n;
      for (let j = 0; j <= d; j++) {
        g[j] += r * z[j];
        for (let k = 0; k <= j; k++) H[j][k] += h * z[j] * z[k];
      }
    }
    for (let j = 1; j <= d; j++) {
      g[j] += l2 * w[j];
      H[j][j] += l2;
    }
    for (let j = 0; j <= d; j++) for (let k = 0; k < j; k++) H[k][j] = H[j][k];
    H[0][0] += 1e-9;
    const step = solve(H, g);
    let change = 0;
    for (let j = 0; j <= d; j++) {
      w[j] -= step[j];
      change = Math.max(change, Math.abs(step[j]));
    }
    if (change < 1e-8) break;
  }
  const weights = w.slice(1).map((v, j) => v / sd[j]);
  const bias = w[0] - weights.reduce((a, v, j) => a + v * mean[j], 0);
  return { weights, bias };
}

function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let k = r + 1; k < n; k++) s -= M[r][k] * x[k];
    x[r] = s / M[r][r];
  }
  return x;
}

export interface RankerOptions {
  l2: number;
  /** Also train the sentence model on the swapped paper's sentences as negatives. */
  swappedNegatives: boolean;
}

/** Every feature but the hashed cosine (as handScore). */
const AT = PAIR_FEATURES.map((f, j) => (f === 'cosine' ? -1 : j)).filter((j) => j >= 0);
const pick = (row: readonly number[]) => AT.map((j) => row[j]);
const sentenceValues = (m: RankerModel, rows: readonly number[][]) => rows.map((r) => applyLinear(m.sentence, pick(r)));

export function train(examples: readonly Example[], options: RankerOptions): RankerModel {
  const X: number[][] = [];
  const y: number[] = [];
  for (const e of examples) {
    if (!e.label || !e.evidence.length) continue;
    e.own.rows.forEach((r, i) => {
      X.push(pick(r));
      y.push(e.evidence.includes(i) ? 1 : 0);
    });
    if (options.swappedNegatives && e.swapped)
      for (const r of e.swapped.rows) {
        X.push(pick(r));
        y.push(0);
      }
  }
  const partial: RankerModel = { sentence: fitLogistic(X, y, options.l2), paper: { weights: [], bias: 0 } };
  const P: number[][] = [];
  const py: number[] = [];
  const inputs = (p: Example['own']) => paperInputs(sentenceValues(partial, p.rows), p.hand);
  for (const e of examples) {
    if (!e.label || !e.swapped || !e.own.rows.length || !e.swapped.rows.length) continue;
    P.push(inputs(e.own));
    py.push(1);
    P.push(inputs(e.swapped));
    py.push(0);
  }
  return { ...partial, paper: fitLogistic(P, py, options.l2) };
}

/** The ranker's paper score (0–1) and its sentences' values, from the example's measures. */
export function rank(m: RankerModel, paper: Example['own']): { paper: number; sentences: number[] } {
  if (!paper.rows.length) return { paper: 0, sentences: [] };
  const sentences = sentenceValues(m, paper.rows);
  return { paper: sigmoid(applyLinear(m.paper, paperInputs(sentences, paper.hand))), sentences };
}

/** Out-of-fold scores for every example: 5 folds grouped by citing paper. */
export function crossValidate(
  examples: readonly Example[],
  options: RankerOptions,
  folds = 5,
): Array<{ own: ReturnType<typeof rank>; swapped: ReturnType<typeof rank> | null }> {
  const foldOf = (g: number) => Math.imul(g + 1, 2654435761) >>> 0;
  const out = new Array<{ own: ReturnType<typeof rank>; swapped: ReturnType<typeof rank> | null }>(examples.length);
  for (let f = 0; f < folds; f++) {
    const held = (e: Example) => foldOf(e.group) % folds === f;
    const m = train(
      examples.filter((e) => !held(e)),
      options,
    );
    examples.forEach((e, i) => {
      if (held(e)) out[i] = { own: rank(m, e.own), swapped: e.swapped ? rank(m, e.swapped) : null };
    });
  }
  return out;
}

/** The candidate settings compared by cross-validation. */
export function candidates(): Array<[string, RankerOptions]> {
  const out: Array<[string, RankerOptions]> = [];
  for (const l2 of [0.001, 0.01, 0.1])
    for (const swappedNegatives of [false, true])
      out.push([`L2 ${l2}${swappedNegatives ? ', swapped sentences as negatives' : ''}`, { l2, swappedNegatives }]);
  return out;
}
