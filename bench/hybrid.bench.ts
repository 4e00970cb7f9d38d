// `npm run bench -- hybrid`: hybrid search (store.matchHybrid: k = 25, the product's tuning) on a synthetic corpus
// with a realistic vocabulary, embedded (PGlite, persisted as a user's corpus is) and on a real PostgreSQL 15 +
// pgvector server (test/support/pg-real.ts; skipped where it is absent). Baseline in the same run, on the same
// tables: schema v5's hybrid_sentences / bm25_sentences verbatim (bench/hybrid-v5.sql.ts), timed interleaved with
// the current ones; also printed: how far the two rankings agree (the current lookup bounds its keyword candidates,
// so at scale they may differ a little; recall is checked on real claims by test/integration/retrieval-eval.test.ts).
// Corpus: papers of 5 sections × 10 sentences; each sentence 12–28 words drawn half from a corpus-wide Zipf
// vocabulary (s = 1.07, 40k words) and half from its paper topic's own Zipf ranking of 400 words; vectors
// clustered by topic (bench/store.bench.ts's generator). Queries: 16-word "claims" of a topic with a vector near it.
// Wall-clock times on a shared machine include waiting for a core, so the CPU time each lookup used is printed too
// (the node process's for PGlite, the server backends' /proc/PID/schedstat for PostgreSQL): what one free core
// would take. Default 20k sentences, 100 queries (a few minutes); BENCH_SCALE=large: 100k (the target size);
// HYBRID_BENCH_N overrides the size; HYBRID_BENCH_BACKENDS=pg (or pglite) runs one backend (a 1M corpus is past the
// embedded limit). The server gets the scale bench's lab settings (shared_buffers a quarter of RAM, …). PGlite is
// measured twice: keywords ranked by bm25_sentences in SQL, then by the in-memory keyword index the corpus process
// loads (src/core/store/sql/keyword-index.ts), with its load time and memory.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPGliteStore } from '../src/core/store/backends/pglite.js';
import { openPostgresStore } from '../src/core/store/backends/postgres.js';
import { filterArgs, toHit } from '../src/core/store/rows.js';
import type { SqlCorpusStore } from '../src/core/store/sql/store.js';
import { hybridTuning, type PaperInput } from '../src/core/store/types.js';
import { mulberry32 } from '../src/core/random.js';
import { realPgSkip, startRealPg } from '../test/support/pg-real.js';
import { hybridV5Sql } from './hybrid-v5.sql.js';
import { fmt, median, percentile } from './stats.js';
import { labSettings } from './scale.bench.js';
import { Synthetic } from './store.bench.js';

const D = 384;
const K = 25;
const N = Number(process.env.HYBRID_BENCH_N ?? (process.env.BENCH_SCALE === 'large' ? 100_000 : 20_000));
const QUERIES = Number(process.env.HYBRID_BENCH_QUERIES ?? 100);
const BACKENDS = (process.env.HYBRID_BENCH_BACKENDS ?? 'pglite,pg').split(',');
const VOCABULARY = 40_000;
const TOPIC_WORDS = 400;
const PER_SECTION = 10;
const SECTIONS = 5;

/** Pronounceable letter-only words (digits would be parsed as numbers), distinct per index. */
function word(i: number): string {
  const c = 'bcdfghjklmnprstvz';
  const v = 'aeiou';
  let s = '';
  let x = i + 1;
  while (x > 0) {
    s += c[x % c.length] + v[Math.floor(x / c.length) % v.length];
    x = Math.floor(x / (c.length * v.length));
  }
  return s;
}

/** Sampler of ranks 0..n-1 with P(r) ∝ 1 / (r + 1)^s (inverse CDF by binary search). */
function zipf(n: number, s: number, u: () => number): () => number {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let r = 0; r < n; r++) cdf[r] = acc += 1 / Math.pow(r + 1, s);
  return () => {
    const x = u() * acc;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Sentences and queries of `topics` topics over one vocabulary. */
class Texts {
  private u = mulberry32(7);
  private global = zipf(VOCABULARY, 1.07, this.u);
  private local = zipf(TOPIC_WORDS, 1.0, this.u);
  private topicWords: Int32Array[];
  constructor(topics: number) {
    this.topicWords = Array.from({ length: topics }, () =>
      Int32Array.from({ length: TOPIC_WORDS }, () => 200 + Math.floor(this.u() * (VOCABULARY - 200))),
    );
  }
  words(topic: number, n: number): string {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(word(this.u() < 0.5 ? this.global() : this.topicWords[topic][this.local()]));
    return out.join(' ');
  }
  sentence(topic: number): string {
    return `${this.words(topic, 12 + Math.floor(this.u() * 17))}.`;
  }
}

interface Corpus {
  papers: PaperInput[];
  queries: { vector: Float32Array; text: string }[];
}

export function corpus(n: number, q: number): Corpus {
  const vectors = new Synthetic(n);
  const texts = new Texts(vectors.centres.length);
  const u = mulberry32(11);
  const papers: PaperInput[] = [];
  const perPaper = PER_SECTION * SECTIONS;
  for (let p = 0; p * perPaper < n; p++) {
    const topic = Math.floor(u() * vectors.centres.length);
    const sentences: PaperInput['sentences'] = [];
    for (let g = 0; g < perPaper && p * perPaper + g < n; g++) {
      const section = Math.floor(g / PER_SECTION);
      sentences.push({
        sectionTitle: `Section ${section + 1}`,
        sectionNumber: String(section + 1),
        sectionIndex: section,
        sentenceIndex: g % PER_SECTION,
        globalIndex: g,
        text: texts.sentence(topic),
        embedding: vectors.vectorNear(vectors.centres[topic], 1.0),
      });
    }
    papers.push({ id: `paper-${p}`, title: `Paper ${p}`, authors: ['A. Author'], year: 2000 + (p % 25), venue: 'Synth', sentences });
  }
  const queries = Array.from({ length: q }, () => {
    const topic = Math.floor(u() * vectors.centres.length);
    return { vector: vectors.vectorNear(vectors.centres[topic], 1.2), text: texts.words(topic, 16) };
  });
  return { papers, queries };
}

export async function load(store: SqlCorpusStore, c: Corpus): Promise<number> {
  // float32 on both backends (a new PostgreSQL corpus is half by default): v5's SQL orders by the float32 distance,
  // which only a float32 index serves, so the baseline would otherwise be an exact scan.
  await store.init({ model: 'bench-synthetic', dimensions: D, indexPrecision: 'float32' });
  const t0 = performance.now();
  await store.writePapers(c.papers, { deferIndexes: true });
  await store.driver.exec(hybridV5Sql(D));
  return (performance.now() - t0) / 1000;
}

/** The v5 lookup, called as SqlCorpusStore.matchHybrid calls the current one. */
async function hybridV5(store: SqlCorpusStore, vector: Float32Array, text: string): Promise<number[]> {
  const t = hybridTuning({ count: K });
  const rows = await store.driver.lookup(`SELECT * FROM hybrid_sentences_v5($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, vector, [
    text,
    ...filterArgs({ count: K }),
    t.rrfK,
    t.candidates,
    t.sectionWeight,
    t.perSection,
  ]);
  return rows.map(toHit).map((h) => h.sentence.id);
}

/** CPU milliseconds used so far: the PGlite process's own. */
const processCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** CPU milliseconds used so far by the server backends of `store`'s connections (Linux /proc; NaN elsewhere). */
async function backendCpu(store: SqlCorpusStore): Promise<() => number> {
  const { rows } = await store.driver.query(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`,
  );
  const pids = rows.map((r) => Number(r.pid));
  return () => {
    try {
      return pids.reduce((a, pid) => a + Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6, 0);
    } catch {
      return NaN;
    }
  };
}

async function measure(name: string, store: SqlCorpusStore, c: Corpus, cpu?: () => number): Promise<void> {
  // Warm both (plans, buffer cache) on a few queries first.
  for (const q of c.queries.slice(0, 5)) {
    await hybridV5(store, q.vector, q.text);
    await store.matchHybrid(q.vector, q.text, { count: K });
  }
  const cpuOf = cpu ?? (await backendCpu(store));
  const v5: number[] = [];
  const now: number[] = [];
  const v5Cpu: number[] = [];
  const nowCpu: number[] = [];
  let same = 0;
  let overlap = 0;
  let top1 = 0;
  for (const q of c.queries) {
    let c0 = cpuOf();
    let t0 = performance.now();
    const a = await hybridV5(store, q.vector, q.text);
    v5.push(performance.now() - t0);
    v5Cpu.push(cpuOf() - c0);
    c0 = cpuOf();
    t0 = performance.now();
    const b = (await store.matchHybrid(q.vector, q.text, { count: K })).map((h) => h.sentence.id);
    now.push(performance.now() - t0);
    nowCpu.push(cpuOf() - c0);
    if (a.join() === b.join()) same++;
    if (a[0] === b[0]) top1++;
    overlap += b.filter((id) => a.includes(id)).length / Math.max(1, a.length);
  }
  const row = (label: string, ms: number[], cpuMs: number[]) =>
    `  ${label.padEnd(24)} wall p50 ${fmt(median(ms)).padStart(9)}  p95 ${fmt(percentile(ms, 95)).padStart(9)}` +
    `   CPU p50 ${fmt(median(cpuMs)).padStart(9)}  p95 ${fmt(percentile(cpuMs, 95)).padStart(9)}`;
  console.log(`${name}:`);
  console.log(row('v5 hybrid (baseline)', v5, v5Cpu));
  console.log(row('current hybrid', now, nowCpu));
  console.log(
    `  wall p50 ${(median(v5) / median(now)).toFixed(1)}× faster, p95 ${(percentile(v5, 95) / percentile(now, 95)).toFixed(1)}×; ` +
      `CPU p50 ${(median(v5Cpu) / median(nowCpu)).toFixed(1)}×; ` +
      `top 25 identical for ${same}/${c.queries.length}, same top 1 for ${top1}/${c.queries.length}, mean overlap ${(overlap / c.queries.length).toFixed(3)}`,
  );
}

/** Loads the corpus into a persisted PGlite corpus, reopens it as the corpus process would and measures it. */
async function measurePGlite(c: Corpus): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'corpus-lens-hybrid-bench-'));
  try {
    const lite = await openPGliteStore(join(root, 'corpus'));
    try {
      console.log(`PGlite: loaded with index builds in ${(await load(lite, c)).toFixed(1)} s`);
    } finally {
      await lite.close();
    }
    // Reopened, as the corpus process opens a user's corpus (buffer cache sized to it).
    const reopened = await openPGliteStore(join(root, 'corpus'));
    try {
      await reopened.meta();
      await measure('embedded (PGlite), keywords ranked in SQL (a one-shot command)', reopened, c, processCpu);
      // The corpus process's keyword index (keyword-index.ts): its load, what it holds, then the same lookups.
      global.gc?.();
      const m0 = process.memoryUsage();
      const c0 = processCpu();
      const t0 = performance.now();
      const index = await reopened.keywordIndex();
      const loadMs = performance.now() - t0;
      // V8 frees array buffers' memory after a collection, not during it: collect, wait, collect.
      global.gc?.();
      await new Promise((resolve) => setTimeout(resolve, 500));
      global.gc?.();
      const m1 = process.memoryUsage();
      const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;
      console.log(
        `keyword index: ${index?.size.toLocaleString('en')} sentences loaded in ${fmt(loadMs)} (CPU ${fmt(processCpu() - c0)}); ` +
          `it holds ${mb(index?.bytes ?? 0)}; the process grew heap +${mb(m1.heapUsed - m0.heapUsed)}, array buffers ` +
          `+${mb(m1.arrayBuffers - m0.arrayBuffers)}${global.gc ? '' : ' (no --expose-gc: garbage included)'}`,
      );
      await measure('embedded (PGlite), keywords ranked in memory (the corpus process)', reopened, c, processCpu);
    } finally {
      await reopened.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  console.log(`\n## hybrid search: ${N.toLocaleString('en')} sentences × ${D}-d, k = ${K}, ${QUERIES} queries`);
  const t0 = performance.now();
  const c = corpus(N, QUERIES);
  console.log(`corpus generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (BACKENDS.includes('pglite')) await measurePGlite(c);
  if (!BACKENDS.includes('pg')) return;
  const skip = realPgSkip();
  if (skip) {
    console.log(`real PostgreSQL skipped: ${skip}`);
    return;
  }
  const server = await startRealPg(labSettings());
  try {
    const pg = await openPostgresStore(await server.createDatabase('hybrid'), { connectTimeoutMs: 60_000 });
    try {
      console.log(`PostgreSQL 15: loaded with index builds in ${(await load(pg, c)).toFixed(1)} s`);
      await pg.driver.exec('VACUUM ANALYZE');
      await measure('real PostgreSQL 15 + pgvector', pg, c);
    } finally {
      await pg.close();
    }
  } finally {
    await server.stop();
  }
}
