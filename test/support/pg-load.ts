// Many authors on one shared corpus: N clients doing cursor lookups (k = 25 with context, what the extension sends
// when the cursor rests on a sentence) for a fixed time while one writer ingests papers, plus the checks that
// matter to the lab: no errors, no lost or duplicated rows, and every ingested paper seen whole or not at all by
// every reader. Used by the short correctness test (test/integration/store-postgres-load.test.ts) and the bench
// (bench/postgres.bench.ts); loopback only, bounded by `durationMs`.
import type { CorpusStore, PaperInput } from '../../src/core/store/types.js';

export interface LoadOptions {
  /** One store per client (each author's own connection pool). */
  clients: CorpusStore[];
  /** Runs a statement in one snapshot as some reader (for the atomicity probe). */
  probe: (sql: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;
  durationMs: number;
  queries: Float32Array[];
  /** The writer and the papers it writes: `ingest(i)` is the i-th paper (id prefix `ingestPrefix`). */
  writer?: CorpusStore;
  ingest?: (i: number) => PaperInput;
  ingestPrefix?: string;
  sentencesPerPaper?: number;
  /** Papers per writePapers call (one transaction each, as the store groups them). */
  ingestBatch?: number;
  /** Every n-th lookup of a client is followed by an atomicity probe. */
  probeEvery?: number;
}

export interface LoadResult {
  latenciesMs: number[];
  errors: string[];
  lookups: number;
  elapsedMs: number;
  ingestedPapers: number;
  ingestedSentences: number;
  ingestMs: number;
  probes: number;
  /** Probe rows that saw a paper with some but not all of its sentences. */
  torn: string[];
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const r: LoadResult = {
    latenciesMs: [],
    errors: [],
    lookups: 0,
    elapsedMs: 0,
    ingestedPapers: 0,
    ingestedSentences: 0,
    ingestMs: 0,
    probes: 0,
    torn: [],
  };
  const start = performance.now();
  const end = start + o.durationMs;
  const prefix = o.ingestPrefix ?? 'ingest-';
  const perPaper = o.sentencesPerPaper ?? 0;
  // One statement, one snapshot: the ingested papers whose sentence count is not the whole paper.
  const probeSql = `SELECT paper_id, count(*)::int AS n FROM sentences WHERE paper_id LIKE $1 GROUP BY paper_id HAVING count(*) <> $2`;

  const reader = async (store: CorpusStore, c: number) => {
    let i = c * 7919;
    while (performance.now() < end) {
      const q = o.queries[i++ % o.queries.length];
      const t0 = performance.now();
      try {
        const hits = await store.matchVector(q, { count: 25 });
        r.latenciesMs.push(performance.now() - t0);
        r.lookups++;
        for (const h of hits) if (h.paper.id !== h.sentence.paperId) r.errors.push(`client ${c}: a hit's paper is not its sentence's`);
        if (o.ingest && o.probeEvery && i % o.probeEvery === 0) {
          const p = await o.probe(probeSql, [`${prefix}%`, perPaper]);
          r.probes++;
          for (const row of p.rows) r.torn.push(`${row.paper_id}: ${row.n} of ${perPaper} sentences visible`);
        }
      } catch (err) {
        r.errors.push(`client ${c}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };

  const writer = async () => {
    if (!o.writer || !o.ingest) return;
    const batch = o.ingestBatch ?? 4;
    let n = 0;
    while (performance.now() < end) {
      const papers = Array.from({ length: batch }, () => o.ingest!(n++));
      const t0 = performance.now();
      try {
        const w = await o.writer.writePapers(papers);
        r.ingestedPapers += w.papers;
        r.ingestedSentences += w.sentences;
      } catch (err) {
        r.errors.push(`writer: ${err instanceof Error ? err.message : String(err)}`);
      }
      r.ingestMs += performance.now() - t0;
    }
  };

  await Promise.all([writer(), ...o.clients.map((s, c) => reader(s, c))]);
  r.elapsedMs = performance.now() - start;
  return r;
}

/** After a run: ingested papers missing sentences, papers without rows, duplicated (paper, position) rows. */
export async function verifyIngest(
  query: (sql: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>,
  prefix: string,
  sentencesPerPaper: number,
): Promise<{ papers: number; sentences: number; incomplete: number; duplicated: number }> {
  const { rows } = await query(
    `SELECT (SELECT count(*)::int FROM papers WHERE id LIKE $1) AS papers,
       (SELECT count(*)::int FROM sentences WHERE paper_id LIKE $1) AS sentences,
       (SELECT count(*)::int FROM (SELECT p.id FROM papers p LEFT JOIN sentences s ON s.paper_id = p.id
          WHERE p.id LIKE $1 GROUP BY p.id HAVING count(s.id) <> $2) x) AS incomplete,
       (SELECT count(*)::int FROM (SELECT paper_id, global_index FROM sentences WHERE paper_id LIKE $1
          GROUP BY 1, 2 HAVING count(*) > 1) d) AS duplicated`,
    [`${prefix}%`, sentencesPerPaper],
  );
  return {
    papers: Number(rows[0].papers),
    sentences: Number(rows[0].sentences),
    incomplete: Number(rows[0].incomplete),
    duplicated: Number(rows[0].duplicated),
  };
}
