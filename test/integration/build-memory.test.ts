// The embedded corpus's index build gets the memory for the graph of its measured size limit. pgvector builds an HNSW
// graph in maintenance_work_mem and goes on on disk, many times slower, once it no longer fits; it says when in a
// notice. These tests measure the graph's bytes per sentence from that notice in PGlite (so a pgvector that grows its
// graph fails here, not in a user's 500k build) and check that the store's build setting holds the limit's graph.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { EMBEDDED_SENTENCE_LIMIT, HNSW_ELEMENT_BYTES, PGLITE_BUILD_MEMORY_MB } from '../../src/core/store/ops/capacity.js';
import { buildMemorySql } from '../../src/core/store/sql/store.js';

const DIMS = 384;
const ROWS = 1_000;
/** PostgreSQL's smallest maintenance_work_mem. */
const MIN_MEMORY_KB = 1024;

describe('embedded index build memory', () => {
  let db: PGlite;
  before(async () => {
    db = await PGlite.create({ extensions: { vector } });
    await db.exec(`CREATE EXTENSION vector; CREATE TABLE t (e vector(${DIMS}));
      SELECT setseed(0.5);
      INSERT INTO t SELECT (SELECT array_agg(random() - 0.5)::vector(${DIMS}) FROM generate_series(1, ${DIMS}) WHERE i > 0)
        FROM generate_series(1, ${ROWS}) i`);
  });
  after(() => db?.close());

  /** Sentences whose graph fit into 1 MB, from pgvector's notice (null: no notice). */
  async function fittedIn1Mb(column: string, ops: string): Promise<number | null> {
    const notices: string[] = [];
    await db.exec(`DROP INDEX IF EXISTS t_hnsw; SET maintenance_work_mem = '${MIN_MEMORY_KB}kB'`);
    await db.query(`CREATE INDEX t_hnsw ON t USING hnsw (${column} ${ops}) WITH (m = 16, ef_construction = 64)`, [], {
      onNotice: (n) => notices.push(n.message ?? ''),
    });
    await db.exec('RESET maintenance_work_mem');
    const m = notices.map((n) => /no longer fits into maintenance_work_mem after (\d+) tuples/.exec(n)).find(Boolean);
    return m ? Number(m[1]) : null;
  }

  for (const [precision, column, ops] of [
    ['float32', 'e', 'vector_cosine_ops'],
    ['half', `(e::halfvec(${DIMS}))`, 'halfvec_cosine_ops'],
  ] as const) {
    test(`a ${precision} sentence takes the graph bytes the build memory is sized by (within 10 %)`, async () => {
      const fitted = await fittedIn1Mb(column, ops);
      assert.ok(fitted, 'pgvector said when the graph stopped fitting');
      const bytes = (MIN_MEMORY_KB * 1024) / fitted;
      const expected = HNSW_ELEMENT_BYTES[precision];
      assert.ok(Math.abs(bytes - expected) / expected < 0.1, `${bytes.toFixed(0)} bytes per sentence, sized for ${expected}`);
    });
  }

  test("the store's build setting in PGlite holds the graph of the embedded size limit", async () => {
    await db.exec(buildMemorySql('pglite'));
    const { rows } = await db.query<{ kb: string }>(`SELECT setting AS kb FROM pg_settings WHERE name = 'maintenance_work_mem'`);
    const kb = Number(rows[0].kb);
    await db.exec('RESET maintenance_work_mem');
    assert.equal(kb, PGLITE_BUILD_MEMORY_MB * 1024, 'PGlite took the setting');
    assert.ok(EMBEDDED_SENTENCE_LIMIT * HNSW_ELEMENT_BYTES.float32 <= kb * 1024, 'the float32 graph of the limit fits');
  });
});
