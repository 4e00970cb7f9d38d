// A lab server in a Docker container with Docker's default 64 MB /dev/shm (`docker run pgvector/pgvector` without
// --shm-size). pgvector's parallel HNSW build reserves maintenance_work_mem (the store asks for at least 256 MB) in
// one shared memory segment there, and fails with "could not resize shared memory segment … No space left on
// device": a bulk load, which drops the indexes first, then left the corpus without them. The store builds serially
// instead, and says so once (`corpus-lens ingest`: a warning in its summary). The server is a real PostgreSQL 15 + pgvector given its own 64 MB /dev/shm (a private mount namespace:
// needs root; skipped with the reason without it, see smallShmSkip).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openPostgresStore } from '../../src/core/store/backends/postgres.js';
import { SERIAL_BUILD_NOTICE, type SqlCorpusStore } from '../../src/core/store/sql/store.js';
import type { PaperInput } from '../../src/core/store/types.js';
import { DIM, MODEL, q } from '../support/db-contract.js';
import { hashEmbed } from '../support/db-embedder.js';
import { realPgSkip, smallShmSkip, startRealPg, type RealPg } from '../support/pg-real.js';
import { runCli } from '../support/cli.ts';

const PAPERS = 60;
const PER_PAPER = 20;

function paper(i: number): PaperInput {
  return {
    id: `p${i}`,
    title: `Paper ${i}`,
    year: 2020,
    sentences: Array.from({ length: PER_PAPER }, (_, g) => {
      const text = `Paper ${i} sentence ${g} about topic${(i * PER_PAPER + g) % 97} and method${g}.`;
      return { sectionIndex: Math.floor(g / 5), sentenceIndex: g % 5, globalIndex: g, text, embedding: hashEmbed(text, DIM) };
    }),
  };
}

describe(
  'a server whose /dev/shm is too small for a parallel index build (Docker default)',
  { skip: realPgSkip() || smallShmSkip() },
  () => {
    let server: RealPg;
    let url: string;
    let store: SqlCorpusStore;
    const notices: string[] = [];

    before(async () => {
      // min_parallel_table_scan_size 0: the planner gives the build parallel workers at this test's size, as it does
      // from 8 MB of sentences (~5k) with the default.
      server = await startRealPg({ min_parallel_table_scan_size: '0' }, { shmMb: 64 });
      url = await server.createDatabase('shm');
      store = await openPostgresStore(url, {}, { onNotice: (m) => notices.push(m) });
      await store.init({ model: MODEL, dimensions: DIM });
    });

    after(async () => {
      await store?.close();
      await server?.stop();
    });

    test('the server really refuses a parallel build of 256 MB (else this file tests nothing)', async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`CREATE TABLE probe AS SELECT i, ('[' || i || ',1]')::vector(2) AS e FROM generate_series(1, 20000) i`);
        await c.query(`SET maintenance_work_mem = '256MB'`);
        await assert.rejects(c.query(`CREATE INDEX ON probe USING hnsw (e vector_cosine_ops)`), /could not resize shared memory segment/);
      } finally {
        await c.end();
      }
    });

    test('a bulk load still ends with its indexes, and finds a stored sentence first', async () => {
      const papers = Array.from({ length: PAPERS }, (_, i) => paper(i));
      await store.writePapers(papers, { deferIndexes: true });
      const { rows } = await store.driver.query(
        `SELECT count(*)::int AS n FROM pg_indexes WHERE indexname IN ('sentences_embedding_hnsw', 'sentences_tsv', 'sections_embedding_hnsw')`,
      );
      assert.equal(rows[0].n, 3, 'the HNSW, full-text and section indexes are there');
      const target = papers[17].sentences[3].text;
      const hits = await store.matchVector(q(target).vector, { count: 5 });
      assert.equal(hits[0]?.sentence.text, target);
      assert.deepEqual(notices, [SERIAL_BUILD_NOTICE], 'the serial build is reported, once for the three indexes');
    });

    /** 100 Markdown papers × 25 sentences in a new folder: past the 2,000 sentences from which a load defers its indexes. */
    function papersFolder(dir: string): string {
      const folder = join(dir, 'papers');
      mkdirSync(folder);
      for (let i = 0; i < 100; i++) {
        const body = Array.from({ length: 25 }, (_, g) => `Paper ${i} reports finding ${g} on estuary${(i * 25 + g) % 89} sediment.`).join(
          ' ',
        );
        writeFileSync(join(folder, `p${i}.md`), `---\ntitle: "Estuary ${i}"\n---\n\n## Results\n\n${body}\n`);
      }
      return folder;
    }

    test('corpus-lens ingest --json lists the serial build among its warnings, and the corpus answers', { timeout: 180_000 }, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-shm-'));
      try {
        const folder = papersFolder(dir);
        const db = await server.createDatabase('shm_cli');
        const r = await runCli(['ingest', '--db', db, '--json', folder]);
        assert.equal(r.code, 0, r.stderr);
        const summary = JSON.parse(r.stdout);
        assert.equal(summary.sentences, 2500);
        assert.deepEqual(summary.warnings, [{ file: db, reason: SERIAL_BUILD_NOTICE }]);
        const q = await runCli(['query', '--db', db, '--k', '1', 'Paper 42 reports finding 7 on estuary78 sediment.']);
        assert.equal(q.code, 0, q.stderr);
        assert.equal(JSON.parse(q.stdout)[0].sentence.text, 'Paper 42 reports finding 7 on estuary78 sediment.');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('corpus-lens copy (Move Corpus to PostgreSQL) says so on stderr and in its --json warnings', { timeout: 180_000 }, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-shm-'));
      try {
        const embedded = join(dir, 'corpus');
        const made = await runCli(['ingest', '--db', embedded, '--json', papersFolder(dir)]);
        assert.equal(made.code, 0, made.stderr);
        assert.deepEqual(JSON.parse(made.stdout).warnings, [], 'no notice from the embedded corpus');
        const db = await server.createDatabase('shm_copy');
        const r = await runCli(['copy', '--from', embedded, '--to', db, '--json']);
        assert.equal(r.code, 0, r.stderr);
        const summary = JSON.parse(r.stdout);
        assert.equal(summary.checksum.match, true);
        assert.deepEqual(summary.warnings, [SERIAL_BUILD_NOTICE]);
        assert.ok(r.stderr.includes(`corpus-lens: warning: ${SERIAL_BUILD_NOTICE}`), r.stderr);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
