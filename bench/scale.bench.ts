// A shared corpus at scale on a real PostgreSQL 15 + pgvector server (a throwaway cluster on loopback, as the tests
// start it: test/support/pg-real.ts): the product's bulk load (`writePapers` with the indexes deferred, as
// `corpus-lens ingest` and `copy` do) and its index build, then cursor lookups (match + context + paper, k = 25):
// p50/p95, recall@25 against an exact scan of the same rows, and filtered lookups (year, a set of papers) with
// pgvector's iterative index scans, each against its own exact answer. The baseline in the same run is the exact
// scan. Default 100k sentences × 384-d (~10 min on 2 cores); BENCH_SCALE=large: 1M (the size; long — the
// HNSW build dominates); SCALE_BENCH_N overrides. float32 only: halfvec is not in the schema (see README).
// Server settings sized as a lab's administrator would for the build (maintenance_work_mem 4 GB, which the store
// keeps since it never lowers the server's setting; 2 parallel maintenance workers on this 2-core machine).
import { cpus, loadavg } from 'node:os';
import { vectorText } from '../src/core/store/rows.js';
import { openPostgresStore } from '../src/core/store/postgres.js';
import type { SqlCorpusStore } from '../src/core/store/sql.js';
import type { LookupOptions } from '../src/core/store/types.js';
import { realPgSkip, startRealPg } from '../test/support/pg-real.js';
import { fmt, median, percentile } from './stats.js';
import { bulkLoad, Synthetic } from './store.bench.js';

const D = 384;
const K = 25;
const N = Number(process.env.SCALE_BENCH_N ?? (process.env.BENCH_SCALE === 'large' ? 1_000_000 : 100_000));
const QUERIES = 100;
const EXACT_QUERIES = 30;

const p = (ms: number[]) => `p50 ${fmt(median(ms))}  p95 ${fmt(percentile(ms, 95))}`;
const load = () => `load ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`;

/** The exact k nearest sentence ids under a filter (sequential scan; the plan cannot use the HNSW index). */
async function exact(store: SqlCorpusStore, q: Float32Array, where: string, params: unknown[]): Promise<number[]> {
  return store.driver.transaction(async (tx) => {
    await tx.query('SET LOCAL enable_indexscan = off');
    const { rows } = await tx.query(
      `SELECT s.id FROM sentences s JOIN papers pa ON pa.id = s.paper_id WHERE ${where}
        ORDER BY s.embedding <=> $1::vector LIMIT ${K}`,
      [vectorText(q), ...params],
    );
    return rows.map((r) => Number(r.id));
  });
}

function recall(got: number[][], want: number[][]): number {
  let hit = 0;
  let all = 0;
  for (const [i, w] of want.entries()) {
    const g = new Set(got[i]);
    hit += w.filter((id) => g.has(id)).length;
    all += w.length;
  }
  return all ? hit / all : NaN;
}

async function lookups(store: SqlCorpusStore, queries: Float32Array[], o: Omit<LookupOptions, 'count'> = {}) {
  const ms: number[] = [];
  const ids: number[][] = [];
  for (const q of queries) {
    const t = performance.now();
    const hits = await store.matchVector(q, { count: K, ...o });
    ms.push(performance.now() - t);
    ids.push(hits.map((h) => h.sentence.id));
  }
  return { ms, ids };
}

export async function run(): Promise<void> {
  const skip = realPgSkip();
  if (skip) {
    console.log(`## scale on PostgreSQL: skipped (${skip})`);
    return;
  }
  console.log(`\n## shared corpus at scale: ${N.toLocaleString('en')} sentences × ${D}-d on a real PostgreSQL 15 + pgvector (${load()})`);
  const server = await startRealPg();
  let store: SqlCorpusStore | undefined;
  try {
    const url = await server.createDatabase('scale');
    await server.sql(`ALTER DATABASE scale SET maintenance_work_mem = '4GB'; ALTER DATABASE scale SET max_parallel_maintenance_workers = 2`);
    store = await openPostgresStore(url, { connectTimeoutMs: 60_000 });
    await store.init({ model: 'bench-synthetic', dimensions: D });
    const data = new Synthetic(N);
    const { rows, loadMs, genMs } = await bulkLoad(store, data);
    console.log(`load (the product's writePapers, indexes deferred): ${rows.toLocaleString('en')} rows in ${(loadMs / 1000).toFixed(1)} s (vector generation ${(genMs / 1000).toFixed(1)} s excluded; ${load()})`);
    const tb = performance.now();
    await store.createSearchIndexes();
    const buildMs = performance.now() - tb;
    const rate = rows / ((loadMs + buildMs) / 1000);
    console.log(
      `index build (HNSW m 16 / ef_construction 64, GIN, BM25 statistics, section vectors): ${(buildMs / 1000).toFixed(1)} s → ` +
        `bulk load incl. build ${Math.round(rate).toLocaleString('en')} sentences/s [target ≥ 5,000] (${load()})`,
    );
    const { rows: size } = await store.driver.query(
      `SELECT pg_size_pretty(pg_total_relation_size('sentences')) AS total, pg_size_pretty(pg_relation_size('sentences_embedding_hnsw')) AS hnsw`,
    );
    console.log(`disk: sentences with indexes ${size[0].total}, of which the HNSW index ${size[0].hnsw}`);

    const queries = data.queries(QUERIES);
    await lookups(store, queries.slice(0, 5)); // warm the connection, the prepared statement and the index pages
    const paperSet = Array.from({ length: 50 }, (_, i) => `paper-${i * Math.floor(N / 50 / 50)}`);
    const cases: { name: string; o: Omit<LookupOptions, 'count'>; where: string; params: unknown[] }[] = [
      { name: 'unfiltered', o: {}, where: 'true', params: [] },
      { name: 'year ≥ 2020 (1 in 5 papers)', o: { yearMin: 2020 }, where: 'pa.year >= $2', params: [2020] },
      { name: '50 given papers', o: { paperIds: paperSet }, where: 's.paper_id = ANY ($2)', params: [paperSet] },
    ];
    for (const c of cases) {
      const h = await lookups(store, queries, c.o);
      const want: number[][] = [];
      const exactMs: number[] = [];
      for (const q of queries.slice(0, EXACT_QUERIES)) {
        const t = performance.now();
        want.push(await exact(store, q, c.where, c.params));
        exactMs.push(performance.now() - t);
      }
      console.log(
        `${c.name.padEnd(28)} HNSW ef_search 100: ${p(h.ms)}  recall@${K} ${recall(h.ids.slice(0, EXACT_QUERIES), want).toFixed(3)} | ` +
          `exact scan (baseline): ${p(exactMs)} → ${(median(exactMs) / median(h.ms)).toFixed(1)}× faster` +
          (c.name === 'unfiltered' ? ' [targets at 1M: p50 ≤ 15 ms, p95 ≤ 40 ms, recall ≥ 0.95]' : ''),
      );
    }
  } finally {
    await store?.close().catch(() => undefined);
    await server.stop();
  }
}
