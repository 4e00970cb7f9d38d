// `npm run bench -- build`: ingest into the embedded corpus (PGlite) end to end excluding the embedder — binary
// COPY with the indexes deferred, then each step of createSearchIndexes timed apart (sentence HNSW, GIN, BM25 and
// section recount, section HNSW) — and the options for the sentence HNSW build, each measured on the same loaded
// table: build time, recall@25 of the lookup against an exact scan, lookup p50. The rate printed per option is
// sentences / (load + that HNSW build + the other steps), the issue's "≥ 2,000 sentences/s at 100k incl. the index
// build". The baseline is pgvector's default (m 16, ef_construction 64), what the product builds today.
// Clustered synthetic 384-d vectors with the hybrid bench's realistic text (bench/hybrid.bench.ts). Default 20k
// sentences; BENCH_SCALE=large 100k (the target size; ~30 min on a shared machine); BUILD_BENCH_N overrides.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPGliteStore } from '../src/core/store/pglite.js';
import { toHit } from '../src/core/store/rows.js';
import { matchStatement } from '../src/core/store/schema.js';
import { corpus } from './hybrid.bench.js';
import { fmt, load, median, peakRssMb } from './stats.js';

const D = 384;
const K = 25;
const N = Number(process.env.BUILD_BENCH_N ?? (process.env.BENCH_SCALE === 'large' ? 100_000 : 20_000));
const QUERIES = 40;

const cpuS = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Wall and CPU seconds of fn. */
async function timed(fn: () => Promise<unknown>): Promise<{ s: number; cpu: number }> {
  const c = cpuS();
  const t = performance.now();
  await fn();
  return { s: (performance.now() - t) / 1000, cpu: cpuS() - c };
}

const secs = (x: { s: number; cpu: number }) => `${x.s.toFixed(1)} s (CPU ${x.cpu.toFixed(1)} s)`;

interface Option {
  label: string;
  /** The index method and its parameters, after `ON sentences USING`. */
  index: string;
  /** Session settings for its lookups. */
  settings?: string;
}

const hnsw = (m: number, ef: number): Option => ({
  label: `HNSW m ${m}, ef_construction ${ef}${m === 16 && ef === 64 ? ' (pgvector default; today)' : ''}`,
  index: `hnsw (embedding vector_cosine_ops) WITH (m = ${m}, ef_construction = ${ef})`,
});
const lists = Math.max(10, Math.round(Math.sqrt(N)));
const OPTIONS: Option[] = [
  hnsw(16, 64),
  hnsw(16, 32),
  hnsw(12, 40),
  hnsw(8, 32),
  {
    label: `IVFFlat lists ${lists}, probes 10`,
    index: `ivfflat (embedding vector_cosine_ops) WITH (lists = ${lists})`,
    settings: 'SET ivfflat.probes = 10',
  },
];

export async function run(): Promise<void> {
  console.log(`\n## embedded ingest incl. index build: ${N.toLocaleString('en')} sentences × ${D}-d (PGlite), ${load()}`);
  const c = corpus(N, QUERIES);
  const root = mkdtempSync(join(tmpdir(), 'corpus-lens-build-bench-'));
  try {
    const store = await openPGliteStore(join(root, 'corpus'));
    try {
      await store.init({ model: 'bench-synthetic', dimensions: D });
      await store.dropSearchIndexes();
      const copy = await timed(async () => {
        for (let i = 0; i < c.papers.length; i += 40) await store.writePapers(c.papers.slice(i, i + 40));
      });
      console.log(`binary COPY, indexes and statistics deferred: ${secs(copy)} = ${Math.round(N / copy.s).toLocaleString('en')} sentences/s`);
      const d = store.driver;
      const gin = await timed(() => d.exec(`SET maintenance_work_mem = '256MB'; CREATE INDEX sentences_tsv ON sentences USING gin (tsv)`));
      const recount = await timed(() => d.exec(`RESET corpus_lens.defer_stats; SELECT refresh_search_stats()`));
      const sections = await timed(() => d.exec(`CREATE INDEX sections_embedding_hnsw ON sections USING hnsw (embedding vector_cosine_ops)`));
      console.log(`GIN (full text) ${secs(gin)}; BM25 + section recount ${secs(recount)}; section HNSW ${secs(sections)}`);
      const fixed = copy.s + gin.s + recount.s + sections.s;

      // Exact top 25 for the queries (index scans off: sequential scan + sort).
      await d.exec('SET enable_indexscan = off');
      const exact: number[][] = [];
      const exactMs: number[] = [];
      for (const q of c.queries) {
        const t = performance.now();
        exact.push((await d.lookup(matchStatement(K), q.vector, [null, 0])).map((r) => toHit(r).sentence.id));
        exactMs.push(performance.now() - t);
      }
      await d.exec('SET enable_indexscan = on; SET hnsw.ef_search = 100');
      const fixedCpu = copy.cpu + gin.cpu + recount.cpu + sections.cpu;
      console.log(
        `no sentence index (lookups answered by an exact scan while it builds): ${Math.round(N / fixed).toLocaleString('en')} sentences/s ` +
          `(by CPU time ${Math.round(N / fixedCpu).toLocaleString('en')}/s); exact lookup p50 ${fmt(median(exactMs))}`,
      );

      for (const o of OPTIONS) {
        await d.exec('DROP INDEX IF EXISTS sentences_embedding_hnsw');
        const build = await timed(() => d.exec(`SET maintenance_work_mem = '256MB'; CREATE INDEX sentences_embedding_hnsw ON sentences USING ${o.index}`));
        if (o.settings) await d.exec(o.settings);
        const ms: number[] = [];
        let hit = 0;
        for (const [i, q] of c.queries.entries()) {
          const t = performance.now();
          const rows = await d.lookup(matchStatement(K), q.vector, [null, 0]);
          ms.push(performance.now() - t);
          const truth = new Set(exact[i]);
          hit += rows.filter((r) => truth.has(toHit(r).sentence.id)).length / Math.max(1, truth.size);
        }
        const total = fixed + build.s;
        console.log(
          `${o.label.padEnd(56)} build ${secs(build)}; recall@${K} ${(hit / c.queries.length).toFixed(3)} [≥ 0.95]; ` +
            `lookup p50 ${fmt(median(ms))}; ingest incl. all index builds ${Math.round(N / total).toLocaleString('en')} sentences/s ` +
            `(by CPU time ${Math.round(N / (fixedCpu + build.cpu)).toLocaleString('en')}/s) [≥ 2,000]`,
        );
      }
      console.log(`peak RSS of this process ${peakRssMb().toFixed(0)} MB; ${load()}`);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
