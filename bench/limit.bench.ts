// `npm run bench -- limit`: how large an embedded (PGlite) corpus can grow and still open and answer a lookup
// (match + context + paper, k = 25, ef_search 100) at p50 ≤ 15 ms. For each size: a fresh PGlite corpus, bulk load
// (binary COPY, indexes deferred), HNSW + GIN build, statistics recount; then a FRESH process opens the persisted
// corpus, as the corpus process would, and times 100 lookups; recall@25 of those lookups against an exact scan (20
// queries); the process's peak RSS (VmHWM) beside it. A size that fails (PGlite's WASM heap is capped at 2 GiB)
// prints the error and stops the series. Clustered synthetic 384-d vectors (bench/store.bench.ts's generator).
// Default 20k (a smoke run); LIMIT_BENCH_N="500000,1000000" for the measurement (each size takes many minutes).
// The machine is shared: wall times are printed with the process CPU time and the load average.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPGliteStore } from '../src/core/store/pglite.js';
import { toHit } from '../src/core/store/rows.js';
import { matchStatement } from '../src/core/store/schema.js';
import { fmt, load, median, peakRssMb, percentile } from './stats.js';
import { Synthetic } from './store.bench.js';

const D = 384;
const K = 25;
const SIZES = (process.env.LIMIT_BENCH_N ?? '20000').split(',').map(Number);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function build(dir: string, n: number): Promise<void> {
  const store = await openPGliteStore(dir);
  try {
    await store.init({ model: 'bench-synthetic', dimensions: D });
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
    await store.createSearchIndexes();
    console.log(
      `  load ${rows.toLocaleString('en')} rows ${loadS.toFixed(0)} s (CPU ${loadCpu.toFixed(0)} s, vector generation included); ` +
        `index build + recount ${((performance.now() - t) / 1000).toFixed(0)} s (CPU ${((cpuMs() - c) / 1000).toFixed(0)} s); ` +
        `peak RSS of the loading process ${peakRssMb().toFixed(0)} MB; ${load()}`,
    );
  } finally {
    await store.close();
  }
}

async function sizeOf(dir: string): Promise<string> {
  const du = (d: string) => execFileSync('du', ['-sm', d], { encoding: 'utf8' }).split('\t')[0];
  return `data dir ${du(dir)} MB (pg_wal ${du(join(dir, 'pg_wal'))} MB)`;
}

/** Child: open the persisted corpus, time lookups, recall against an exact scan, peak RSS. */
async function child(dir: string, n: number): Promise<void> {
  const queries = new Synthetic(n).queries(101);
  const t0 = performance.now();
  const store = await openPGliteStore(dir);
  await store.meta();
  const openMs = performance.now() - t0;
  const t1 = performance.now();
  await store.matchVector(queries[0], { count: K });
  const firstMs = performance.now() - t1;
  const ms: number[] = [];
  const cpu: number[] = [];
  const ids: number[][] = [];
  for (const q of queries.slice(1)) {
    const c = cpuMs();
    const t = performance.now();
    const hits = await store.matchVector(q, { count: K });
    ms.push(performance.now() - t);
    cpu.push(cpuMs() - c);
    ids.push(hits.map((h) => h.sentence.id));
  }
  const servingRss = peakRssMb();
  await store.driver.exec('SET enable_indexscan = off');
  let hit = 0;
  const nq = 20;
  for (let i = 0; i < nq; i++) {
    const rows = await store.driver.lookup(matchStatement(K), queries[i + 1], [null, 0]);
    const truth = new Set(rows.map((r) => toHit(r).sentence.id));
    hit += ids[i].filter((id) => truth.has(id)).length / Math.max(1, truth.size);
  }
  await store.close();
  console.log(
    `  fresh process: open ${fmt(openMs)}, first lookup ${fmt(firstMs)}, then p50 ${fmt(median(ms))} p95 ${fmt(percentile(ms, 95))} ` +
      `(CPU p50 ${fmt(median(cpu))}) [target p50 ≤ 15 ms]; recall@${K} vs exact ${(hit / nq).toFixed(3)} (${nq} queries); ` +
      `peak RSS serving ${servingRss.toFixed(0)} MB, after the exact scans ${peakRssMb().toFixed(0)} MB; ${load()}`,
  );
}

export async function run(): Promise<void> {
  console.log(`\n## embedded corpus limit (PGlite, float32 ${D}-d, k = ${K}): sizes ${SIZES.map((n) => n.toLocaleString('en')).join(', ')}`);
  for (const n of SIZES) {
    console.log(`${n.toLocaleString('en')} sentences:`);
    const root = mkdtempSync(join(tmpdir(), 'corpus-lens-limit-bench-'));
    const dir = join(root, 'corpus');
    try {
      try {
        await build(dir, n);
      } catch (err) {
        console.log(`  FAILED to load/build: ${err instanceof Error ? err.message : String(err)}; peak RSS ${peakRssMb().toFixed(0)} MB`);
        return;
      }
      console.log(`  ${await sizeOf(dir)}`);
      try {
        const out = execFileSync(process.execPath, ['--import', 'tsx', __filename], {
          env: { ...process.env, LIMIT_BENCH_CHILD: dir, LIMIT_BENCH_CHILD_N: String(n) },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        console.log(out.trimEnd());
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string; message: string };
        console.log(`  FAILED to open/serve in a fresh process: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' | ')}`);
        return;
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
}

if (process.env.LIMIT_BENCH_CHILD) {
  child(process.env.LIMIT_BENCH_CHILD, Number(process.env.LIMIT_BENCH_CHILD_N)).catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
