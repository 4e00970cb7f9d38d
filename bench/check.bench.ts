/**
 * Citation check bench on Citation-Integrity (../shared/eval/retrieval; see its README): each claim is a real
 * citing sentence, each cited doc an excerpt of the cited paper with the annotated evidence sentence.
 *   - evidence@3: for SUPPORT and REFUTE claims, the annotated evidence sentence is among the 3 best sentences
 *     returned for the cited paper (ties share the places: a sentence tied across the cut counts in part, so no
 *     order of the excerpt helps);
 *   - misattribution: each labelled claim scored against its own cited paper and against the paper cited by the
 *     neighbouring claim of the same citing paper (a realistic wrong citation): the share of pairs where the true
 *     paper scores higher (ties ½), the pooled ROC AUC, and at the threshold chosen on train (the highest that
 *     flags ≤ 5% of train's SUPPORT citations) the share of SUPPORT citations flagged and of swapped ones caught.
 * Beside it, in the same run: BM25 (k1 1.2, b 0.75, corpus IDF) over the cited paper's sentences. The weights of
 * the shipped score are checked on train against a few alternatives (printed); dev is never used to choose.
 * `--ranker`: a learned ranker too (check-ranker.ts), chosen by cross-validation inside train, measured on dev.
 * Run alone: `node --import tsx bench/check.bench.ts`; bench/run.ts imports `run`.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder, createOfflineEmbedder } from '../src/core/embed/index.js';
import type { Embedder } from '../src/core/embed/types.js';
import { stripCitationTokens } from '../src/core/embed/tokenize.js';
import { combine, paperSignals, SCORE_WEIGHTS, type PaperSignals, type ScoreWeights } from '../src/core/cite-check/score.js';
import { CHECK_THRESHOLD } from '../src/core/cite-check/threshold.js';
import { bm25Scorer } from '../test/support/retrieval-eval.js';
import { pairFeatures } from './check-features.js';
import { auc } from './stats.js';
import { candidates, crossValidate, handScore, rank, train, type Example, type RankerOptions } from './check-ranker.js';
import { evalPath } from '../test/support/eval.js';

interface Claim {
  id: number;
  text: string;
  doc: number;
  label: 'SUPPORT' | 'REFUTE' | null;
  evidence: number[];
  /** The neighbouring claim's cited doc (same citing paper, another doc), or null. */
  swapped: number | null;
}

interface Data {
  docs: Map<number, { sentences: string[]; first: number }>;
  all: string[];
  train: Claim[];
  dev: Claim[];
}

function load(root: string): Data {
  const lines = (f: string) =>
    readFileSync(join(root, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const docs = new Map<number, { sentences: string[]; first: number }>();
  const all: string[] = [];
  for (const d of lines('corpus.jsonl') as Array<{ doc_id: number; abstract: string[] }>) {
    docs.set(d.doc_id, { sentences: d.abstract, first: all.length });
    all.push(...d.abstract);
  }
  const claims = (f: string): Claim[] => {
    const raw = lines(f) as Array<{
      id: number;
      claim: string;
      cited_doc_ids: number[];
      evidence: Record<string, Array<{ sentences: number[]; label: string }>>;
    }>;
    const out = raw.map((c) => {
      const doc = c.cited_doc_ids[0];
      const ev = c.evidence[String(doc)]?.[0];
      const label: Claim['label'] = ev?.label === 'SUPPORT' || ev?.label === 'REFUTE' ? ev.label : null;
      return { id: c.id, text: stripCitationTokens(c.claim), doc, label, evidence: ev?.sentences ?? [], swapped: null as number | null };
    });
    // The citing paper is the doc id's thousands (the set numbers each citing paper's references in one block).
    const citing = (doc: number) => Math.floor(doc / 1000);
    out.forEach((c, i) => {
      for (const j of [i + 1, i - 1, i + 2, i - 2, i + 3, i - 3]) {
        const n = out[j];
        if (n && citing(n.doc) === citing(c.doc) && n.doc !== c.doc && docs.has(n.doc)) {
          c.swapped = n.doc;
          break;
        }
      }
    });
    return out.filter((c) => docs.has(c.doc));
  };
  return { docs, all, train: claims('claims_train.jsonl'), dev: claims('claims_dev.jsonl') };
}

/** Expected share of `evidence` in the top k when ties are broken at random. */
function evidenceAt(scores: readonly number[], evidence: readonly number[], k: number): number {
  let best = 0;
  for (const e of evidence) {
    const s = scores[e];
    const above = scores.filter((x) => x > s).length;
    const tied = scores.filter((x) => x === s).length; // includes e
    const slots = k - above;
    best = Math.max(best, slots <= 0 ? 0 : Math.min(1, slots / tied));
  }
  return best;
}

type PaperScorer = (claim: Claim, doc: number) => { paper: number; sentences: number[] };

interface Row {
  evidence3: number;
  pairs: number;
  auc: number;
  n: { evidence: number; pairs: number };
  /** True-paper scores of SUPPORT claims and swapped scores (for the threshold). */
  support: number[];
  swapped: number[];
}

function measure(claims: readonly Claim[], score: PaperScorer): Row {
  let ev = 0;
  let nEv = 0;
  let pairWins = 0;
  const pos: number[] = [];
  const neg: number[] = [];
  const support: number[] = [];
  for (const c of claims) {
    if (!c.label) continue;
    const own = score(c, c.doc);
    if (c.evidence.length) {
      ev += evidenceAt(own.sentences, c.evidence, 3);
      nEv++;
    }
    if (c.label === 'SUPPORT') support.push(own.paper);
    if (c.swapped === null) continue;
    const other = score(c, c.swapped);
    pos.push(own.paper);
    neg.push(other.paper);
    pairWins += own.paper > other.paper ? 1 : own.paper === other.paper ? 0.5 : 0;
  }
  return {
    evidence3: ev / nEv,
    pairs: pairWins / pos.length,
    auc: auc(pos, neg),
    n: { evidence: nEv, pairs: pos.length },
    support,
    swapped: neg,
  };
}

/** The highest threshold flagging at most `rate` of the given correct citations' scores. */
function thresholdFor(support: readonly number[], rate = 0.05): number {
  const sorted = [...support].sort((a, b) => a - b);
  const allowed = Math.floor(rate * sorted.length);
  return sorted[allowed];
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const f3 = (x: number) => x.toFixed(3);

const flagOf = (name: string, argv = process.argv) => argv.includes(`--${name}`);

/**
 * `--embedder neural|openai` (or CHECK_BENCH_EMBEDDER; `--model M` / CHECK_BENCH_MODEL for openai, with OPENAI_BASE_URL
 * and OPENAI_API_KEY): the claims and the cited papers' sentences are also embedded by that model, and its cosine is
 * measured as a signal beside the shipped lexical score.
 */
function modelChoice(argv = process.argv): { provider: 'neural' | 'openai'; model?: string } | null {
  const flag = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  };
  const provider = flag('embedder') ?? process.env.CHECK_BENCH_EMBEDDER;
  if (!provider || provider === 'offline') return null;
  if (provider !== 'neural' && provider !== 'openai')
    throw new Error(`check bench: --embedder is offline, neural or openai (got ${provider})`);
  return { provider, model: flag('model') ?? process.env.CHECK_BENCH_MODEL };
}

/**
 * Every text embedded once through the embedding cache on disk (CORPUS_LENS_CACHE_DIR, default a folder in the temp
 * dir), in chunks: an interrupted run resumes where it stopped, and a re-run embeds nothing.
 */
async function embedThroughCache(embedder: Embedder, texts: readonly string[], role: 'query' | 'document'): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  const chunk = 256;
  const t0 = Date.now();
  let shown = false;
  for (let i = 0; i < texts.length; i += chunk) {
    out.push(...(await embedder.embed(texts.slice(i, i + chunk), { role })));
    if ((shown ||= Date.now() - t0 > 5000)) process.stderr.write(`${embedder.model}: ${out.length}/${texts.length} ${role} texts\r`);
  }
  if (shown) process.stderr.write('\n');
  return out;
}

export async function run(): Promise<void> {
  const root = evalPath('retrieval', 'corpus.jsonl') ? evalPath('retrieval')! : undefined;
  if (!root) {
    console.log('check bench: ../shared/eval/retrieval is absent; skipped');
    return;
  }
  const data = load(root);
  const claimTexts = [...data.train, ...data.dev].map((c) => c.text);
  const vectorsOf = async (embedder: Embedder) => {
    const sentences = await embedThroughCache(embedder, data.all, 'document');
    const claims = new Map<string, Float32Array>();
    (await embedThroughCache(embedder, claimTexts, 'query')).forEach((v, i) => claims.set(claimTexts[i], v));
    return { sentences, claims };
  };
  const t0 = Date.now();
  const offline = await vectorsOf(createOfflineEmbedder());
  console.log(
    `check bench: ${data.docs.size} cited papers, ${data.all.length} sentences, ${data.train.length} train / ${data.dev.length} dev claims (embedded offline in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );
  const choice = modelChoice();
  let neural: Awaited<ReturnType<typeof vectorsOf>> | null = null;
  let neuralModel = '';
  if (choice) {
    const embedder = createEmbedder({
      provider: choice.provider,
      model: choice.model,
      baseURL: choice.provider === 'openai' ? process.env.OPENAI_BASE_URL || undefined : undefined,
      apiKey: choice.provider === 'openai' ? process.env.OPENAI_API_KEY || undefined : undefined,
      cache: { disk: { dir: process.env.CORPUS_LENS_CACHE_DIR || join(tmpdir(), 'corpus-lens-bench-embeddings') } },
    });
    const t1 = Date.now();
    neural = await vectorsOf(embedder);
    neuralModel = embedder.model;
    console.log(`${neuralModel}: every text embedded (through the disk cache) in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  }

  const bm25 = bm25Scorer(data.all);
  const bm25Memo = new Map<string, Float32Array>();
  const baseline: PaperScorer = (c, doc) => {
    let all = bm25Memo.get(c.text);
    if (!all) bm25Memo.set(c.text, (all = (bm25([c.text]) as Float32Array[])[0]));
    const d = data.docs.get(doc)!;
    const s = Array.from(all.subarray(d.first, d.first + d.sentences.length));
    return { paper: Math.max(...s), sentences: s };
  };
  // Each claim's signals against a paper are measured once per vector set; the variants only weigh them.
  const signalsMemo = new Map<string, PaperSignals>();
  const signalsOf = (vectors: typeof offline, tag: string, c: Claim, doc: number): PaperSignals => {
    const key = `${tag}\u0000${doc}\u0000${c.text}`;
    let s = signalsMemo.get(key);
    if (!s) {
      const d = data.docs.get(doc)!;
      const v = { claim: vectors.claims.get(c.text)!, sentences: vectors.sentences.slice(d.first, d.first + d.sentences.length) };
      signalsMemo.set(key, (s = paperSignals(c.text, d.sentences, v)));
    }
    return s;
  };
  const scorer =
    (vectors: typeof offline, tag: string, weights: ScoreWeights): PaperScorer =>
    (c, doc) => {
      const r = combine(signalsOf(vectors, tag, c, doc), weights);
      const s: number[] = [];
      for (const x of r.sentences) s[x.index] = x.score;
      return { paper: r.score, sentences: s };
    };
  const ours = (weights: ScoreWeights) => scorer(offline, 'offline', weights);

  // The shipped weights beside the alternatives measured while choosing them. They were chosen on train; dev is
  // printed beside each so the table in docs/benchmarks.md can report it, never to choose.
  const variants: Array<[string, ScoreWeights]> = [
    ['shipped', SCORE_WEIGHTS],
    ['shipped before (sentence scores averaged)', { ...SCORE_WEIGHTS, paperLexical: 0 }],
    ['lexical match alone averaged', { ...SCORE_WEIGHTS, paperLexical: 1 }],
    ['best sentence only (top 1)', { ...SCORE_WEIGHTS, top: 1 }],
    ['mean of top 5 (the whole excerpt here)', { ...SCORE_WEIGHTS, top: 5 }],
    ['no whole-paper term', { ...SCORE_WEIGHTS, paper: 0 }],
  ];
  if (process.env.CHECK_BENCH_GRID && !neural) {
    for (const coverage of [0.2, 0.35, 0.5])
      for (const lexical of [0.3, 0.45, 0.6])
        for (const cosine of [0, 0.15, 0.3])
          for (const top of [2, 3, 4])
            variants.push([
              `grid ${coverage}/${lexical}/${cosine}/top ${top}`,
              { coverage, lexical, cosine, numbers: 0.1, paper: 0, paperLexical: 0.75, top },
            ]);
  }
  console.log('\nscore variants, evidence@3 / pairs / AUC (chosen on train; dev reported only):');
  console.log('| variant | train evidence@3 | train pairs | train AUC | dev evidence@3 | dev pairs | dev AUC |');
  console.log('|---|---|---|---|---|---|---|');
  const printRow = (name: string, t: Row, d: Row | null) =>
    console.log(
      `| ${name} | ${f3(t.evidence3)} | ${f3(t.pairs)} | ${f3(t.auc)} | ${d ? f3(d.evidence3) : '–'} | ${d ? f3(d.pairs) : '–'} | ${d ? f3(d.auc) : '–'} |`,
    );
  let trainOurs: Row | undefined;
  let devOurs: Row | undefined;
  for (const [name, w] of variants) {
    const t = measure(data.train, ours(w));
    const d = process.env.CHECK_BENCH_GRID && name.startsWith('grid') ? null : measure(data.dev, ours(w));
    if (w === SCORE_WEIGHTS) [trainOurs, devOurs] = [t, d!];
    printRow(name, t, d);
  }
  if (!trainOurs || !devOurs) throw new Error('the shipped weights are measured first');

  // What the checker does on a corpus built by that model (the shipped weights, its cosine in place of the hashed one).
  let withModel: { train: Row; dev: Row; threshold: number } | null = null;
  if (neural) {
    const vectors = neural;
    const mine = (w: ScoreWeights) => scorer(vectors, 'model', w);
    // Chosen on train only, by evidence@3 + AUC (ties to the earlier, simpler variant); dev is measured once, for the
    // chosen weights and the few alternatives printed beside them.
    const grid: Array<[string, ScoreWeights]> = [];
    for (const cosine of [0.15, 0.3, 0.5, 0.8, 1.2, 2])
      for (const paperLexical of [0, 0.25, 0.5, 0.75])
        for (const paperCosine of [0, 0.25, 0.5, 0.75])
          for (const top of [2, 3])
            for (const paper of [0, 0.15])
              if (paperLexical + paperCosine <= 1)
                grid.push([
                  `cosine ${cosine}, paper value ${paperLexical} lexical + ${paperCosine} cosine, top ${top}, whole ${paper}`,
                  { ...SCORE_WEIGHTS, cosine, paperLexical, paperCosine, top, paper },
                ]);
    let best: { name: string; w: ScoreWeights; t: Row; v: number } | null = null;
    for (const [name, w] of grid) {
      const t = measure(data.train, mine(w));
      const v = t.evidence3 + t.auc;
      if (!best || v > best.v + 1e-9) best = { name, w, t, v };
      if (process.env.CHECK_BENCH_GRID) printRow(`${neuralModel} grid: ${name}`, t, null);
    }
    const chosen = best!;
    console.log(`\n${neuralModel}'s cosine as a signal (weights chosen on train by evidence@3 + AUC; dev reported only):`);
    console.log('| variant | train evidence@3 | train pairs | train AUC | dev evidence@3 | dev pairs | dev AUC |');
    console.log('|---|---|---|---|---|---|---|');
    const shown: Array<[string, ScoreWeights]> = [
      [`chosen: ${chosen.name}`, chosen.w],
      ['shipped weights, model cosine in place of the hashed one (what the checker does on such a corpus)', SCORE_WEIGHTS],
      ['no cosine at all (the lexical signals only)', { ...SCORE_WEIGHTS, cosine: 0 }],
      ['model cosine alone (best sentence)', { coverage: 0, lexical: 0, cosine: 1, numbers: 0, paper: 0, paperLexical: 0, top: 1 }],
      ['model cosine alone (mean of top 3)', { coverage: 0, lexical: 0, cosine: 1, numbers: 0, paper: 0, paperLexical: 0, top: 3 }],
    ];
    for (const [name, w] of shown) {
      const t = w === chosen.w ? chosen.t : measure(data.train, mine(w));
      const d = measure(data.dev, mine(w));
      if (w === SCORE_WEIGHTS) withModel = { train: t, dev: d, threshold: thresholdFor(t.support) };
      printRow(name, t, d);
    }
    console.log(`chosen weights: ${JSON.stringify(chosen.w)}`);
  }

  // `--ranker` (or CHECK_BENCH_RANKER): a learned ranker (check-ranker.ts), settings chosen by cross-validation
  // inside train, the chosen one refitted on all of train and measured on dev (CHECK_BENCH_NO_DEV=1 leaves dev out).
  let learned: { train: Row; dev: Row | null; threshold: number; name: string } | null = null;
  if (flagOf('ranker') || process.env.CHECK_BENCH_RANKER) {
    const featuresMemo = new Map<string, Example['own']>();
    const measuredPaper = (c: Claim, doc: number): Example['own'] => {
      const key = `${doc}\u0000${c.text}`;
      let m = featuresMemo.get(key);
      if (!m) {
        const sig = signalsOf(offline, 'offline', c, doc);
        featuresMemo.set(key, (m = { rows: pairFeatures(c.text, data.docs.get(doc)!.sentences, sig), hand: handScore(sig) }));
      }
      return m;
    };
    // The evidence stays in score.ts's order (the sentence model's order is printed beside: it is not better).
    const handOrder = ours(SCORE_WEIGHTS);
    const withHandOrder =
      (paperScore: (c: Claim, doc: number) => number): PaperScorer =>
      (c, doc) => ({ paper: paperScore(c, doc), sentences: handOrder(c, doc).sentences });
    const examplesOf = (claims: readonly Claim[]): Example[] =>
      claims.map((c) => ({
        group: Math.floor(c.doc / 1000),
        label: c.label,
        evidence: c.evidence,
        own: measuredPaper(c, c.doc),
        swapped: c.swapped === null ? null : measuredPaper(c, c.swapped),
      }));
    const trainEx = examplesOf(data.train);
    type Ranked = ReturnType<typeof crossValidate>[number];
    const scorerFrom = (claims: readonly Claim[], results: readonly Ranked[]): PaperScorer => {
      const m = new Map<string, { paper: number; sentences: number[] }>();
      claims.forEach((c, i) => {
        m.set(`${c.id}/${c.doc}`, results[i].own);
        if (c.swapped !== null && results[i].swapped) m.set(`${c.id}/${c.swapped}`, results[i].swapped!);
      });
      return (c, doc) => m.get(`${c.id}/${doc}`)!;
    };
    console.log('\nlearned ranker settings, 5-fold cross-validation inside train (folds by citing paper; chosen by evidence@3 + AUC):');
    console.log("| setting | CV evidence@3 (the sentence model's order) | CV pairs | CV AUC |");
    console.log('|---|---|---|---|');
    let best: { name: string; v: number; row: Row; options: RankerOptions } | null = null;
    for (const [name, options] of candidates()) {
      const folds = scorerFrom(data.train, crossValidate(trainEx, options));
      const own = measure(data.train, folds);
      const row = measure(
        data.train,
        withHandOrder((c, doc) => folds(c, doc).paper),
      );
      console.log(`| ${name} | ${f3(own.evidence3)} | ${f3(row.pairs)} | ${f3(row.auc)} |`);
      const v = own.evidence3 + row.auc;
      if (!best || v > best.v + 1e-9) best = { name, v, row, options };
    }
    const chosen = best!;
    const model = train(trainEx, chosen.options);
    const refit = withHandOrder((c, doc) => rank(model, measuredPaper(c, doc)).paper);
    learned = {
      train: chosen.row,
      dev: process.env.CHECK_BENCH_NO_DEV ? null : measure(data.dev, refit),
      threshold: thresholdFor(chosen.row.support),
      name: chosen.name,
    };
    console.log(`chosen: ${chosen.name}; threshold on the cross-validated SUPPORT scores ${f3(learned.threshold)}`);
    console.log(`refitted on train: ${JSON.stringify(model)}`);
  }

  const chosen = thresholdFor(trainOurs.support);
  const trainBase = measure(data.train, baseline);
  const baseThreshold = thresholdFor(trainBase.support);
  const devBase = measure(data.dev, baseline);
  const flagged = (r: Row, t: number) => r.support.filter((s) => s < t).length / r.support.length;
  const caught = (r: Row, t: number) => r.swapped.filter((s) => s < t).length / r.swapped.length;

  console.log(
    `\nthreshold chosen on train (≤ 5% of SUPPORT flagged): ${f3(chosen)} (shipped CHECK_THRESHOLD ${f3(CHECK_THRESHOLD)}); baseline's ${f3(baseThreshold)}` +
      (learned ? `; learned ranker's (cross-validated) ${f3(learned.threshold)}` : '') +
      (withModel ? `; with ${neuralModel}'s cosine ${f3(withModel.threshold)} (the checker keeps CHECK_THRESHOLD, below)` : ''),
  );
  console.log('\n| split | scorer | evidence@3 | pairs true > swapped | ROC AUC | correct flagged | swapped caught |');
  console.log('|---|---|---|---|---|---|---|');
  const rows: Array<[string, string, Row, number]> = [
    ['train', 'BM25 over the cited paper (baseline)', trainBase, baseThreshold],
    ['train', 'support score (shipped, offline)', trainOurs, CHECK_THRESHOLD],
  ];
  if (withModel) rows.push(['train', `support score, ${neuralModel} cosine`, withModel.train, CHECK_THRESHOLD]);
  if (learned) rows.push(['train', `learned ranker (cross-validated: ${learned.name})`, learned.train, learned.threshold]);
  rows.push(
    ['dev', 'BM25 over the cited paper (baseline)', devBase, baseThreshold],
    ['dev', 'support score (shipped, offline)', devOurs, CHECK_THRESHOLD],
  );
  if (withModel) rows.push(['dev', `support score, ${neuralModel} cosine`, withModel.dev, CHECK_THRESHOLD]);
  if (learned?.dev) rows.push(['dev', `learned ranker (refitted on train: ${learned.name})`, learned.dev, learned.threshold]);
  for (const [split, name, r, t] of rows) {
    console.log(
      `| ${split} | ${name} | ${f3(r.evidence3)} | ${f3(r.pairs)} | ${f3(r.auc)} | ${pct(flagged(r, t))} | ${pct(caught(r, t))} |`,
    );
  }
  console.log(
    `(claims with evidence: train ${trainOurs.n.evidence}, dev ${devOurs.n.evidence}; pairs: train ${trainOurs.n.pairs}, dev ${devOurs.n.pairs})`,
  );
  console.log('targets (dev): evidence@3 ≥ 0.92, pairs ≥ 0.96, AUC ≥ 0.88, ≤ 5% of correct citations flagged');
}

if (require.main === module) {
  run().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
