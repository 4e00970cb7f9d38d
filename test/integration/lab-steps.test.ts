// docs/lab-postgres.md's steps, exactly as written, on a real PostgreSQL 15 + pgvector server: the database's owner
// (a role that may create roles, not a superuser) pipes `corpus-lens schema --print … --roles` into psql, creates a
// reader and a writer login, the writer makes the FIRST fill (ingest into one database, copy into another) and the
// reader looks up and can do nothing else, temporary tables included. The writer never needs DDL. Skipped with a
// reason where the server is absent, except CI=true.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { projectRoot } from '../support/eval.js';
import { PG_BIN, realPgSkip, startRealPg, type RealPg } from '../support/pg-real.js';

const skip = realPgSkip();
const corpus = join(projectRoot, 'samples', 'corpus');

/** Step 1 as printed: the schema piped into psql as `user` (stopping at the first error, as the doc says). */
async function migrate(url: string, flags: string[]): Promise<void> {
  const schema = await runCli(['schema', '--print', ...flags]);
  assert.equal(schema.code, 0, schema.stderr);
  const psql = spawnSync(join(PG_BIN, 'psql'), [url, '-v', 'ON_ERROR_STOP=1', '-q'], { input: schema.stdout, encoding: 'utf8' });
  assert.equal(psql.status, 0, psql.stderr);
  assert.doesNotMatch(psql.stderr, /ERROR/);
}

async function psqlAs(url: string, sql: string): Promise<{ status: number | null; stderr: string; stdout: string }> {
  const r = spawnSync(join(PG_BIN, 'psql'), [url, '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', sql], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('the lab steps of docs/lab-postgres.md on a real PostgreSQL 15 server', { skip }, () => {
  let server: RealPg;
  const as = (user: string, db: string) => server.url(db).replace('postgres@', `${user}@`);
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-lab-'));

  before(async () => {
    server = await startRealPg();
    // The owner: a login that may create roles and owns the databases; pgvector installed in them by a superuser
    // (the extension is not trusted), as a managed server offers it.
    await server.sql('CREATE ROLE owner LOGIN CREATEROLE');
    for (const db of ['corpus', 'copied']) {
      await server.sql(`CREATE DATABASE ${db} OWNER owner`);
      await server.sql('CREATE EXTENSION vector', db);
      // Step 1, twice (re-running it is harmless).
      for (let i = 0; i < 2; i++) await migrate(as('owner', db), ['--dimensions', '384', '--precision', 'half', '--roles']);
    }
    // Step 2.
    const roles = await psqlAs(
      as('owner', 'corpus'),
      "CREATE ROLE alice LOGIN PASSWORD 'a' IN ROLE corpus_lens_reader; CREATE ROLE bob LOGIN PASSWORD 'b' IN ROLE corpus_lens_writer;",
    );
    assert.equal(roles.status, 0, roles.stderr);
  });

  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a writer's first ingest fills the owner's empty schema and records the corpus's model", async () => {
    const r = await runCli(['ingest', '--db', as('bob', 'corpus'), '--json', corpus]);
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as { papers: number; sentences: number; failed: unknown[] };
    assert.equal(summary.failed.length, 0, r.stdout);
    assert.ok(summary.papers >= 20 && summary.sentences > 500, r.stdout);
    const meta = await psqlAs(
      as('alice', 'corpus'),
      `SELECT key || '=' || value FROM corpus_meta WHERE key IN ('dimensions', 'embedding_model') ORDER BY 1`,
    );
    assert.equal(meta.stdout.trim(), 'dimensions=384\nembedding_model=corpus-lens-offline-hash-v1');
    // A second run by the writer skips the unchanged files.
    const again = await runCli(['ingest', '--db', as('bob', 'corpus'), '--json', corpus]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).papers, 0, again.stdout);
  });

  test("a writer's first copy moves an embedded corpus into the owner's empty schema", async () => {
    const local = join(dir, 'embedded');
    const made = await runCli([
      'ingest',
      '--db',
      local,
      '--json',
      join(corpus, 'adeyemi2019citrec.tex'),
      join(corpus, 'brennan2025genreaware.md'),
    ]);
    assert.equal(made.code, 0, made.stderr);
    await psqlAs(
      as('owner', 'copied'),
      "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'bob') THEN CREATE ROLE bob LOGIN IN ROLE corpus_lens_writer; END IF; END $$",
    );
    const r = await runCli(['copy', '--from', local, '--to', as('bob', 'copied'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    const counts = await psqlAs(as('owner', 'copied'), 'SELECT count(*) FROM sentences');
    assert.equal(Number(counts.stdout), JSON.parse(made.stdout).sentences);
  });

  test('the reader looks up, and cannot write, create, or make temporary tables', async () => {
    const q = await runCli([
      'query',
      '--db',
      as('alice', 'corpus'),
      '--k',
      '3',
      'BM25 is a strong keyword baseline for sentence retrieval.',
    ]);
    assert.equal(q.code, 0, q.stderr);
    assert.equal((JSON.parse(q.stdout) as unknown[]).length, 3);
    for (const sql of ['CREATE TEMP TABLE t (x int)', 'CREATE TABLE t (x int)', "INSERT INTO corpus_meta VALUES ('x', 'y')"]) {
      const r = await psqlAs(as('alice', 'corpus'), sql);
      assert.notEqual(r.status, 0, `${sql} was allowed`);
      assert.match(r.stderr, /permission denied/, sql);
    }
    const paper = join(dir, 'new.md');
    writeFileSync(paper, '# A new paper\n\nA reader cannot add this sentence to the shared corpus.\n');
    const write = await runCli(['ingest', '--db', as('alice', 'corpus'), paper]);
    assert.notEqual(write.code, 0);
    assert.match(write.stderr, /permission denied/);
  });
});
