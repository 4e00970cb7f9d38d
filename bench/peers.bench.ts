// The embedded corpus against the engines a user could pick instead, on the same vectors in one run (issue 35):
// Corpus Lens with the native vector index (usearch, sql/native-index.ts) and without it (pgvector's HNSW in PGlite,
// CORPUS_LENS_NATIVE_INDEX=1 / 0), LanceDB (dev dependency, bench only; skipped when not installed), usearch alone, and
// the exact-scan floor (a brute-force scan in JS, which also gives the exact answers). Each engine's figures with
// their ratio to Corpus Lens native's:
// - build: sentences/s of the load including every index (vector generation excluded);
// - disk: the folder's size;
// - vector + context p50: top 25 with the previous/next sentence and paper, Corpus Lens through its corpus process
//   (openRemoteStore, as VS Code runs it: a new corpus process after the build); LanceDB: the top 25 and their rows
//   (a new connection after the build); usearch alone: ids only;
// - vector CPU per lookup: the CPU time of every process serving it (this one, and Corpus Lens's corpus process, read
//   from /proc), which a loaded machine inflates far less than the wall-clock p50 (a lookup through the corpus process
//   waits for two processes to be scheduled);
// - hybrid p50 and CPU per lookup: Corpus Lens's hybrid (keyword + vector + sections, RRF) through the corpus
//   process, timed once its keyword index is loaded (as a long-lived corpus process serves); LanceDB's stock hybrid
//   (its FTS index + vector, RRF);
// - recall@25 of the vector top 25 against the exact top 25 (strict).
// Each engine serves 60 other queries of the same kind first (another seed), as a corpus process that has served a
// while: their p50s are printed below the table as its first lookups after opening (caches cold), and the table's
// p50s are of the lookups after them.
// Where the lookups ran: on a machine whose cores are not equally fast (this 2-vCPU VM's second core runs a
// memory-bound probe 40-50 % slower than its first, a hybrid lookup ~30 % slower), which core a process lands on
// moves the p50s more than most changes do. So the run starts with each core's time for the same memory-bound probe,
// and under the table says which core this process and Corpus Lens's corpus process were on at each timed lookup
// (Linux /proc; elsewhere nothing is printed). `taskset -c 0 npm run bench -- peers` runs everything on one core.
// Topic-structured 384-d vectors (store.bench.ts Topical). PEERS_BENCH_N sets the size (default 20k, a quick run;
// the figures are at 100k); PEERS_BENCH_FALLBACK=0 leaves out the PGlite HNSW row (its build in WASM is the
// longest part of a run).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRemoteStore } from '../src/core/store/backends/remote.js';
import type { PaperInput } from '../src/core/store/types.js';
import { median } from './stats.js';
import { Topical } from './store.bench.js';

const N = Number(process.env.PEERS_BENCH_N ?? 20_000);
const D = 384;
const K = 25;
const QUERIES = 60;
const HOST = { script: join(__dirname, '..', 'src', 'core', 'store', 'backends', 'remote-host.ts'), execArgv: ['--import', 'tsx'] };

interface Row {
  engine: string;
  build?: number;
  diskMb?: number;
  vector?: number;
  vectorCpu?: number;
  hybrid?: number;
  hybridCpu?: number;
  recall?: number;
  /** p50s of the first lookups after the engine opened (other queries than the timed ones; caches cold). */
  first?: { vector: number; hybrid: number };
  /** Which core this process and the engine's own process (if any) were on at each timed lookup's end. */
  cores?: { vector: Placement; hybrid?: Placement };
  note?: string;
}

/** Timed lookups a core count: this process's, and the serving process's (Corpus Lens's corpus process). */
interface Placement {
  own: Map<number, number>;
  other: Map<number, number>;
}

function dirMb(path: string): number {
  let total = 0;
  const walk = (p: string) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
    else total += st.size;
  };
  walk(path);
  return total / 2 ** 20;
}

function recall(got: number[][], want: number[][]): number {
  let hit = 0;
  for (const [i, w] of want.entries()) hit += w.filter((id) => got[i].includes(id)).length;
  return hit / (K * want.length);
}

/** The fields of /proc/<pid>/stat after the parenthesised name (field n of proc(5) at index n − 3), or undefined. */
function procStat(pid: number | 'self'): string[] | undefined {
  const path = `/proc/${pid}/stat`;
  return existsSync(path) ? readFileSync(path, 'utf8').split(') ')[1].split(' ') : undefined;
}

/** The resident memory of `pid` in MB (Linux /proc: rss, field 24, in 4 kB pages), or undefined. */
function residentMb(pid?: number): number | undefined {
  const f = pid ? procStat(pid) : undefined;
  return f ? (Number(f[21]) * 4096) / 2 ** 20 : undefined;
}

/** CPU milliseconds used so far by this process and by `pid` (Linux /proc; others: this process only). */
function cpuMs(pid?: number): number {
  const own = process.cpuUsage();
  // utime and stime, fields 14 and 15, in clock ticks (100 a second on Linux).
  const f = pid ? procStat(pid) : undefined;
  return (own.user + own.system) / 1000 + (f ? (Number(f[11]) + Number(f[12])) * 10 : 0);
}

/** `timed`, with the CPU milliseconds per item of this process and `pid`, and the cores both were on. */
async function timedCpu<T>(items: T[], fn: (item: T, i: number) => Promise<unknown> | unknown, pid?: number) {
  const before = cpuMs(pid);
  const cores: Placement = { own: new Map(), other: new Map() };
  // The core each process last ran on (field 39): read after each lookup, outside its time.
  const count = (m: Map<number, number>, f: string[] | undefined) => f && m.set(Number(f[36]), (m.get(Number(f[36])) ?? 0) + 1);
  const ms = await timed(items, fn, () => {
    count(cores.own, procStat('self'));
    if (pid) count(cores.other, procStat(pid));
  });
  return { ms, cpu: (cpuMs(pid) - before) / items.length, cores };
}

async function timed<T>(items: T[], fn: (item: T, i: number) => Promise<unknown> | unknown, after?: () => void): Promise<number[]> {
  const ms: number[] = [];
  for (const [i, item] of items.entries()) {
    const t = performance.now();
    await fn(item, i);
    ms.push(performance.now() - t);
    after?.();
  }
  return ms;
}

/** A memory-bound probe (random reads over 64 MB), run on each core in turn: best of 3, ms (Linux with taskset). */
const PROBE = `const a = new Int32Array(1 << 24); for (let i = 0; i < a.length; i++) a[i] = (i * 2654435761) >>> 8;
let best = Infinity;
for (let r = 0; r < 3; r++) { const t = performance.now(); let j = 1, s = 0;
  for (let i = 0; i < 4e6; i++) { j = (j * 1103515245 + 12345) & (a.length - 1); s += a[j]; }
  best = Math.min(best, performance.now() - t + (s & 0)); }
process.stdout.write(best.toFixed(1));`;

function coreSpeeds(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const out: string[] = [];
  for (let core = 0; core < cpus().length; core++) {
    const r = spawnSync('taskset', ['-c', String(core), process.execPath, '-e', PROBE], { encoding: 'utf8' });
    if (r.status !== 0) return undefined; // no taskset, or a core this process may not use
    out.push(`core ${core} ${r.stdout} ms`);
  }
  return out.join(', ');
}

function placementText(p: Placement): string {
  const list = (m: Map<number, number>) =>
    [...m]
      .sort((a, b) => a[0] - b[0])
      .map(([core, n]) => `core ${core} ×${n}`)
      .join(', ');
  return p.other.size ? `this process ${list(p.own)}; corpus process ${list(p.other)}` : `this process ${list(p.own)}`;
}

/** The corpus once, in memory: papers (for the stores), their vectors row-major with ids 1…N in load order. */
function corpus(): {
  papers: PaperInput[][];
  vectors: Float32Array;
  texts: string[];
  queries: Float32Array[];
  queryTexts: string[];
  firstQueries: Float32Array[];
  firstTexts: string[];
} {
  const data = new Topical(N);
  const papers = [...data.papers(40)];
  const vectors = new Float32Array(N * D);
  const texts: string[] = [];
  let n = 0;
  for (const batch of papers)
    for (const p of batch)
      for (const s of p.sentences) {
        vectors.set(s.embedding, n++ * D);
        texts.push(s.text);
      }
  const queries = data.queries(QUERIES);
  // The hybrid's text: two topic words, as the synthetic sentences carry.
  const queryTexts = queries.map((_, i) => `topic words w${(i * 37) % 5000} w${(i * 91) % 5000}`);
  // Other queries of the same kind (another seed), the first an engine serves after it opens: timed on their own.
  const firstQueries = data.queries(QUERIES, 2);
  const firstTexts = firstQueries.map((_, i) => `topic words w${(i * 53 + 11) % 5000} w${(i * 29 + 7) % 5000}`);
  return { papers, vectors, texts, queries, queryTexts, firstQueries, firstTexts };
}

/** The exact top k ids (1-based, load order) by a brute-force scan of normalised vectors. */
function exactTop(vectors: Float32Array, q: Float32Array): number[] {
  const n = vectors.length / D;
  const best: { id: number; s: number }[] = [];
  let floor = -Infinity;
  for (let i = 0; i < n; i++) {
    let s = 0;
    const o = i * D;
    for (let j = 0; j < D; j++) s += q[j] * vectors[o + j];
    if (best.length < K || s > floor) {
      best.push({ id: i + 1, s });
      if (best.length > K) {
        best.sort((a, b) => b.s - a.s);
        best.length = K;
      }
      floor = best.length === K ? Math.min(...best.map((b) => b.s)) : -Infinity;
    }
  }
  return best.sort((a, b) => b.s - a.s).map((b) => b.id);
}

/**
 * Corpus Lens: the load and index build in one corpus process, closed; then lookups in a new one, as VS Code runs it
 * (Index Folder writes in its own corpus process and closes it; the next lookup opens the corpus anew, its buffer
 * cache sized to the corpus on disk: pglite.ts sharedBuffersFor). Timing lookups in the process that built the
 * corpus measured a 32 MB cache sized for an empty folder, which no user's lookup runs with.
 */
async function corpusLens(native: boolean, data: ReturnType<typeof corpus>, want: number[][]): Promise<Row> {
  const dir = join(mkdtempSync(join(tmpdir(), 'corpus-lens-peers-')), 'corpus');
  const before = process.env.CORPUS_LENS_NATIVE_INDEX;
  process.env.CORPUS_LENS_NATIVE_INDEX = native ? '1' : '0';
  try {
    const writer = await openRemoteStore(dir, {}, HOST);
    let buildMs: number;
    try {
      await writer.init({ model: 'peers', dimensions: D });
      const t = performance.now();
      await writer.dropSearchIndexes!();
      for (const batch of data.papers) await writer.writePapers(batch);
      await writer.createSearchIndexes!();
      buildMs = performance.now() - t;
    } finally {
      await writer.close();
    }
    const store = await openRemoteStore(dir, {}, HOST);
    try {
      // Ids: the store's own, in load order from 1 (a new corpus's bigserial).
      const firstVector = await timed(data.firstQueries, (q) => store.matchVector(q, { count: K }));
      const got: number[][] = [];
      const vector = await timedCpu(
        data.queries,
        async (q) => got.push((await store.matchVector(q, { count: K })).map((h) => h.sentence.id)),
        store.pid,
      );
      // The keyword index a long-lived corpus process holds (loaded on the first hybrid lookup, a few seconds at 100k):
      // timed once loaded, not while its load shares the process.
      const rssBefore = residentMb(store.pid);
      const loadStart = performance.now();
      const keywordIndexed = (await store.loadKeywordIndex?.()) ?? 0;
      if (!keywordIndexed) console.log('Corpus Lens: no keyword index; hybrid keywords ranked in SQL');
      // What the in-memory rankings cost the corpus process (the keyword index, and the hybrid's 16-bit vectors).
      else {
        const rss = (mb: number | undefined) => (mb === undefined ? '?' : mb.toFixed(0));
        console.log(
          `Corpus Lens: keyword index and hybrid vectors loaded in ${((performance.now() - loadStart) / 1000).toFixed(1)} s; ` +
            `the corpus process's resident memory ${rss(rssBefore)} → ${rss(residentMb(store.pid))} MB`,
        );
      }
      const firstHybrid = await timed(data.firstQueries, (q, i) => store.matchHybrid(q, data.firstTexts[i], { count: K }));
      const hybrid = await timedCpu(data.queries, (q, i) => store.matchHybrid(q, data.queryTexts[i], { count: K }), store.pid);
      return {
        engine: native ? 'Corpus Lens, native index (usearch f16)' : "Corpus Lens, PGlite's HNSW (fallback)",
        build: N / (buildMs / 1000),
        diskMb: dirMb(dir),
        vector: median(vector.ms),
        vectorCpu: vector.cpu,
        hybrid: median(hybrid.ms),
        hybridCpu: hybrid.cpu,
        recall: recall(got, want),
        first: { vector: median(firstVector), hybrid: median(firstHybrid) },
        cores: { vector: vector.cores, hybrid: hybrid.cores },
      };
    } finally {
      await store.close();
    }
  } finally {
    if (before === undefined) delete process.env.CORPUS_LENS_NATIVE_INDEX;
    else process.env.CORPUS_LENS_NATIVE_INDEX = before;
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }
}

/** usearch alone, as the native index configures it (f16, graphFor(N): m 16 / ef_construction 64 below 150k; efSearch). */
async function usearchAlone(data: ReturnType<typeof corpus>, want: number[][]): Promise<Row> {
  const { Index } = createRequire(__filename)('usearch') as typeof import('usearch');
  const { efSearch, graphFor } = await import('../src/core/store/sql/native-index.js');
  const graph = graphFor(N);
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-peers-usearch-'));
  try {
    const index = new Index({
      dimensions: D,
      metric: 'cos' as never,
      quantization: 'f16' as never,
      connectivity: graph.connectivity,
      expansion_add: graph.expansionAdd,
      expansion_search: efSearch(N, graph.connectivity),
      multi: false,
    });
    const keys = BigUint64Array.from({ length: N }, (_, i) => BigInt(i + 1));
    const t = performance.now();
    index.add(keys, data.vectors, 0);
    const buildMs = performance.now() - t;
    index.save(join(dir, 'index.usearch'));
    const got: number[][] = [];
    const vector = await timedCpu(data.queries, (q) => got.push([...index.search(q, K, 1).keys].map(Number)));
    return {
      engine: 'usearch alone (ids only)',
      build: N / (buildMs / 1000),
      diskMb: dirMb(dir),
      vector: median(vector.ms),
      vectorCpu: vector.cpu,
      recall: recall(got, want),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** LanceDB, if installed (dev dependency): its default IVF_HNSW_SQ vector index and FTS index, stock hybrid. */
async function lancedb(data: ReturnType<typeof corpus>, want: number[][]): Promise<Row> {
  let lance: typeof import('@lancedb/lancedb');
  try {
    lance = await import('@lancedb/lancedb');
  } catch (err) {
    return { engine: 'LanceDB', note: `not installed (${String(err).split('\n')[0]})` };
  }
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-peers-lance-'));
  try {
    const db = await lance.connect(dir);
    const t = performance.now();
    const rows = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, k) => ({
        id: from + k + 1,
        text: data.texts[from + k],
        vector: Array.from(data.vectors.subarray((from + k) * D, (from + k + 1) * D)),
      }));
    const built = await db.createTable('sentences', rows(0, Math.min(N, 5000)));
    for (let from = 5000; from < N; from += 5000) await built.add(rows(from, Math.min(N, from + 5000)));
    await built.createIndex('vector', { config: lance.Index.hnswSq({ distanceType: 'cosine' }) });
    await built.createIndex('text', { config: lance.Index.fts() });
    built.close();
    const buildMs = performance.now() - t;
    // Served as Corpus Lens is: from a new connection to the built table, not the objects that built it.
    const table = await (await lance.connect(dir)).openTable('sentences');
    const search = async (q: Float32Array) =>
      (await table.vectorSearch(Array.from(q)).distanceType('cosine').limit(K).toArray()).map((r: { id: number }) => Number(r.id));
    const firstVector = await timed(data.firstQueries, search);
    const got: number[][] = [];
    const vector = await timedCpu(data.queries, async (q) => got.push(await search(q)));
    const hybridOf = (texts: string[]) => (q: Float32Array, i: number) =>
      table.query().fullTextSearch(texts[i]).nearestTo(Array.from(q)).distanceType('cosine').limit(K).toArray();
    const firstHybrid = await timed(data.firstQueries, hybridOf(data.firstTexts));
    const hybrid = await timedCpu(data.queries, hybridOf(data.queryTexts));
    return {
      engine: 'LanceDB (IVF_HNSW_SQ + FTS)',
      build: N / (buildMs / 1000),
      diskMb: dirMb(dir),
      vector: median(vector.ms),
      vectorCpu: vector.cpu,
      hybrid: median(hybrid.ms),
      hybridCpu: hybrid.cpu,
      recall: recall(got, want),
      first: { vector: median(firstVector), hybrid: median(firstHybrid) },
      cores: { vector: vector.cores, hybrid: hybrid.cores },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function table(rows: Row[]): void {
  const base = rows[0];
  const ratio = (x: number | undefined, b: number | undefined) => (x == null || b == null ? '' : ` (${(x / b).toFixed(2)}×)`);
  const cell = (x: number | undefined, digits: number) => (x == null ? '–' : x.toFixed(digits));
  console.log(
    `| ${N.toLocaleString('en')} × ${D} | build (sentences/s) | disk (MB) | vector + context p50 (ms) | vector CPU/lookup (ms) | hybrid p50 (ms) | hybrid CPU/lookup (ms) | recall@25 |`,
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    if (r.note) {
      console.log(`| ${r.engine} | ${r.note} | | | | | | |`);
      continue;
    }
    console.log(
      `| ${r.engine} | ${cell(r.build, 0)}${ratio(r.build, base.build)} | ${cell(r.diskMb, 0)}${ratio(r.diskMb, base.diskMb)} | ` +
        `${cell(r.vector, 2)}${ratio(r.vector, base.vector)} | ${cell(r.vectorCpu, 2)}${ratio(r.vectorCpu, base.vectorCpu)} | ${cell(r.hybrid, 2)}${ratio(r.hybrid, base.hybrid)} | ` +
        `${cell(r.hybridCpu, 2)}${ratio(r.hybridCpu, base.hybridCpu)} | ${cell(r.recall, 3)} |`,
    );
  }
  console.log('(ratios: against Corpus Lens with the native index, the first row)');
  for (const r of rows.filter((x) => x.first))
    console.log(
      `${r.engine}, its first ${QUERIES} lookups after opening (other queries): vector p50 ${r.first!.vector.toFixed(2)} ms, hybrid p50 ${r.first!.hybrid.toFixed(2)} ms`,
    );
  for (const r of rows.filter((x) => x.cores?.vector.own.size))
    console.log(
      `${r.engine}, where its timed lookups ran: vector: ${placementText(r.cores!.vector)}` +
        (r.cores!.hybrid ? `; hybrid: ${placementText(r.cores!.hybrid)}` : ''),
    );
}

export async function run(): Promise<void> {
  console.log(`peers: ${N} sentences × ${D}, ${QUERIES} queries, k ${K}; load ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`);
  const speeds = coreSpeeds();
  if (speeds) console.log(`each core's time for the same memory-bound probe (lower is faster): ${speeds}`);
  const data = corpus();
  const want: number[][] = [];
  const exact = await timedCpu(data.queries, (q) => want.push(exactTop(data.vectors, q)));
  const rows: Row[] = [];
  rows.push(await corpusLens(true, data, want));
  if (process.env.PEERS_BENCH_FALLBACK !== '0') rows.push(await corpusLens(false, data, want));
  rows.push(await lancedb(data, want));
  rows.push(await usearchAlone(data, want));
  rows.push({ engine: 'exact scan (JS, ids only)', vector: median(exact.ms), vectorCpu: exact.cpu, recall: 1 });
  table(rows);
}
