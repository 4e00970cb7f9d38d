// `corpus-lens copy`: the sample corpus (samples/corpus, ingested into an embedded corpus with the offline embedder)
// copied to a real PostgreSQL 15 + pgvector server by binary COPY: same counts, same checksum, the same top hits
// for 50 queries on both sides; a second run copies nothing; after an interruption (papers missing) or a changed
// paper, a rerun copies only those; and back from the server into a new embedded corpus. The source-copy records
// (schema v17: a PDF skipped as a worse copy of a paper's work) go along both ways. Skipped with a reason
// where the server is absent, except CI=true.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCopyCommand } from '../../src/cli/commands/copy.js';
import { createEmbedder } from '../../src/core/embed/index.js';
import type { Embedder } from '../../src/core/embed/types.js';
import { ingest } from '../../src/core/ingest/pipeline.js';
import { match } from '../../src/core/retrieve/index.js';
import { checksum } from '../../src/core/store/ops/copy.js';
import { runCopyProcess } from '../../src/core/store/ops/copy-process.js';
import { openPGliteStore } from '../../src/core/store/backends/pglite.js';
import { openPostgresStore } from '../../src/core/store/backends/postgres.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import type { SourceCopy } from '../../src/core/store/types.js';
import { projectRoot } from '../support/eval.js';
import { realPgSkip, startRealPg, type RealPg } from '../support/pg-real.js';

async function copy(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await createCopyCommand({ env: {}, stdout: (t) => void (out += t), stderr: (t) => void (err += t) }).run(args);
  return { code, out, err };
}

/** The top 5 of a lookup as (paper, position, similarity to 4 places): independent of either side's row ids. */
async function top(store: SqlCorpusStore, embedder: Embedder, text: string): Promise<string[]> {
  const [vector] = await embedder.embed([text]);
  const hits = await match(store, { model: embedder.model, vector }, { k: 5, dedupe: false });
  return hits.map((h) => `${h.sentence.paperId}#${h.sentence.globalIndex}@${h.similarity.toFixed(4)}`);
}

describe('corpus-lens copy: the sample corpus to a real PostgreSQL 15 server and back', { skip: realPgSkip() }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-copy-'));
  const source = join(dir, 'embedded');
  let server: RealPg;
  let url: string;
  let embedder: Embedder;
  let sourceCounts: { papers: number; sentences: number };
  let sourceCopies: SourceCopy[];

  before(async () => {
    embedder = createEmbedder({ provider: 'offline' });
    const store = await openPGliteStore(source);
    const summary = await ingest(store, [join(projectRoot, 'samples', 'corpus')], { embedder });
    assert.deepEqual(summary.failed, []);
    // Metadata beyond the ingest's: the checksum covers every paper column, so the copy must carry these too.
    await store.driver.query(
      `UPDATE papers SET source = 'https://example.org/p.pdf', license = 'cc-by' WHERE id = (SELECT min(id) FROM papers)`,
    );
    // PDF line ranges (schema v8), which the sample corpus's LaTeX and Markdown do not have: the copy carries them.
    await store.driver.query(
      `UPDATE sentences SET page = 2, line_start = global_index + 1, line_end = global_index + 2, page_end = 2 + global_index % 2
       WHERE paper_id = (SELECT min(id) FROM papers)`,
    );
    // A PDF ingest skipped as the worse copy of a stored paper's LaTeX text (test/ingest/source-copies.test.ts makes
    // one with pdflatex): ingest over the copy skips it unread only if the record goes along.
    const [first] = await store.sources();
    await store.updateSourceCopies([{ sourcePath: '/papers/typeset.pdf', contentHash: 'c0ffee', paperId: first.id }], []);
    sourceCopies = await store.sourceCopies();
    sourceCounts = await store.counts();
    assert.ok(sourceCounts.papers >= 25 && sourceCounts.sentences >= 500, JSON.stringify(sourceCounts));
    await store.close();
    server = await startRealPg();
    url = await server.createDatabase('lab');
  });

  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('copies every paper, sentence and vector by binary COPY, verified by counts and checksum', async () => {
    const r = await copy(['--from', source, '--to', url, '--json']);
    assert.equal(r.code, 0, r.err);
    const s = JSON.parse(r.out);
    assert.equal(s.method, 'binary-copy');
    assert.deepEqual(s.papers, {
      source: sourceCounts.papers,
      copied: sourceCounts.papers,
      skipped: 0,
      replaced: 0,
      target: sourceCounts.papers,
    });
    assert.deepEqual(s.sentences, { source: sourceCounts.sentences, copied: sourceCounts.sentences, target: sourceCounts.sentences });
    // The sample corpus's LaTeX papers hold 5 figures, tables and equations; the checksum covers their rows too.
    assert.deepEqual(s.elements, { source: 5, copied: 5, target: 5 });
    assert.deepEqual(s.sourceCopies, { source: 1, copied: 1, target: 1 });
    assert.equal(s.checksum.match, true);
    assert.deepEqual(s.warnings, []);
    assert.match(s.checksum.source, /^[0-9a-f]{32}$/);
    assert.equal(s.to, url);
    const target = await openPostgresStore(url);
    try {
      const { rows } = await target.driver.query(
        `SELECT count(*)::int AS n, sum(line_start + line_end + page_end)::int AS sum FROM sentences WHERE line_start IS NOT NULL`,
      );
      const lite = await openPGliteStore(source, { create: false });
      const want = (
        await lite.driver.query(
          `SELECT count(*)::int AS n, sum(line_start + line_end + page_end)::int AS sum FROM sentences WHERE line_start IS NOT NULL`,
        )
      ).rows[0];
      await lite.close();
      assert.ok(Number(want.n) > 0);
      assert.deepEqual(
        { n: Number(rows[0].n), sum: Number(rows[0].sum) },
        { n: Number(want.n), sum: Number(want.sum) },
        'line ranges copied',
      );
      assert.deepEqual(await target.sourceCopies(), sourceCopies, 'source copies copied');
    } finally {
      await target.close();
    }
  });

  test('the same top hits for 50 queries on both sides', async () => {
    const lite = await openPGliteStore(source, { create: false });
    const pg = await openPostgresStore(url);
    try {
      assert.deepEqual(await pg.counts(), sourceCounts);
      assert.deepEqual(await pg.meta().then((m) => [m?.model, m?.dimensions]), [embedder.model, embedder.dimensions]);
      // 50 sentences spread over the corpus, as written and shortened (a different vector from the stored one).
      const { rows } = await lite.driver.query(
        `SELECT text FROM (SELECT text, row_number() OVER (ORDER BY paper_id, global_index) AS n FROM sentences) x
         WHERE n % $1 = 0 ORDER BY n LIMIT 25`,
        [Math.floor(sourceCounts.sentences / 25)],
      );
      const queries = rows.flatMap((r) => [String(r.text), String(r.text).split(' ').slice(0, 6).join(' ')]);
      assert.equal(queries.length, 50);
      // Both sides answer through their own HNSW graph, which is approximate and built separately (the vectors are
      // byte-identical: see the checksums above), so a hit may be missed on one side: the same best hit for every
      // query, the same similarity for every hit both return, and ≥ 95% of the top 5 shared.
      let shared = 0;
      let total = 0;
      for (const q of queries) {
        const [a, b] = [await top(pg, embedder, q), await top(lite, embedder, q)];
        assert.equal(a[0], b[0], q);
        const common = a.filter((h) => b.includes(h));
        const ids = (hits: string[]) => hits.map((h) => h.split('@')[0]);
        assert.equal(common.length, ids(a).filter((id) => ids(b).includes(id)).length, `similarities differ: ${q}`);
        shared += common.length;
        total += a.length;
      }
      assert.ok(shared / total >= 0.95, `shared ${shared}/${total}`);
    } finally {
      await Promise.all([lite.close(), pg.close()]);
    }
  });

  test('a second run copies nothing; after an interruption or a changed paper it copies only those', async () => {
    const again = JSON.parse((await copy(['--from', source, '--to', url, '--json'])).out);
    assert.equal(again.papers.copied, 0);
    assert.equal(again.papers.skipped, sourceCounts.papers);
    assert.equal(again.checksum.match, true);
    // As if a copy had stopped before the last three papers, and one paper had changed since.
    const pg = await openPostgresStore(url);
    try {
      const ids = (await pg.driver.query('SELECT id FROM papers ORDER BY id DESC LIMIT 4')).rows.map((r) => String(r.id));
      await pg.deletePapers(ids.slice(0, 3));
      await pg.driver.query(`UPDATE papers SET content_hash = 'stale' WHERE id = $1`, [ids[3]]);
      await pg.driver.query(`DELETE FROM sentences WHERE paper_id = $1 AND global_index = 0`, [ids[3]]);
    } finally {
      await pg.close();
    }
    const r = await copy(['--from', source, '--to', url, '--json', '--progress', '--batch', '200']);
    assert.equal(r.code, 0, r.err);
    const s = JSON.parse(r.out);
    assert.equal(s.papers.copied, 4);
    assert.equal(s.papers.replaced, 1);
    assert.equal(s.papers.skipped, sourceCounts.papers - 4);
    assert.deepEqual([s.papers.target, s.sentences.target], [sourceCounts.papers, sourceCounts.sentences]);
    assert.equal(s.checksum.match, true);
    const progress = r.err
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(progress.at(-1), { papersDone: sourceCounts.papers, papersTotal: sourceCounts.papers });
  });

  test('back from the server into a new embedded corpus (the store-write path): same checksum', async () => {
    const back = join(dir, 'back');
    const r = await copy(['--from', url, '--to', back]);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /^copied \d+ papers \(0 already there, 0 replaced\), \d+ sentences in [\d.]+ s \(store-write\); .* checksum matches\n$/,
    );
    const [a, b] = [await openPGliteStore(source, { create: false }), await openPGliteStore(back, { create: false })];
    try {
      const ids = (await a.driver.query('SELECT id FROM papers')).rows.map((x) => String(x.id));
      assert.deepEqual(await checksum(b, ids), await checksum(a, ids));
      assert.deepEqual(await b.sourceCopies(), sourceCopies, 'source copies copied back');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('bad arguments and a target built with another model are one clear line each', async () => {
    await assert.rejects(copy(['--from', source]), /copy needs --from DB and --to DB/);
    await assert.rejects(
      copy(['--from', source, '--to', 'supabase:https://x.supabase.co']),
      /use the project's postgres:\/\/ connection string/,
    );
    const other = await server.createDatabase('other');
    const o = await openPostgresStore(other);
    await o.init({ model: 'another-model', dimensions: embedder.dimensions });
    await o.close();
    await assert.rejects(copy(['--from', source, '--to', other]), (err: Error) => {
      assert.match(err.message, /another-model/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
  });

  test("the extension's move: the CLI in a child process, password in PGPASSWORD only, progress, then the summary", async () => {
    // A login that needs its password (scram) for this one database, as a lab server would.
    await server.sql(`CREATE ROLE mover LOGIN PASSWORD 'Right-Pw-1'`);
    await server.sql('CREATE DATABASE moved OWNER mover');
    await server.sql('CREATE EXTENSION vector', 'moved');
    const hba = join(server.dataDir, 'pg_hba.conf');
    writeFileSync(hba, `host moved mover 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
    await server.sql('SELECT pg_reload_conf()');
    const to = `postgres://mover@127.0.0.1:${server.port}/moved`;
    const host = { script: join(projectRoot, 'src', 'cli', 'main.ts'), execArgv: ['--import', 'tsx'] };
    await assert.rejects(runCopyProcess({ ...host, from: source, to, password: 'wrong' }), (err: Error) => {
      assert.match(
        err.message,
        /^the copy failed: authentication failed for postgres:\/\/mover@127\.0\.0\.1:\d+\/moved: .*password authentication failed/,
      );
      assert.doesNotMatch(err.message, /wrong|\n/);
      return true;
    });
    const progress: number[] = [];
    const s = await runCopyProcess({ ...host, from: source, to, password: 'Right-Pw-1', onProgress: (done) => progress.push(done) });
    assert.equal(s.checksum.match, true);
    assert.deepEqual([s.papers.target, s.sentences.target], [sourceCounts.papers, sourceCounts.sentences]);
    assert.equal(progress.at(-1), sourceCounts.papers);
    const controller = new AbortController();
    const run = runCopyProcess({ ...host, from: source, to, password: 'Right-Pw-1', signal: controller.signal });
    controller.abort();
    await assert.rejects(run, /the copy was cancelled; run it again to resume/);
  });
});
