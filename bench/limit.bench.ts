// `npm run bench -- limit`: how large an embedded (PGlite) corpus can grow and still open and answer a lookup
// (match + context + paper, k = 25, ef_search as the store sets it for that size) at p50 ≤ 15 ms. For each size: a fresh PGlite corpus, bulk load
// (binary COPY, indexes deferred), HNSW + GIN build (printing whether pgvector had to go on on disk), statistics recount; then a FRESH process opens the persisted
// corpus, as the corpus process would, and times 100 lookups (then again, the index's pages read); recall@25 of
// those lookups against an exact scan (20 queries; strict, and ann-benchmarks' k-nn recall, where a hit tied with
// the exact 25th counts: stats.ts recallAtK); the process's peak RSS (VmHWM) beside it. A size that fails (PGlite's WASM heap is capped at 2 GiB)
// prints the error and stops the series. Clustered synthetic 384-d vectors (bench/store.bench.ts's generator).
// Default 20k (a smoke run); LIMIT_BENCH_N="500000,1000000" for the measurement (each size takes many minutes).
// LIMIT_BENCH_TYPES="float32,halfvec" (default float32): float32 is the product's HNSW 16/64 on the float32 column;
// halfvec is a corpus created with the store's half index precision: the float32 column, an HNSW 16/64 index of its
// halfvec cast, the store's lookup through the same cast (half the index, hence of the pages a lookup reads). Recall is always against the exact float32 scan. Each size prints one line "peak memory" with the loading
// process's and the corpus process's (the fresh process serving lookups) peak RSS. LIMIT_BENCH_EFS times other
// ef_search values against the same exact answers; LIMIT_BENCH_RECALL_QUERIES (default 20) sets how many.
// LIMIT_BENCH_CONNECTIVITY / LIMIT_BENCH_EXPANSION_ADD (default: the product's graph for the size, graphFor) build
// the native index's HNSW graph with other settings, whatever the size; LIMIT_BENCH_REBUILD_INDEX=1 with LIMIT_BENCH_DIR removes a kept corpus's index file
// so that the fresh process builds it with them (timed: the same rows, one PGlite load for many graph settings).
// The machine is shared: wall times are printed with the process CPU time and the load average.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { openPGliteStore } from '../src/core/store/backends/pglite.js';
import { efSearch, graphFor, readVectors, retireFiles, type GraphSettings } from '../src/core/store/sql/native-index.js';
import type { SqlCorpusStore } from '../src/core/store/sql/store.js';
import {
  exactLookup,
  fmt,
  load,
  median,
  missesAtK,
  peakRssMb,
  percentile,
  rankedOf,
  recallAtK,
  KNN_EPSILON,
  type Ranked,
} from './stats.js';
import { Synthetic } from './store.bench.js';

const D = 384;
const K = 25;
const SIZES = (process.env.LIMIT_BENCH_N ?? '20000').split(',').map(Number);
const TYPES = (process.env.LIMIT_BENCH_TYPES ?? 'float32').split(',') as VectorType[];
type VectorType = 'float32' | 'halfvec';
/** LIMIT_BENCH_EFS="200,300,400": ef_search values timed beside the store's own, with their recall. */
const EXTRA_EFS = (process.env.LIMIT_BENCH_EFS ?? '').split(',').filter(Boolean).map(Number);
/** LIMIT_BENCH_BREADTHS="800,1000,1250": the native index's search breadths timed beside the size rule's, with their recall. */
const EXTRA_BREADTHS = (process.env.LIMIT_BENCH_BREADTHS ?? '').split(',').filter(Boolean).map(Number);
/** Queries whose recall@25 is measured against an exact scan: the tuning set, then the held-out set. */
const RECALL_QUERIES = Number(process.env.LIMIT_BENCH_RECALL_QUERIES ?? 20);
const HELD_OUT = Number(process.env.LIMIT_BENCH_HELDOUT ?? 0);
/** LIMIT_BENCH_DIR: build the corpus of the (single) size there and keep it; an existing one is served again, not rebuilt. */
const KEEP_DIR = process.env.LIMIT_BENCH_DIR;
/**
 * The native index's graph settings for the index built here: the bench's knobs, fixed whatever the size (the store's
 * nativeGraph), or, with neither set, undefined: the product's (graphFor the corpus's size, keepsGraph).
 */
const GRAPH: GraphSettings | undefined =
  process.env.LIMIT_BENCH_CONNECTIVITY || process.env.LIMIT_BENCH_EXPANSION_ADD
    ? {
        connectivity: Number(process.env.LIMIT_BENCH_CONNECTIVITY ?? 16),
        expansionAdd: Number(process.env.LIMIT_BENCH_EXPANSION_ADD ?? 64),
      }
    : undefined;
const graphLabel = (n: number) => {
  const g = GRAPH ?? graphFor(n);
  return `m ${g.connectivity}, ef_construction ${g.expansionAdd}${GRAPH ? '' : ", the product's for this size"}`;
};
const REBUILD_INDEX = process.env.LIMIT_BENCH_REBUILD_INDEX === '1';
/**
 * A far query: its nearest sentence is at cosine below this. In the clustered corpus a query's topic centre holds no
 * sentence for ~2 % of queries (papers pick among n/200 centres, ~4 each: e^-4 of centres get none); its exact
 * neighbours are then scattered at ~0.2, where a query with a topic has its nearest at ~0.5. They are the hardest
 * queries for the graph, and a set of 100 draws between none and a few of them, so the count is printed per set.
 */
const FAR = 0.3;

const precisionOf = (type: VectorType) => (type === 'halfvec' ? 'half' : 'float32');

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function build(dir: string, n: number, type: VectorType): Promise<number> {
  const store = await openPGliteStore(dir, { nativeGraph: GRAPH });
  try {
    await store.init({ model: 'bench-synthetic', dimensions: D, indexPrecision: precisionOf(type) });
    await store.dropSearchIndexes();
    const data = new Synthetic(n);
    let t = performance.now();
    let c = cpuMs();
    let rows = 0;
    for (const batch of data.papers(40)) rows += (await store.writePapers(batch)).sentences;
    const loadS = (performance.now() - t) / 1000;
    const loadCpu = (cpuMs() - c) / 1000;
    t = performance.now();
    c = cpuMs();
    const spilled = await spillNotices(store, () => store.createSearchIndexes());
    console.log(
      `  load ${rows.toLocaleString('en')} rows ${loadS.toFixed(0)} s (CPU ${loadCpu.toFixed(0)} s, vector generation included); ` +
        `index build + recount ${((performance.now() - t) / 1000).toFixed(0)} s (CPU ${((cpuMs() - c) / 1000).toFixed(0)} s; ` +
        `${spilled.length ? `built on disk: ${spilled.join('; ')}` : 'each graph built in memory'}); ` +
        `peak RSS of the loading process ${peakRssMb().toFixed(0)} MB; ${load()}`,
    );
    return peakRssMb();
  } finally {
    await store.close();
  }
}

/** Runs `work` and returns pgvector's notices that an HNSW graph outgrew maintenance_work_mem (and went on on disk). */
async function spillNotices(store: SqlCorpusStore, work: () => Promise<void>): Promise<string[]> {
  const db = (store.driver as unknown as { db: PGlite }).db;
  const exec = db.exec.bind(db);
  const notices: string[] = [];
  db.exec = (sql, options) =>
    exec(sql, { ...options, onNotice: (n) => void (/no longer fits/.test(n.message ?? '') && notices.push(n.message ?? '')) });
  try {
    await work();
  } finally {
    db.exec = exec;
  }
  return notices;
}

async function sizeOf(dir: string): Promise<string> {
  const du = (d: string) => execFileSync('du', ['-sm', d], { encoding: 'utf8' }).split('\t')[0];
  return `data dir ${du(dir)} MB (pg_wal ${du(join(dir, 'pg_wal'))} MB)`;
}

/**
 * The exact top K of every query by a brute-force scan of the stored float32 vectors (usearch's exactSearch, on
 * every core: at 500k about a second for 200 queries, where PGlite's exact scan takes ~1 s a query). Checked
 * against PGlite's own exact scan on the first queries (`exactLookup`).
 */
async function exactAnswers(store: SqlCorpusStore, queries: Float32Array[]): Promise<Ranked[]> {
  const ids: number[] = [];
  const parts: Float32Array[] = [];
  for (let after = 0; ;) {
    const page = await readVectors(store.driver, after, D);
    if (!page.keys.length) break;
    for (const k of page.keys) ids.push(Number(k));
    parts.push(page.vectors);
    after = ids[ids.length - 1];
  }
  const dataset = new Float32Array(ids.length * D);
  let o = 0;
  for (const p of parts) dataset.set(p, (o += p.length) - p.length);
  parts.length = 0;
  const flat = new Float32Array(queries.length * D);
  queries.forEach((q, i) => flat.set(q, i * D));
  const usearch = createRequire(__filename)('usearch') as typeof import('usearch');
  const m = usearch.exactSearch(dataset, flat, D, K, usearch.MetricKind.Cos, 0) as import('usearch').BatchMatches;
  return queries.map((_, i) => {
    const at = Array.from({ length: K }, (_, j) => i * K + j);
    return { ids: at.map((j) => ids[Number(m.keys[j])]), sims: at.map((j) => 1 - m.distances[j]) };
  });
}

/**
 * The saved index file's size and what reading it whole and writing it again take (a save's worker does both: past
 * saveAfter, or on close after appends to a memory-mapped index), by usearch itself, on a copy in the folder.
 */
function fileTimes(dir: string): string {
  const file = readdirSync(dir).find((f) => /^corpus-lens-vectors\..*\.usearch$/.test(f));
  if (!file) return 'no index file';
  const usearch = createRequire(__filename)('usearch') as typeof import('usearch');
  const index = new usearch.Index({
    dimensions: D,
    metric: usearch.MetricKind.Cos,
    quantization: file.includes('.f16.') ? usearch.ScalarKind.F16 : usearch.ScalarKind.F32,
    connectivity: 16,
    expansion_add: 64,
    expansion_search: 64,
    multi: false,
  });
  let t = performance.now();
  index.load(join(dir, file));
  const loadS = (performance.now() - t) / 1000;
  const copy = join(dir, 'limit-bench-save.tmp');
  t = performance.now();
  index.save(copy);
  const saveS = (performance.now() - t) / 1000;
  const mb = statSync(copy).size / 2 ** 20;
  rmSync(copy, { force: true });
  return `index file ${mb.toFixed(0)} MB: read whole ${loadS.toFixed(1)} s, written again ${saveS.toFixed(1)} s (a save's worker does both); peak RSS ${peakRssMb().toFixed(0)} MB`;
}

/**
 * Child: open the persisted corpus, time lookups, recall against an exact scan, peak RSS. Recall is reported on two
 * query sets: the tuning set (LIMIT_BENCH_RECALL_QUERIES, on which the size rule's breadth is chosen) and the held-out
 * set after it (LIMIT_BENCH_HELDOUT), which no choice looked at.
 */
async function child(dir: string, n: number): Promise<void> {
  const sets = { tuning: RECALL_QUERIES, heldOut: HELD_OUT };
  const queries = new Synthetic(n).queries(1 + Math.max(100, sets.tuning + sets.heldOut));
  const t0 = performance.now();
  const store = await openPGliteStore(dir, { nativeGraph: GRAPH });
  await store.meta();
  const openMs = performance.now() - t0;
  if (REBUILD_INDEX) {
    // The parent removed the index file: built here from the stored vectors with GRAPH's settings, and saved.
    const t = performance.now();
    const c = cpuMs();
    await store.vectorIndex();
    console.log(
      `  native index built on open (${graphLabel(n)}): ` +
        `${((performance.now() - t) / 1000).toFixed(1)} s (CPU ${((cpuMs() - c) / 1000).toFixed(1)} s, every core); ${load()}`,
    );
  }
  const t1 = performance.now();
  // The product's lookup: the corpus's recorded index precision, ef_search by its size (set at the first lookup).
  const lookup = (q: Float32Array) => store.matchVector(q, { count: K });
  await lookup(queries[0]);
  const firstMs = performance.now() - t1;
  const ef = Number((await store.driver.query(`SELECT current_setting('hnsw.ef_search') AS ef`)).rows[0].ef);
  // Where the native index serves (the default), its search breadth is what the lookups use, not pgvector's setting.
  const native = await store.vectorIndex(false);
  const breadth = native
    ? `native index (usearch, its graph m ${native.connectivity}; ${graphLabel(n)}), search breadth ${efSearch(native.size, native.connectivity)}`
    : `ef_search ${ef} (the store's, by size)`;
  const timed = async () => {
    const ms: number[] = [];
    const cpu: number[] = [];
    const answers: Ranked[] = [];
    for (const q of queries.slice(1)) {
      const c = cpuMs();
      const t = performance.now();
      const hits = await lookup(q);
      ms.push(performance.now() - t);
      cpu.push(cpuMs() - c);
      answers.push(rankedOf(hits));
    }
    return { ms, cpu, answers };
  };
  const shipped = await timed();
  const servingRss = peakRssMb();
  // The store's breadth again, now that the first lookups have read the index's pages (the first set pays for
  // them: up to 2× at 300k), and other values through the same lookup, against the same answers: the native
  // index's search breadth (LIMIT_BENCH_BREADTHS), or pgvector's ef_search (the session setting its lookup reads).
  const others: { label: string; r: Awaited<ReturnType<typeof timed>> }[] = [];
  if (native) {
    const own = efSearch(native.size, native.connectivity);
    for (const b of [own, ...EXTRA_BREADTHS.filter((e) => e !== own)]) {
      native.breadth = b;
      others.push({ label: `at search breadth ${b}${b === own ? ' again' : ''}`, r: await timed() });
    }
    native.breadth = undefined;
  } else {
    for (const other of [ef, ...EXTRA_EFS.filter((e) => e !== ef)]) {
      await store.driver.exec(`SET hnsw.ef_search = ${other}`);
      others.push({ label: `at ef_search ${other}${other === ef ? ' again' : ''}`, r: await timed() });
    }
  }
  const te = performance.now();
  const truth = await exactAnswers(store, queries.slice(1, 1 + sets.tuning + sets.heldOut));
  const exactS = (performance.now() - te) / 1000;
  await store.driver.exec('SET enable_indexscan = off');
  const checked = Math.min(3, truth.length);
  let agree = 0;
  for (let i = 0; i < checked; i++) {
    const pg = await exactLookup(store, queries[i + 1], K);
    agree += pg.ids.filter((id) => truth[i].ids.includes(id)).length;
  }
  const rssAfter = peakRssMb();
  await store.close();
  const io = native ? fileTimes(dir) : '';
  const recall = (answers: Ranked[], from: number, count: number) => {
    const got = answers.slice(from, from + count);
    const want = truth.slice(from, from + count);
    const r = recallAtK(got, want, K);
    // The misses counted and placed: a mean to three places printed 1.000 for one id missed in 2,500, and the two
    // sets differ by how many far queries they drew (the tuning set at 500k two, the held-out none), which hold most
    // of a dense graph's misses.
    const m = missesAtK(got, want, K);
    const worst = m.queries
      .slice(0, 3)
      .map((q) => `${q.share.toFixed(2)}${q.nearest < FAR ? ' far' : ''}`)
      .join(', ');
    const far = want.filter((w) => w.sims[0] < FAR).length;
    return (
      `${r.strict.toFixed(3)}, k-nn (ties within ${KNN_EPSILON}) ${r.knn.toFixed(3)} (${count} queries, ${far} far; ` +
      `${m.missed} of ${m.of.toLocaleString('en')} ids missed${m.missed ? ` in ${m.queries.length} quer${m.queries.length === 1 ? 'y' : 'ies'}, worst ${worst}` : ''})`
    );
  };
  const figures = (r: Awaited<ReturnType<typeof timed>>) =>
    `p50 ${fmt(median(r.ms))} p95 ${fmt(percentile(r.ms, 95))} (CPU p50 ${fmt(median(r.cpu))}) [target p50 ≤ 15 ms]; ` +
    `recall@${K} strict vs exact: tuning ${recall(r.answers, 0, sets.tuning)}` +
    (sets.heldOut ? `; held-out ${recall(r.answers, sets.tuning, sets.heldOut)}` : '');
  console.log(
    `  fresh process: open ${fmt(openMs)}, first lookup ${fmt(firstMs)}, then (the first ${queries.length - 1}) ${figures(shipped)}; ${breadth}; ` +
      `peak RSS serving ${servingRss.toFixed(0)} MB, after the exact scans ${rssAfter.toFixed(0)} MB; ${load()}`,
  );
  console.log(
    `    exact answers: brute force over the stored vectors ${exactS.toFixed(1)} s; PGlite's exact scan agrees on ${agree} of ${checked * K} ids (first ${checked} queries)`,
  );
  for (const o of others) console.log(`    ${o.label}: ${figures(o.r)}`);
  if (io) console.log(`    ${io}`);
  console.log(`PEAK_SERVING ${servingRss.toFixed(0)}`);
}

export async function run(): Promise<void> {
  console.log(
    `\n## embedded corpus limit (PGlite, ${TYPES.join(' and ')} ${D}-d, k = ${K}): sizes ${SIZES.map((n) => n.toLocaleString('en')).join(', ')}`,
  );
  for (const type of TYPES) for (const n of SIZES) if (!(await size(n, type))) break;
}

/** One size: false when it failed (larger sizes of the type are skipped). */
async function size(n: number, type: VectorType): Promise<boolean> {
  console.log(`${n.toLocaleString('en')} sentences, ${type}:`);
  const root = KEEP_DIR ?? mkdtempSync(join(tmpdir(), 'corpus-lens-limit-bench-'));
  const dir = join(root, 'corpus');
  try {
    let loading = NaN;
    try {
      if (existsSync(dir)) {
        console.log(`  served again from ${dir} (built by an earlier run)${REBUILD_INDEX ? '; its native index file removed' : ''}`);
        if (REBUILD_INDEX) retireFiles(dir);
      } else loading = await build(dir, n, type);
    } catch (err) {
      console.log(`  FAILED to load/build: ${err instanceof Error ? err.message : String(err)}; peak RSS ${peakRssMb().toFixed(0)} MB`);
      return false;
    }
    console.log(`  ${await sizeOf(dir)}`);
    try {
      const out = execFileSync(process.execPath, ['--import', 'tsx', __filename], {
        env: { ...process.env, LIMIT_BENCH_CHILD: dir, LIMIT_BENCH_CHILD_N: String(n) },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const serving = /PEAK_SERVING (\d+)/.exec(out)?.[1] ?? '?';
      console.log(out.replace(/^PEAK_SERVING.*\n?/m, '').trimEnd());
      // The loading process's peak is the largest this session reached so far (VmHWM only grows).
      console.log(
        `  peak memory at ${n.toLocaleString('en')} (${type}): corpus process (opens the corpus, serves lookups) ${serving} MB; ` +
          `loading process (bulk load + index build) ${Number.isNaN(loading) ? 'not run (served again)' : `${loading.toFixed(0)} MB`}`,
      );
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      console.log(`  FAILED to open/serve in a fresh process: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' | ')}`);
      return false;
    }
  } finally {
    if (!KEEP_DIR) rmSync(root, { recursive: true, force: true });
  }
  return true;
}

if (process.env.LIMIT_BENCH_CHILD) {
  child(process.env.LIMIT_BENCH_CHILD, Number(process.env.LIMIT_BENCH_CHILD_N)).catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
