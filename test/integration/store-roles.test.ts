// Who may write a shared corpus, on a real PostgreSQL 15 + pgvector server (`corpus-lens schema --print --roles
// --supabase` SQL, run as a migration): a corpus_lens_reader login can look up but cannot insert, update,
// delete, create or drop anything; a corpus_lens_writer login can ingest and re-ingest; every corpus function is
// SECURITY INVOKER with a fixed search_path; on a Supabase-shaped database (roles anon/authenticated/service_role
// and Supabase's default grants) the anon key, through the PostgREST stand-in connected as anon, can read and call
// the lookups and nothing else. Skipped with a reason where the server is absent, except CI=true.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from 'pg';
import { hybridSearch, keywordSearch, match } from '../../src/core/retrieve/index.js';
import { openPostgresStore } from '../../src/core/store/backends/postgres.js';
import { CORPUS_TABLES, READ_FUNCTIONS, WRITE_FUNCTIONS, rolesSql, supabasePoliciesSql } from '../../src/core/store/sql/roles.js';
import { schemaSql } from '../../src/core/store/sql/schema.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import { openSupabaseStore } from '../../src/core/store/backends/supabase.js';
import type { PaperInput } from '../../src/core/store/types.js';
import { DIM, MODEL, q } from '../support/db-contract.js';
import { hashEmbed } from '../support/db-embedder.js';
import { loadFixture } from '../support/db-fixture.js';
import { realPgSkip, startRealPg, type RealPg } from '../support/pg-real.js';
import { pgStandinDb, startPostgrestStandin } from '../support/postgrest-standin.js';

/** Statements a reader must be refused, each on its own (a refused one aborts nothing else). */
const FORBIDDEN = [
  `INSERT INTO papers (id, title) VALUES ('evil', 'x')`,
  `INSERT INTO sentences (paper_id, sentence_index, global_index, text) VALUES ('p1', 99, 99, 'x')`,
  `INSERT INTO corpus_meta (key, value) VALUES ('evil', 'x')`,
  `UPDATE papers SET title = 'defaced'`,
  `UPDATE sentences SET text = 'defaced' WHERE id = (SELECT min(id) FROM sentences)`,
  `UPDATE corpus_meta SET value = 'x' WHERE key = 'embedding_model'`,
  `DELETE FROM sentences`,
  `DELETE FROM papers`,
  `DELETE FROM term_stats`,
  `UPDATE fts_totals SET documents = 0`,
  `DELETE FROM sections`,
  `TRUNCATE papers CASCADE`,
  `SELECT nextval('sentences_id_seq')`,
  `SELECT refresh_search_stats()`,
  `SELECT term_stats_apply(1, ARRAY['a'::tsvector])`,
  `SELECT sections_refresh('[{"paper_id":"p1","section_index":0}]')`,
  `CREATE TABLE evil (x int)`,
  `CREATE FUNCTION evil() RETURNS int LANGUAGE sql AS 'SELECT 1'`,
  `CREATE INDEX evil ON papers (title)`,
  `CREATE VIEW evil AS SELECT 1`,
  `CREATE SCHEMA evil`,
  `DROP TABLE sentences`,
  `DROP FUNCTION match_sentences`,
  `DROP INDEX sentences_embedding_hnsw`,
  `ALTER TABLE papers ADD COLUMN evil int`,
  `ALTER TABLE papers DISABLE ROW LEVEL SECURITY`,
  `CREATE OR REPLACE FUNCTION section_titles(after_paper text DEFAULT NULL, after_section int DEFAULT NULL, max_rows int DEFAULT 1000)
     RETURNS TABLE (paper_id text, section_index int, section_title text) LANGUAGE sql AS 'SELECT NULL::text, 0, NULL::text'`,
  `DROP EXTENSION vector`,
];

function paper(id: string, n: number): PaperInput {
  return {
    id,
    title: `Paper ${id}`,
    year: 2024,
    sentences: Array.from({ length: n }, (_, i) => {
      const text = `Writer sentence ${i} of ${id} about shared corpora.`;
      return { sectionIndex: 0, sentenceIndex: i, globalIndex: i, sectionTitle: 'Intro', text, embedding: hashEmbed(text, DIM) };
    }),
  };
}

async function asRole(client: Client, sql: string): Promise<string | null> {
  try {
    await client.query(sql);
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? 'no code';
  }
}

const skip = realPgSkip();

describe('reader and writer roles on a real PostgreSQL 15 server', { skip }, () => {
  let server: RealPg;
  let url: string;
  let reader: SqlCorpusStore;
  let writer: SqlCorpusStore;

  before(async () => {
    server = await startRealPg();
    url = await server.createDatabase('lab');
    const owner = await openPostgresStore(url);
    await owner.init({ model: MODEL, dimensions: DIM });
    assert.equal(await loadFixture(owner), 14);
    await owner.close();
    // The migration as the owner would run it: the schema again (idempotent; at the corpus's precision, half as a new
    // PostgreSQL corpus's default) and the roles, twice (idempotent).
    await server.sql(schemaSql(DIM, 'half') + rolesSql() + rolesSql(), 'lab');
    await server.sql(`CREATE ROLE alice LOGIN IN ROLE corpus_lens_reader; CREATE ROLE bob LOGIN IN ROLE corpus_lens_writer`);
    reader = await openPostgresStore(url.replace('postgres@', 'alice@'));
    writer = await openPostgresStore(url.replace('postgres@', 'bob@'));
  });

  after(async () => {
    await reader?.close();
    await writer?.close();
    await server?.stop();
  });

  test('a reader looks up: vector, keyword, hybrid, filters, section titles, counts', async () => {
    const [top] = await match(reader, q('Sentence embeddings map similar sentences to nearby vectors.'), { k: 3, years: { min: 2019 } });
    assert.equal(top.sentence.text, 'Sentence embeddings map similar sentences to nearby vectors.');
    assert.equal((await match(reader, q('Cosine similarity ranks the candidate sentences.'), { k: 3 })).length, 3);
    assert.equal((await keywordSearch(reader, 'BM25', { k: 5 }))[0].paper.venue, 'SIGIR');
    assert.ok((await hybridSearch(reader, q('strong baseline BM25'), 'strong baseline BM25', { k: 5 })).length > 0);
    const [paper] = await reader.matchPapers(q('keyword retrieval BM25 baseline').vector, 'keyword retrieval BM25 baseline', { count: 3 });
    assert.equal(paper.paper.id, 'p2');
    assert.equal((await reader.sectionTitles()).length, 5);
    assert.deepEqual(await reader.counts(), { papers: 3, sentences: 14 });
  });

  test('a reader cannot insert, update, delete, create or drop anything', async () => {
    const client = await (reader.driver as unknown as { pool: { connect(): Promise<Client & { release(): void }> } }).pool.connect();
    try {
      const allowed: string[] = [];
      for (const sql of FORBIDDEN) {
        const code = await asRole(client, sql);
        if (code === null) allowed.push(sql);
        else assert.match(code, /^(42501|2BP01)$/, `${sql}: ${code}`); // insufficient privilege (or dependent objects)
      }
      assert.deepEqual(allowed, [], 'statements a reader was allowed');
    } finally {
      client.release();
    }
    await assert.rejects(reader.writePapers([paper('r1', 2)]), /permission denied/);
    await assert.rejects(reader.deletePapers(['p1']), /permission denied/);
    assert.deepEqual(await reader.counts(), { papers: 3, sentences: 14 }, 'nothing changed');
  });

  test('a reader holds SELECT on the corpus tables and EXECUTE on the lookups, nothing else in the schema', async () => {
    const admin = await openPostgresStore(url);
    try {
      const tables = await admin.driver.query(
        `SELECT c.relname, p.priv FROM pg_class c, unnest(ARRAY['SELECT','INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) p(priv)
         WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p')
           AND has_table_privilege('alice', c.oid, p.priv) ORDER BY 1, 2`,
      );
      assert.deepEqual(
        tables.rows.map((r) => `${r.relname}:${r.priv}`),
        [...CORPUS_TABLES].sort().map((t) => `${t}:SELECT`),
      );
      const fns = await admin.driver.query(
        `SELECT DISTINCT p.proname FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
           AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
           AND p.prokind = 'f' AND has_function_privilege('alice', p.oid, 'EXECUTE') ORDER BY 1`,
      );
      assert.deepEqual(
        fns.rows.map((r) => r.proname),
        [...READ_FUNCTIONS].sort(),
      );
      const schema = await admin.driver.query(`SELECT has_schema_privilege('alice', 'public', 'CREATE') AS c`);
      assert.equal(schema.rows[0].c, false);
    } finally {
      await admin.close();
    }
  });

  test('every corpus function is SECURITY INVOKER with a fixed search_path', async () => {
    // Every function of the schema (not pgvector's), so that one added later without being listed is caught.
    const { rows } = await writer.driver.query(
      `SELECT p.proname, p.prosecdef, p.proconfig FROM pg_proc p
       WHERE p.pronamespace = 'public'::regnamespace AND p.prokind = 'f'
         AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
    );
    assert.deepEqual(rows.map((r) => r.proname).sort(), [...READ_FUNCTIONS, ...WRITE_FUNCTIONS].sort());
    for (const r of rows) {
      assert.equal(r.prosecdef, false, `${r.proname} is SECURITY DEFINER`);
      assert.ok((r.proconfig as string[]).includes('search_path=public, pg_temp'), `${r.proname}: ${r.proconfig}`);
    }
  });

  test('a writer ingests, re-ingests and deletes; statistics and sections follow', async () => {
    const w = await writer.writePapers([paper('w1', 4), paper('w2', 3)]);
    assert.deepEqual(w, { papers: 2, sentences: 7, skipped: 0, elements: 0 });
    // A bulk load asks to defer the indexes; a writer does not own them, so it loads with them in place.
    await writer.dropSearchIndexes();
    // With a table (elements_id_seq is the writer's to use too); the reader finds it.
    const table = {
      type: 'table' as const,
      label: 'Table 1',
      caption: 'Shared corpora by size.',
      content: 'Lab | Papers\nA | 120',
      sectionTitle: 'Intro',
      sectionIndex: 0,
      afterSentence: 0,
      page: null,
      bbox: null,
      elementIndex: 0,
      embedding: hashEmbed('Shared corpora by size.', DIM),
    };
    assert.equal((await writer.writePapers([{ ...paper('w3', 5), elements: [table] }])).elements, 1);
    const [el] = await reader.matchElements(hashEmbed('corpora by size', DIM), 'corpora by size', { count: 1 });
    assert.equal(el.element.label, 'Table 1');
    await writer.createSearchIndexes();
    await writer.deletePapers(['w2']);
    assert.deepEqual(await writer.counts(), { papers: 5, sentences: 23 });
    const [hit] = await keywordSearch(reader, 'corpora', { k: 1, paperIds: ['w3'] });
    assert.equal(hit.sentence.paperId, 'w3');
    const [v] = await match(reader, q('Writer sentence 2 of w1 about shared corpora.'), { k: 1 });
    assert.equal(v.sentence.paperId, 'w1');
    const idx = await writer.driver.query(
      `SELECT count(*)::int AS n FROM pg_indexes WHERE indexname IN ('sentences_embedding_hnsw', 'sentences_tsv')`,
    );
    assert.equal(idx.rows[0].n, 2, 'the indexes are still there');
  });

  test('a writer cannot create or drop schema objects either', async () => {
    for (const sql of ['CREATE TABLE evil (x int)', 'DROP TABLE sentences', 'DROP INDEX sentences_embedding_hnsw']) {
      await assert.rejects(writer.driver.query(sql), (err: { code?: string }) => err.code === '42501', sql);
    }
  });
});

describe('Supabase row-level security on a real PostgreSQL 15 server', { skip }, () => {
  let server: RealPg;
  let anonDb: Awaited<ReturnType<typeof pgStandinDb>>;
  let standin: Awaited<ReturnType<typeof startPostgrestStandin>>;

  before(async () => {
    server = await startRealPg();
    // Supabase's roles and its default grants on everything created in `public` (what makes RLS necessary).
    await server.sql(`CREATE ROLE anon NOLOGIN NOINHERIT; CREATE ROLE authenticated NOLOGIN NOINHERIT;
      CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS; CREATE ROLE authenticator LOGIN NOINHERIT;
      GRANT anon, authenticated, service_role TO authenticator`);
    const url = await server.createDatabase('supabase');
    await server.sql(
      `GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;
       ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated, service_role;
       ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
       ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role;`,
      'supabase',
    );
    await server.sql(schemaSql(DIM) + supabasePoliciesSql(), 'supabase');
    const owner = await openPostgresStore(url);
    await owner.init({ model: MODEL, dimensions: DIM });
    assert.equal(await loadFixture(owner), 14);
    await owner.close();
    // PostgREST connects as authenticator and switches to the key's role; here the session starts as anon.
    anonDb = await pgStandinDb(url.replace('postgres@', 'authenticator@') + '?options=-c%20role%3Danon');
    standin = await startPostgrestStandin(anonDb, { key: 'anon-key' });
  });

  after(async () => {
    await standin?.stop();
    await anonDb?.end();
    await server?.stop();
  });

  test('the anon key reads and calls the lookups through PostgREST', async () => {
    const store = await openSupabaseStore(standin.url, 'anon-key');
    const [top] = await match(store, q('Sentence embeddings map similar sentences to nearby vectors.'), { k: 3 });
    assert.equal(top.paper.title, 'Dense retrieval of scientific sentences');
    assert.equal((await keywordSearch(store, 'BM25', { k: 5 })).length, 1);
    assert.equal((await store.sectionTitles()).length, 5);
    assert.deepEqual(await store.counts(), { papers: 3, sentences: 14 });
    const who = (await anonDb.query('SELECT current_user AS u')).rows as { u: string }[];
    assert.equal(who[0].u, 'anon');
  });

  test('the anon key cannot write: PostgREST answers with the permission error and nothing changes', async () => {
    const store = await openSupabaseStore(standin.url, 'anon-key');
    await assert.rejects(store.writePapers([paper('a1', 2)]), /permission denied|row-level security/);
    const refused: string[] = [];
    for (const sql of FORBIDDEN) {
      try {
        await anonDb.query(sql);
      } catch (err) {
        refused.push(sql);
        assert.match(String((err as { code?: string }).code), /^(42501|2BP01)$/, sql);
      }
    }
    assert.deepEqual(
      FORBIDDEN.filter((s) => !refused.includes(s)),
      [],
      'statements anon was allowed',
    );
    assert.deepEqual(await store.counts(), { papers: 3, sentences: 14 });
  });
});
