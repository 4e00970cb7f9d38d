// A lab server in a Docker container with Docker's default 64 MB /dev/shm (`docker run pgvector/pgvector` without
// --shm-size). pgvector's parallel HNSW build reserves maintenance_work_mem (the store asks for at least 256 MB) in
// one shared memory segment there, and fails with "could not resize shared memory segment … No space left on
// device": a bulk load, which drops the indexes first, then left the corpus without them. The store builds serially
// instead. The server is a real PostgreSQL 15 + pgvector given its own 64 MB /dev/shm (a private mount namespace:
// needs root; skipped with the reason without it, see smallShmSkip).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openPostgresStore } from '../../src/core/store/postgres.js';
import type { SqlCorpusStore } from '../../src/core/store/sql.js';
import type { PaperInput } from '../../src/core/store/types.js';
import { DIM, MODEL, q } from '../support/db-contract.js';
import { hashEmbed } from '../support/db-embedder.js';
import { realPgSkip, smallShmSkip, startRealPg, type RealPg } from '../support/pg-real.js';

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

describe('a server whose /dev/shm is too small for a parallel index build (Docker default)', { skip: realPgSkip() || smallShmSkip() }, () => {
  let server: RealPg;
  let url: string;
  let store: SqlCorpusStore;

  before(async () => {
    // min_parallel_table_scan_size 0: the planner gives the build parallel workers at this test's size, as it does
    // from 8 MB of sentences (~5k) with the default.
    server = await startRealPg({ min_parallel_table_scan_size: '0' }, { shmMb: 64 });
    url = await server.createDatabase('shm');
    store = await openPostgresStore(url);
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
  });
});
