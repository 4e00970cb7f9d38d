// `npm run bench -- build`: ingest into the embedded corpus (PGlite) end to end excluding the embedder — binary
// COPY with the indexes deferred, then each step of createSearchIndexes timed apart (GIN, BM25 and section recount,
// the section index as HNSW and as IVFFlat) — and the options for the sentence index, each measured on the same
// loaded table: build time, recall@25 of the lookup against an exact scan, lookup p50. The rate printed per option is
// sentences / (load + that sentence index + the other steps), the issue's "≥ 2,000 sentences/s at 100k incl. the
// index build". The baseline is pgvector's HNSW default (m 16, ef_construction 64), what the product built before.
// Options: HNSW 16/64 on float32 and on halfvec (an expression index, queried through the same cast), IVFFlat at
// three list counts with a sweep of probes (recall and p50 for each), and no index at all (exact scans: what lookups
// would be while an index built later). Smaller HNSW parameters (16/32, 12/40, 8/32) measured recall 0.77–0.78 at
// 100k (docs/benchmarks.md) and run only with BUILD_BENCH_ALL=1. Clustered synthetic 384-d vectors with the hybrid bench's
// realistic text (bench/hybrid.bench.ts). Default 20k sentences; BENCH_SCALE=large 100k (the target size; ~20 min
// on a shared machine); BUILD_BENCH_N overrides. Rates are printed by wall time and by this process's CPU time
// (what one free core gives; the machine is shared). BUILD_BENCH_ONLY=IVFFlat (a substring of the labels) runs only those.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPGliteStore } from '../src/core/store/backends/pglite.js';
import { toHit } from '../src/core/store/rows.js';
import { matchStatement } from '../src/core/store/sql/ranking.js';
import { hnswIndexSql, vectorIndex } from '../src/core/store/sql/vector.js';
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
  /** The index method and its parameters, after `ON sentences USING`, or the whole CREATE INDEX statement. */
  index: string | { sql: string };
  /** The lookup statement (default: the product's, matchStatement). */
  sql?: string;
  /** Session settings for its lookups, each measured in turn (label, SQL). */
  sweep?: [string, string][];
}

const FLOAT32 = vectorIndex(D, 'float32');
const HALF = vectorIndex(D, 'half');
const hnsw = (m: number, ef: number): Option => ({
  label: `HNSW m ${m}, ef_construction ${ef}${m === 16 && ef === 64 ? ' (pgvector default; before)' : ''}`,
  index: `hnsw (embedding vector_cosine_ops) WITH (m = ${m}, ef_construction = ${ef})`,
});
const ivfflat = (lists: number, probes: number[]): Option => ({
  label: `IVFFlat lists ${lists}`,
  index: `ivfflat (embedding vector_cosine_ops) WITH (lists = ${lists})`,
  sweep: probes.map((p) => [`probes ${p}`, `SET ivfflat.probes = ${p}`]),
});
/** IVFFlat lists: about `perList` rows a list (sentences 1,000; sections 100), at least 80. */
const ivfflatLists = (rows: number, perList = 1000) => Math.max(80, Math.round(rows / perList));
const OPTIONS: Option[] = [
  hnsw(16, 64),
  {
    label: "HNSW m 16, ef_construction 64 on halfvec (the store's half index precision)",
    index: { sql: hnswIndexSql(HALF, 'sentences_embedding_hnsw', 'sentences') },
    sql: matchStatement(K, HALF),
  },
  ...[...new Set([ivfflatLists(N), Math.round(N / 500), Math.round(Math.sqrt(N))])].map((l) => ivfflat(l, [2, 4, 6, 8, 10, 15])),
  ...(process.env.BUILD_BENCH_ALL ? [hnsw(16, 32), hnsw(12, 40), hnsw(8, 32)] : []),
].filter((o) => !process.env.BUILD_BENCH_ONLY || o.label.includes(process.env.BUILD_BENCH_ONLY));

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
      console.log(
        `binary COPY, indexes and statistics deferred: ${secs(copy)} = ${Math.round(N / copy.s).toLocaleString('en')} sentences/s`,
      );
      const d = store.driver;
      const gin = await timed(() => d.exec(`SET maintenance_work_mem = '256MB'; CREATE INDEX sentences_tsv ON sentences USING gin (tsv)`));
      const recount = await timed(() => d.exec(`RESET corpus_lens.defer_stats; SELECT refresh_search_stats()`));
      // The section index both ways (the hybrid's nearest sections): HNSW with an HNSW sentence index, IVFFlat with an
      // IVFFlat one, as createSearchIndexes pairs them.
      const sectionCount = Number((await d.query('SELECT count(*)::int AS n FROM sections')).rows[0].n);
      const sectionsIvf = await timed(() =>
        d.exec(
          `CREATE INDEX sections_embedding_hnsw ON sections USING ivfflat (embedding vector_cosine_ops) WITH (lists = ${ivfflatLists(sectionCount, 100)})`,
        ),
      );
      await d.exec('DROP INDEX sections_embedding_hnsw');
      const sectionsHnsw = await timed(() =>
        d.exec(`CREATE INDEX sections_embedding_hnsw ON sections USING hnsw (embedding vector_cosine_ops)`),
      );
      console.log(
        `GIN (full text) ${secs(gin)}; BM25 + section recount ${secs(recount)}; ${sectionCount.toLocaleString('en')} sections: ` +
          `HNSW ${secs(sectionsHnsw)}, IVFFlat lists ${ivfflatLists(sectionCount, 100)} ${secs(sectionsIvf)}`,
      );
      const fixed = { s: copy.s + gin.s + recount.s, cpu: copy.cpu + gin.cpu + recount.cpu };

      // Exact top 25 for the queries (index scans off: sequential scan + sort).
      await d.exec('SET enable_indexscan = off');
      const exact: number[][] = [];
      const exactMs: number[] = [];
      for (const q of c.queries) {
        const t = performance.now();
        exact.push((await d.lookup(matchStatement(K, FLOAT32), q.vector, [null, 0])).map((r) => toHit(r).sentence.id));
        exactMs.push(performance.now() - t);
      }
      await d.exec('SET enable_indexscan = on; SET hnsw.ef_search = 100');
      const rate = (x: { s: number; cpu: number }) =>
        `${Math.round(N / x.s).toLocaleString('en')} sentences/s (by CPU time ${Math.round(N / x.cpu).toLocaleString('en')}/s)`;
      console.log(
        `no sentence index (lookups answered by an exact scan), section IVFFlat: ${rate({ s: fixed.s + sectionsIvf.s, cpu: fixed.cpu + sectionsIvf.cpu })}; ` +
          `exact lookup p50 ${fmt(median(exactMs))} [lookup target p50 ≤ 15 ms]`,
      );

      for (const o of OPTIONS) {
        await d.exec('DROP INDEX IF EXISTS sentences_embedding_hnsw');
        const create = typeof o.index === 'string' ? `CREATE INDEX sentences_embedding_hnsw ON sentences USING ${o.index}` : o.index.sql;
        const build = await timed(() => d.exec(`SET maintenance_work_mem = '256MB'; ${create}`));
        const section = o.sweep ? sectionsIvf : sectionsHnsw;
        const total = { s: fixed.s + section.s + build.s, cpu: fixed.cpu + section.cpu + build.cpu };
        console.log(`${o.label}: build ${secs(build)}; ingest incl. all index builds ${rate(total)} [≥ 2,000]`);
        for (const [label, setting] of o.sweep ?? [['ef_search 100', 'SET hnsw.ef_search = 100']]) {
          await d.exec(setting);
          const ms: number[] = [];
          let hit = 0;
          for (const [i, q] of c.queries.entries()) {
            const t = performance.now();
            const rows = await d.lookup(o.sql ?? matchStatement(K, FLOAT32), q.vector, [null, 0]);
            ms.push(performance.now() - t);
            const truth = new Set(exact[i]);
            hit += rows.filter((r) => truth.has(toHit(r).sentence.id)).length / Math.max(1, truth.size);
          }
          console.log(`  ${label.padEnd(14)} recall@${K} ${(hit / c.queries.length).toFixed(3)} [≥ 0.95]; lookup p50 ${fmt(median(ms))}`);
        }
      }
      console.log(`peak RSS of this process ${peakRssMb().toFixed(0)} MB; ${load()}`);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
