// Store benchmark (embedded PGlite + pgvector), synthetic clustered 384-d vectors, k = 25:
// bulk load sentences/s (binary COPY, embedding excluded), HNSW build, lookup latency p50/p95 for exact scans and
// HNSW (ef_search 40 / 100) including context and paper, recall@25 of HNSW vs exact, the one-round-trip match vs
// CorpusStudio's client's 1 + 3k round trips, the query vector as binary vs text parameter, open time of the persisted corpus,
// and the RSS a fresh process adds to open it and serve lookups and its peak (VmHWM; measured in a child process, as
// the extension host would). Scales: 10k and 100k sentences; BENCH_SCALE=small runs 5k only (a smoke run, ~1 min).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPGliteStore } from '../src/core/store/backends/pglite.js';
import { toHit, vectorText } from '../src/core/store/rows.js';
import { matchStatement } from '../src/core/store/sql/ranking.js';
import { hnswIndexSql, indexedDistance, vectorIndex } from '../src/core/store/sql/vector.js';
import type { SqlCorpusStore } from '../src/core/store/sql/store.js';
import type { PaperInput } from '../src/core/store/types.js';
import { fmt, median, peakRssMb, percentile } from './stats.js';

const D = 384;
const K = 25;
const SENTENCES_PER_SECTION = 10;

/**
 * Sentence g of synthetic paper p: its section and position from g, two random topic words, then its vector (drawn
 * after the words, from the same random stream, so the generated corpora stay the ones measured before).
 */
function syntheticSentence(p: number, g: number, r: { u(): number }, vector: () => Float32Array): PaperInput['sentences'][number] {
  const text = `paper ${p} sentence ${g} topic words w${Math.floor(r.u() * 5000)} w${Math.floor(r.u() * 5000)}`;
  return {
    sectionTitle: `Section ${Math.floor(g / SENTENCES_PER_SECTION)}`,
    sectionNumber: String(Math.floor(g / SENTENCES_PER_SECTION) + 1),
    sectionIndex: Math.floor(g / SENTENCES_PER_SECTION),
    sentenceIndex: g % SENTENCES_PER_SECTION,
    globalIndex: g,
    text,
    embedding: vector(),
  };
}

const SECTIONS = 5;

/** Deterministic PRNG (mulberry32) and a normal sample. */
function rng(seed: number) {
  let a = seed >>> 0;
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(u() + 1e-12)) * Math.cos(2 * Math.PI * u());
  return { u, normal };
}

function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

/** Clustered data: N/200 topic centres; a sentence = its paper's topic centre + noise. */
export class Synthetic implements SyntheticCorpus {
  readonly centres: Float32Array[];
  private r = rng(42);
  constructor(readonly n: number) {
    const c = Math.max(8, Math.round(n / 200));
    this.centres = Array.from({ length: c }, () => normalise(Float32Array.from({ length: D }, () => this.r.normal())));
  }
  vectorNear(centre: Float32Array, noise: number): Float32Array {
    const v = new Float32Array(D);
    for (let i = 0; i < D; i++) v[i] = centre[i] + (noise / Math.sqrt(D)) * this.r.normal();
    return normalise(v);
  }
  *papers(batch: number): Generator<PaperInput[]> {
    const perPaper = SENTENCES_PER_SECTION * SECTIONS;
    let out: PaperInput[] = [];
    for (let p = 0; p * perPaper < this.n; p++) {
      const centre = this.centres[Math.floor(this.r.u() * this.centres.length)];
      const sentences: PaperInput['sentences'] = [];
      for (let g = 0; g < perPaper && p * perPaper + g < this.n; g++) {
        sentences.push(syntheticSentence(p, g, this.r, () => this.vectorNear(centre, 1.0)));
      }
      out.push({ id: `paper-${p}`, title: `Paper ${p}`, authors: ['A. Author'], year: 2000 + (p % 25), venue: 'Synth', sentences });
      if (out.length >= batch) {
        yield out;
        out = [];
      }
    }
    if (out.length) yield out;
  }
  queries(q: number): Float32Array[] {
    return Array.from({ length: q }, () => this.vectorNear(this.centres[Math.floor(this.r.u() * this.centres.length)], 1.2));
  }
}

/** What a bulk load and the lookups need of a synthetic corpus. */
export interface SyntheticCorpus {
  readonly n: number;
  papers(batch: number): Generator<PaperInput[]>;
  queries(q: number): Float32Array[];
}

/**
 * Topic-structured data, closer to real sentence embeddings than Synthetic: most of a vector's variance lies in a
 * low-dimensional latent space (LATENT directions, fixed at random in the 384), nested topic → paper → section →
 * sentence, plus a small full-rank residue; normalised. Cosine between sentences: same section ≈ 0.55, same paper
 * ≈ 0.45, same topic ≈ 0.3, unrelated ≈ 0 (±0.15) — the shape of MiniLM-class embeddings of scientific prose, where
 * the neighbours of a sentence are its paper's and its topic's. Synthetic, by contrast, adds to each of N/200
 * centres full-rank isotropic noise as large as the centre: within a cluster the 200 sentences are almost
 * equidistant from a query (384 intrinsic dimensions), the hardest case for HNSW. Queries: half a new sentence of an
 * existing paper (a new section of it), half a new sentence of a new paper on an existing topic; `seed` separates a
 * tuning query set from a held-out one.
 */
export class Topical implements SyntheticCorpus {
  static readonly LATENT = 48;
  private readonly basis: Float32Array[];
  private readonly topics: Float32Array[];
  private readonly paperLatent: Float32Array[];
  private r = rng(7);
  constructor(readonly n: number) {
    const L = Topical.LATENT;
    const gauss = (len: number, s = 1) => Float32Array.from({ length: len }, () => s * this.r.normal());
    this.basis = Array.from({ length: L }, () => normalise(gauss(D)));
    this.topics = Array.from({ length: Math.max(8, Math.round(n / 2000)) }, () => gauss(L));
    const papers = Math.ceil(n / (SENTENCES_PER_SECTION * SECTIONS));
    this.paperLatent = Array.from({ length: papers }, () => this.near(this.topics[Math.floor(this.r.u() * this.topics.length)], 0.7));
  }
  private near(z: Float32Array, s: number, r = this.r): Float32Array {
    return Float32Array.from(z, (x) => x + s * r.normal());
  }
  /** The latent point in the 384-d space with the full-rank residue, normalised. */
  private embed(z: Float32Array, r = this.r): Float32Array {
    const v = new Float32Array(D);
    for (let j = 0; j < z.length; j++) {
      const b = this.basis[j];
      const c = z[j];
      for (let i = 0; i < D; i++) v[i] += c * b[i];
    }
    const residue = Math.sqrt((0.45 * z.length) / D);
    for (let i = 0; i < D; i++) v[i] += residue * r.normal();
    return normalise(v);
  }
  *papers(batch: number): Generator<PaperInput[]> {
    const perPaper = SENTENCES_PER_SECTION * SECTIONS;
    let out: PaperInput[] = [];
    for (let p = 0; p * perPaper < this.n; p++) {
      const sentences: PaperInput['sentences'] = [];
      let section = this.paperLatent[p];
      for (let g = 0; g < perPaper && p * perPaper + g < this.n; g++) {
        if (g % SENTENCES_PER_SECTION === 0) section = this.near(this.paperLatent[p], 0.6);
        sentences.push(syntheticSentence(p, g, this.r, () => this.embed(this.near(section, 1.0))));
      }
      out.push({ id: `paper-${p}`, title: `Paper ${p}`, authors: ['A. Author'], year: 2000 + (p % 25), venue: 'Synth', sentences });
      if (out.length >= batch) {
        yield out;
        out = [];
      }
    }
    if (out.length) yield out;
  }
  queries(q: number, seed = 1): Float32Array[] {
    const r = rng(1000 + seed);
    return Array.from({ length: q }, (_, i) => {
      const paper =
        i % 2 === 0
          ? this.paperLatent[Math.floor(r.u() * this.paperLatent.length)]
          : this.near(this.topics[Math.floor(r.u() * this.topics.length)], 0.7, r);
      return this.embed(this.near(this.near(paper, 0.6, r), 1.0, r), r);
    });
  }
}

/**
 * The synthetic corpus written as a bulk load does it (indexes dropped first, 40 papers a call; the caller rebuilds
 * them): rows written, milliseconds in the store, and milliseconds generating vectors (kept out of the rate).
 */
export async function bulkLoad(store: SqlCorpusStore, data: SyntheticCorpus): Promise<{ rows: number; loadMs: number; genMs: number }> {
  await store.dropSearchIndexes();
  let loadMs = 0;
  let genMs = 0;
  let rows = 0;
  let tg = performance.now();
  for (const batch of data.papers(40)) {
    genMs += performance.now() - tg;
    const tl = performance.now();
    rows += (await store.writePapers(batch)).sentences;
    loadMs += performance.now() - tl;
    tg = performance.now();
  }
  return { rows, loadMs, genMs };
}

function dirSizeMb(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else total += statSync(p).size;
    }
  };
  walk(dir);
  return total / 1e6;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

async function lookups(store: SqlCorpusStore, queries: Float32Array[]): Promise<{ ms: number[]; ids: number[][] }> {
  const ms: number[] = [];
  const ids: number[][] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const hits = await store.matchVector(q, { count: K });
    ms.push(performance.now() - t0);
    ids.push(hits.map((h) => h.sentence.id));
  }
  return { ms, ids };
}

function recall(approx: number[][], exact: number[][]): number {
  let hit = 0;
  let total = 0;
  approx.forEach((a, i) => {
    const truth = new Set(exact[i]);
    total += truth.size;
    for (const id of a) if (truth.has(id)) hit++;
  });
  return total ? hit / total : NaN;
}

/** CorpusStudio's client's pattern: one search, then for each hit the target (offset), next and previous: 1 + 3k statements. */
async function seedPattern(store: SqlCorpusStore, q: Float32Array): Promise<number> {
  const d = store.driver;
  const top = await d.query(`SELECT id FROM sentences ORDER BY embedding <=> $1::vector LIMIT ${K}`, [vectorText(q)]);
  let trips = 1;
  for (const r of top.rows) {
    const cur = await d.query('SELECT * FROM sentences WHERE id = $1', [r.id]);
    const s = cur.rows[0];
    for (const delta of [1, -1]) {
      await d.query('SELECT * FROM sentences WHERE paper_id = $1 AND section_title = $2 AND sentence_index = $3', [
        s.paper_id,
        s.section_title,
        Number(s.sentence_index) + delta,
      ]);
    }
    trips += 3;
  }
  return trips;
}

async function timeEach(queries: Float32Array[], fn: (q: Float32Array) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await fn(q);
    ms.push(performance.now() - t0);
  }
  return ms;
}

const p = (ms: number[]) => `p50 ${fmt(median(ms))}  p95 ${fmt(percentile(ms, 95))}`;

async function benchScale(n: number): Promise<void> {
  console.log(`\n## ${n.toLocaleString('en')} sentences × ${D}-d (clustered synthetic), k = ${K}`);
  const root = mkdtempSync(join(tmpdir(), 'corpus-lens-bench-'));
  const dir = join(root, 'corpus');
  const rss0 = process.memoryUsage().rss;
  try {
    const t0 = performance.now();
    const store = await openPGliteStore(dir);
    await store.init({ model: 'bench-synthetic', dimensions: D });
    console.log(`create corpus (initdb + schema): ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const data = new Synthetic(n);
    const { rows, loadMs, genMs } = await bulkLoad(store, data);
    const rssLoad = process.memoryUsage().rss; // in-process figure; the clean one is the fresh child process below
    console.log(
      `bulk load (binary COPY, grouped transactions, HNSW/GIN deferred): ${rows} rows in ${(loadMs / 1000).toFixed(1)} s = ` +
        `${Math.round(rows / (loadMs / 1000)).toLocaleString('en')} sentences/s (vector generation ${(genMs / 1000).toFixed(1)} s excluded) [target ≥ 5,000]`,
    );
    const tb = performance.now();
    await store.createSearchIndexes();
    const buildS = (performance.now() - tb) / 1000;
    console.log(`HNSW (m 16, ef_construction 64) + full-text index build: ${buildS.toFixed(1)} s`);

    const nq = n >= 50_000 ? 60 : 150;
    const queries = data.queries(nq);
    // Exact: the same statement, unprepared (planned at every call), with index scans disabled: a sequential scan +
    // sort. (A prepared statement keeps the plan it was first given, whatever the settings later.)
    await store.driver.exec('SET enable_indexscan = off');
    const exact = { ms: [] as number[], ids: [] as number[][] };
    for (const [i, q] of queries.entries()) {
      const t = performance.now();
      const rows = await store.driver.lookup(matchStatement(K, vectorIndex(D, 'float32')), q, [null, 0]);
      if (i >= 3) exact.ms.push(performance.now() - t);
      exact.ids.push(rows.map((r) => toHit(r).sentence.id));
    }
    await store.driver.exec('SET enable_indexscan = on');
    console.log(`exact scan, match + context + paper:   ${p(exact.ms)}   (baseline)`);
    for (const ef of [40, 100]) {
      await store.driver.exec(`SET hnsw.ef_search = ${ef}`);
      await lookups(store, queries.slice(0, 3));
      const h = await lookups(store, queries);
      console.log(
        `HNSW ef_search ${String(ef).padEnd(3)} match + context + paper: ${p(h.ms)}   ` +
          `${(median(exact.ms) / median(h.ms)).toFixed(1)}× faster, recall@${K} ${recall(h.ids, exact.ids).toFixed(3)}` +
          (ef === 100 ? ` [targets at 100k: p50 ≤ 15 ms, recall ≥ 0.95]` : ''),
      );
    }
    await store.driver.exec('SET hnsw.ef_search = 100');

    // The prepared plain statement the store sends vs calling the PL/pgSQL function (custom plan every call),
    // interleaved so that both see the same machine load.
    const prepared: number[] = [];
    const viaFunction: number[] = [];
    for (const q of queries) {
      let t = performance.now();
      await store.matchVector(q, { count: K });
      prepared.push(performance.now() - t);
      t = performance.now();
      await store.driver.lookup(`SELECT * FROM match_sentences($1, NULL, ${K})`, q, []);
      viaFunction.push(performance.now() - t);
    }
    console.log(
      `prepared statement (what matchVector sends): ${p(prepared)}  vs the match_sentences function: ${p(viaFunction)}  ` +
        `→ ${(median(viaFunction) / median(prepared)).toFixed(2)}×`,
    );

    // Filtered lookups (iterative scan keeps k rows).
    const filt = await timeEach(queries.slice(0, 40), (q) => store.matchVector(q, { count: K, yearMin: 2020 }));
    console.log(`HNSW ef 100 with a year filter (iterative scan):  ${p(filt)}`);

    // One round trip vs CorpusStudio's client's 1 + 3k.
    const sub = queries.slice(0, 30);
    const one = await timeEach(sub, (q) => store.matchVector(q, { count: K }));
    let trips = 0;
    const seed = await timeEach(sub, async (q) => (trips = await seedPattern(store, q)));
    console.log(
      `one statement (match + context + paper): ${p(one)}  vs seed's 1 + 3k (${trips} statements, no paper): ${p(seed)}  ` +
        `→ ${(median(seed) / median(one)).toFixed(1)}× faster`,
    );

    // The query vector as a binary protocol parameter (what the store does) vs a text parameter (db.query),
    // interleaved so that both see the same machine load.
    const bin: number[] = [];
    const txt: number[] = [];
    for (const q of sub) {
      let t = performance.now();
      await store.driver.lookup('SELECT * FROM match_sentences($1, NULL, $2)', q, [K]);
      bin.push(performance.now() - t);
      t = performance.now();
      await store.driver.query('SELECT * FROM match_sentences($1::vector, NULL, $2)', [vectorText(q), K]);
      txt.push(performance.now() - t);
    }
    console.log(
      `query vector as binary parameter: ${p(bin)}  vs text parameter: ${p(txt)}  → ${(median(txt) - median(bin)).toFixed(2)} ms saved per lookup`,
    );

    // Sizes, and halfvec (16-bit floats) as an expression HNSW index over the same column.
    const size = async (rel: string) => Number((await store.driver.query(`SELECT pg_total_relation_size('${rel}') AS b`)).rows[0].b);
    const hnswBytes = await size('sentences_embedding_hnsw');
    const tableBytes = Number((await store.driver.query(`SELECT pg_table_size('sentences') AS b`)).rows[0].b);
    if (n > 10_000) {
      console.log(
        `sizes: sentences table ${mb(tableBytes)}, HNSW vector index ${mb(hnswBytes)} (halfvec measured at ≤ 10k only: its expression-index build is ~10× slower here)`,
      );
    } else {
      const th = performance.now();
      const halfIndex = vectorIndex(D, 'half');
      await store.driver.exec(
        `SET maintenance_work_mem = '256MB'; ${hnswIndexSql(halfIndex, 'sentences_embedding_hnsw_half', 'sentences')}`,
      );
      const halfBuild = (performance.now() - th) / 1000;
      const halfBytes = await size('sentences_embedding_hnsw_half');
      await store.driver.exec('SET hnsw.ef_search = 100');
      const half = { ms: [] as number[], ids: [] as number[][] };
      for (const q of queries) {
        const t = performance.now();
        const r = await store.driver.lookup(
          `SELECT s.id FROM sentences s ORDER BY ${indexedDistance(halfIndex, 's.embedding', '$1::vector')} LIMIT ${K}`,
          q,
          [],
        );
        half.ms.push(performance.now() - t);
        half.ids.push(r.map((x) => Number(x.id)));
      }
      console.log(
        `sizes: sentences table ${mb(tableBytes)}, HNSW vector index ${mb(hnswBytes)}; halfvec HNSW index ${mb(halfBytes)} ` +
          `(${(hnswBytes / halfBytes).toFixed(1)}× smaller, build ${halfBuild.toFixed(1)} s), top-${K} ids only: ${p(half.ms)}, recall@${K} ${recall(half.ids, exact.ids).toFixed(3)}`,
      );
      await store.driver.exec('DROP INDEX sentences_embedding_hnsw_half');
    }

    await store.close();
    console.log(
      `data dir: ${dirSizeMb(dir).toFixed(0)} MB (pg_wal ${dirSizeMb(join(dir, 'pg_wal')).toFixed(0)} MB); RSS of this process after load: +${mb(rssLoad - rss0)}`,
    );

    // A fresh process opens the persisted corpus and serves lookups: open time, first lookup, RSS it adds; with
    // PGlite's default buffer cache (the baseline) and with the store's.
    for (const buffers of ['default', 'sized']) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', __filename], {
        env: { ...process.env, STORE_BENCH_CHILD: dir, STORE_BENCH_N: String(n), STORE_BENCH_BUFFERS: buffers },
        encoding: 'utf8',
      });
      console.log(out.trim());
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Child: open the persisted corpus, 100 lookups; print open time, first lookup, p50, RSS added. */
async function child(dir: string, n: number): Promise<void> {
  const data = new Synthetic(n);
  const queries = data.queries(101);
  const buffers = process.env.STORE_BENCH_BUFFERS ?? 'sized';
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const store = await openPGliteStore(dir, buffers === 'default' ? { sharedBuffers: null } : {});
  await store.meta();
  const chosen = String((await store.driver.query(`SELECT current_setting('shared_buffers') AS b`)).rows[0].b);
  const openMs = performance.now() - t0;
  const t1 = performance.now();
  await store.matchVector(queries[0], { count: K });
  const firstMs = performance.now() - t1;
  const ms = await timeEach(queries.slice(1), (q) => store.matchVector(q, { count: K }));
  const rss = process.memoryUsage().rss;
  console.log(
    `fresh process, shared_buffers ${buffers === 'default' ? `${chosen} (PGlite's default, baseline)` : `${chosen} (sized by the store)`}: ` +
      `open persisted corpus ${fmt(openMs)}, first lookup ${fmt(firstMs)}, then ${p(ms)}; ` +
      `RSS added ${mb(rss - rss0)} (total ${mb(rss)}, peak ${peakRssMb().toFixed(0)} MB) ` +
      `[in VS Code this is the corpus process's, not the extension host's: bench/extension.bench.ts]`,
  );
  await store.close();
}

export async function run(): Promise<void> {
  // STORE_BENCH_N="100000,500000" for other sizes (500k: the corpus process's peak memory at the issue's size).
  const scales = process.env.STORE_BENCH_N
    ? process.env.STORE_BENCH_N.split(',').map(Number)
    : process.env.BENCH_SCALE === 'small'
      ? [5_000]
      : [10_000, 100_000];
  console.log('# store.bench: embedded PGlite + pgvector');
  for (const n of scales) await benchScale(n);
}

if (process.env.STORE_BENCH_CHILD) {
  child(process.env.STORE_BENCH_CHILD, Number(process.env.STORE_BENCH_N)).catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
