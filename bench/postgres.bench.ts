// A lab's shared corpus on a real PostgreSQL 15 + pgvector server (a throwaway cluster on loopback, as the
// tests start it: test/support/pg-real.ts): cursor lookups (k = 25 with context and paper, unfiltered) by 1 and
// by 32 concurrent clients — each its own store and connection pool, as 32 authors' editors would be — while a
// writer ingests papers (50 sentences each, 4 per transaction) into the same corpus. Prints p50/p95/p99, lookups/s,
// errors and the ingest rate while serving; then checks 0 errors, 0 lost or duplicated rows, and that no reader ever
// saw an ingested paper with only some of its sentences. Baseline in the same run: the same lookups against the
// same corpus embedded (PGlite, one client: the default single-author setup).
// Corpus: 20k clustered synthetic 384-d sentences (bench/store.bench.ts's generator); 60 s of 32 clients and 15 s of
// 1 client. BENCH_SCALE=small: 5k sentences, 8 s and 4 s.
// Then `corpus-lens copy` of an embedded 100k-sentence corpus (small: 10k) to the server: sentences/s, verification,
// and whether the top 10 of 50 queries agree on both sides (both HNSW, so approximate: the share is printed).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyCorpus } from '../src/core/store/ops/copy.js';
import { openPGliteStore } from '../src/core/store/backends/pglite.js';
import { openPostgresStore } from '../src/core/store/backends/postgres.js';
import type { SqlCorpusStore } from '../src/core/store/sql/store.js';
import type { PaperInput } from '../src/core/store/types.js';
import { vectorText } from '../src/core/store/rows.js';
import { runLoad, verifyIngest, type LoadResult } from '../test/support/pg-load.js';
import { realPgSkip, startRealPg } from '../test/support/pg-real.js';
import { fmt, median, percentile } from './stats.js';
import { Synthetic } from './store.bench.js';

const D = 384;
const PER_PAPER = 50;
const small = process.env.BENCH_SCALE === 'small';
const N = small ? 5_000 : 20_000;
const SECONDS_32 = small ? 8 : 60;
const SECONDS_1 = small ? 4 : 15;
const N_COPY = small ? 10_000 : 100_000;
/** A loaded 2-core machine can take longer than the default 10 s to hand out a connection. */
const POOL = { connectTimeoutMs: 60_000 };

async function load(store: SqlCorpusStore, data: Synthetic): Promise<number> {
  await store.init({ model: 'bench-synthetic', dimensions: D });
  const t0 = performance.now();
  await store.writePapers([...data.papers(1_000_000)].flat(), { deferIndexes: true });
  return (performance.now() - t0) / 1000;
}

function line(name: string, r: LoadResult): string {
  const ms = r.latenciesMs;
  const rate = r.ingestMs
    ? ` | ingest while serving ${Math.round(r.ingestedSentences / (r.elapsedMs / 1000)).toLocaleString('en')} sentences/s (${r.ingestedPapers} papers)`
    : '';
  return (
    `${name.padEnd(34)} p50 ${fmt(median(ms)).padStart(9)}  p95 ${fmt(percentile(ms, 95)).padStart(9)}  p99 ${fmt(percentile(ms, 99)).padStart(9)}` +
    `  ${Math.round(r.lookups / (r.elapsedMs / 1000))} lookups/s  errors ${r.errors.length}${rate}`
  );
}

export async function run(): Promise<void> {
  const skip = realPgSkip();
  if (skip) {
    console.log(`postgres bench skipped: ${skip}`);
    return;
  }
  console.log(
    `\n## shared corpus: ${N.toLocaleString('en')} sentences × ${D}-d, k = 25 with context; real PostgreSQL 15 + pgvector on loopback`,
  );
  const server = await startRealPg();
  const root = mkdtempSync(join(tmpdir(), 'corpus-lens-pgbench-'));
  const stores: SqlCorpusStore[] = [];
  try {
    const url = await server.createDatabase('bench');
    const owner = await openPostgresStore(url, POOL);
    stores.push(owner);
    const pgLoad = await load(owner, new Synthetic(N));
    const embedded = await openPGliteStore(join(root, 'corpus'));
    stores.push(embedded);
    const liteLoad = await load(embedded, new Synthetic(N));
    console.log(`load + index build: postgres ${pgLoad.toFixed(1)} s, embedded ${liteLoad.toFixed(1)} s`);

    const data = new Synthetic(N);
    const queries = data.queries(300);
    let next = 0;
    const ingest = (i: number): PaperInput => {
      const centre = data.centres[(i * 31) % data.centres.length];
      return {
        id: `ingest-${i}`,
        title: `Ingested ${i}`,
        year: 2026,
        sentences: Array.from({ length: PER_PAPER }, (_, g) => ({
          sectionIndex: Math.floor(g / 10),
          sentenceIndex: g % 10,
          globalIndex: g,
          text: `ingested paper ${i} sentence ${g}`,
          embedding: data.vectorNear(centre, 1.0),
        })),
      };
    };
    const clients = await Promise.all(Array.from({ length: 32 }, () => openPostgresStore(url, { ...POOL, max: 2 })));
    stores.push(...clients);
    const probe = (sql: string, params: unknown[]) => owner.driver.query(sql, params);
    // Each phase ingests papers with new ids (continuing the numbering).
    const phase = async (c: SqlCorpusStore[], seconds: number) => {
      const base = next;
      const r = await runLoad({
        clients: c,
        probe,
        durationMs: seconds * 1000,
        queries,
        writer: owner,
        ingest: (i) => ingest(base + i),
        ingestPrefix: 'ingest-',
        sentencesPerPaper: PER_PAPER,
        ingestBatch: 4,
        probeEvery: 10,
      });
      next = base + r.ingestedPapers + 4; // a failed batch's ids are not reused
      return r;
    };

    const lite = await runLoad({ clients: [embedded], probe, durationMs: SECONDS_1 * 1000, queries });
    console.log(line('embedded (PGlite), 1 client', lite));
    const one = await phase(clients.slice(0, 1), SECONDS_1);
    console.log(line('postgres, 1 client + ingest', one));
    const many = await phase(clients, SECONDS_32);
    console.log(line('postgres, 32 clients + ingest', many));

    const ingested = one.ingestedPapers + many.ingestedPapers;
    const v = await verifyIngest(probe, 'ingest-', PER_PAPER);
    const errors = [...lite.errors, ...one.errors, ...many.errors];
    const torn = [...one.torn, ...many.torn];
    console.log(
      `checks: errors ${errors.length} | ingested papers reported ${ingested}, present ${v.papers}, sentences ${v.sentences} of ${ingested * PER_PAPER} ` +
        `| incomplete papers ${v.incomplete}, duplicated rows ${v.duplicated} | partial papers seen by readers ${torn.length} in ${one.probes + many.probes} probes`,
    );
    for (const e of [...errors, ...torn].slice(0, 5)) console.log(`  ${e}`);
    const ok =
      !errors.length && !torn.length && v.papers === ingested && v.sentences === ingested * PER_PAPER && !v.incomplete && !v.duplicated;
    console.log(ok ? 'PASS: 0 errors, 0 lost/duplicated rows, papers appear whole' : 'FAIL');
    if (!ok) process.exitCode = 1;
    console.log(
      `32 vs 1 client p50: ${(median(many.latenciesMs) / median(one.latenciesMs)).toFixed(2)}×; ` +
        `postgres 1 client vs embedded p50: ${(median(one.latenciesMs) / median(lite.latenciesMs)).toFixed(2)}× (2 shared cores: 32 clients queue for CPU)`,
    );
    await benchCopy(root, await server.createDatabase('copy'), stores);
  } finally {
    await Promise.all(stores.map((s) => s.close().catch(() => undefined)));
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** An embedded corpus of N_COPY sentences copied to the server: time, rate, verification, top-10 agreement. */
async function benchCopy(root: string, url: string, stores: SqlCorpusStore[]): Promise<void> {
  console.log(`\n## corpus-lens copy: embedded ${N_COPY.toLocaleString('en')} sentences × ${D}-d → PostgreSQL 15 (binary COPY)`);
  const lite = await openPGliteStore(join(root, 'copy-source'));
  stores.push(lite);
  const data = new Synthetic(N_COPY);
  console.log(`embedded source built in ${(await load(lite, data)).toFixed(1)} s`);
  const pg = await openPostgresStore(url, POOL);
  stores.push(pg);
  const s = await copyCorpus(lite, pg);
  console.log(
    `copied ${s.papers.copied} papers, ${s.sentences.copied.toLocaleString('en')} sentences in ${s.seconds.toFixed(1)} s ` +
      `(${Math.round(s.sentences.copied / s.seconds).toLocaleString('en')} sentences/s incl. HNSW/GIN build and checksums; ${s.method}); ` +
      `target ${s.papers.target}/${s.papers.source} papers, ${s.sentences.target}/${s.sentences.source} sentences; checksum ${s.checksum.match ? 'matches' : 'DIFFERS'}`,
  );
  const again = await copyCorpus(lite, pg);
  console.log(
    `second run (resume): ${again.papers.skipped} papers skipped, ${again.papers.copied} copied in ${again.seconds.toFixed(1)} s`,
  );
  let same = 0;
  let overlap = 0;
  let top1 = 0;
  for (const q of data.queries(50)) {
    const key = (h: { sentence: { paperId: string; globalIndex: number } }) => `${h.sentence.paperId}#${h.sentence.globalIndex}`;
    const [a, b] = await Promise.all([lite.matchVector(q, { count: 10 }), pg.matchVector(q, { count: 10 })]);
    const ka = a.map(key);
    const kb = b.map(key);
    if (ka.join() === kb.join()) same++;
    if (ka[0] === kb[0]) top1++;
    overlap += kb.filter((k) => ka.includes(k)).length / Math.max(1, ka.length);
  }
  console.log(
    `top hits, 50 queries: identical top 10 for ${same}/50, same top 1 for ${top1}/50, mean top-10 overlap ${(overlap / 50).toFixed(3)}`,
  );
  // The two HNSW graphs are built independently, so their approximate answers may differ; an exact scan on both
  // sides tests what the copy promises: the same vectors under the same sentence ids.
  let exactSame = 0;
  for (const q of data.queries(50)) {
    const [a, b] = await Promise.all([exactTop10(lite, q), exactTop10(pg, q)]);
    if (a.join() === b.join()) exactSame++;
  }
  console.log(`exact top 10 (index scans off), 50 queries: identical for ${exactSame}/50`);
  if (!s.checksum.match || exactSame !== 50) process.exitCode = 1;
}

/** The exact 10 nearest sentences (sequential scan): `paper#index` keys, ties broken by key. */
async function exactTop10(store: SqlCorpusStore, q: Float32Array): Promise<string[]> {
  return store.driver.transaction(async (tx) => {
    await tx.query('SET LOCAL enable_indexscan = off');
    const { rows } = await tx.query(
      `SELECT paper_id || '#' || global_index AS key FROM sentences
        ORDER BY embedding <=> $1::vector, paper_id, global_index LIMIT 10`,
      [vectorText(q)],
    );
    return rows.map((r) => String(r.key));
  });
}
