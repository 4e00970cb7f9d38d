// `corpus-lens schema|import|query` end to end on an embedded corpus: the commands' run functions in process
// (stdout captured) with the real offline embedder, plus black-box child processes for the exit codes and stderr.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createImportCommand } from '../../src/cli/commands/import.js';
import { createQueryCommand } from '../../src/cli/commands/query.js';
import { SCHEMA_VERSION, schemaSql } from '../../src/core/store/sql/schema.js';
import { HashEmbedder } from '../support/db-embedder.js';
import { fixtureRows, toJsonl } from '../support/db-fixture.js';
import { projectRoot } from '../support/eval.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-cli-'));
const db = join(dir, 'corpus');
const docs = join(dir, 'Document.jsonl');
const srcs = join(dir, 'Source.jsonl');
const { documents, sources } = fixtureRows();
const main = join(projectRoot, 'src', 'cli', 'main.ts');

/** The CLI as a child process: exit code, stdout, stderr. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return run(process.execPath, ['--import', 'tsx', main, ...args], { cwd: projectRoot, env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

let out: string[] = [];
let err: string[] = [];
/** Runs a command with its output captured (the test runner itself uses process.stdout). */
async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  out = [];
  err = [];
  const code = await fn();
  return { code, out: out.join(''), err: err.join('') };
}
const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };

const importCmd = createImportCommand({ env: {}, ...io });
const queryCmd = createQueryCommand({ env: {}, ...io });

before(async () => {
  writeFileSync(docs, toJsonl(documents));
  writeFileSync(srcs, toJsonl(sources));
});

after(() => rmSync(dir, { recursive: true, force: true }));

test('schema --print prints the one SQL source for the given dimension', async () => {
  const r = await cli(['schema', '--print', '--dimensions', '1536']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /CREATE TABLE IF NOT EXISTS sentences/);
  assert.match(r.stdout, /embedding vector\(1536\)/);
  assert.match(r.stdout, /USING hnsw \(embedding vector_cosine_ops\)/);
  assert.match(r.stdout, /CREATE OR REPLACE FUNCTION match_sentences\(\s*query_embedding vector\(1536\)/);
  assert.match(r.stdout, /bm25_sentences/);
  assert.ok(
    r.stdout.startsWith(`-- Corpus Lens schema v${SCHEMA_VERSION}, embeddings of 1536 dimensions (pgvector), float32 HNSW indexes.`),
    r.stdout.slice(0, 120),
  );
  assert.match(
    r.stdout,
    /ALTER TABLE sentences ADD COLUMN IF NOT EXISTS line_start int;\nALTER TABLE sentences ADD COLUMN IF NOT EXISTS line_end int;\nALTER TABLE sentences ADD COLUMN IF NOT EXISTS page_end int;/,
  );
  assert.equal(r.stdout, schemaSql(1536));
  const bad = await cli(['schema', '--print', '--dimensions', 'x']);
  assert.equal(bad.code, 2, 'a usage error');
  assert.equal(bad.stderr, "corpus-lens: --dimensions must be an integer in 1..16000 (got 'x')\n");
});

test('schema --print --precision: half indexes the halfvec cast; above 2,000 dimensions half is the default; above 4,000 a clear error', async () => {
  const half = await cli(['schema', '--print', '--dimensions', '64', '--precision', 'half']);
  assert.equal(half.code, 0, half.stderr);
  assert.equal(half.stdout, schemaSql(64, 'half'));
  assert.match(half.stdout, /USING hnsw \(\(embedding::halfvec\(64\)\) halfvec_cosine_ops\)/);
  assert.match(half.stdout, /ORDER BY \(s\.embedding\)::halfvec\(64\) <=> \(query_embedding\)::halfvec\(64\)/);
  const wide = await cli(['schema', '--print', '--dimensions', '3072']);
  assert.equal(wide.code, 0, wide.stderr);
  assert.match(wide.stdout, /embedding vector\(3072\)/);
  assert.match(wide.stdout, /USING hnsw \(\(embedding::halfvec\(3072\)\) halfvec_cosine_ops\)/);
  const bad = await cli(['schema', '--print', '--precision', 'int8']);
  assert.equal(bad.code, 2, 'a usage error');
  assert.equal(bad.stderr, "corpus-lens: --precision must be float32 or half (got 'int8')\n");
  const tooWide = await cli(['schema', '--print', '--dimensions', '4096']);
  assert.equal(tooWide.code, 1);
  assert.match(
    tooWide.stderr,
    /4096-d embeddings cannot be indexed: pgvector's HNSW index takes at most 2000 dimensions in float32 and 4000 in half precision/,
  );
  assert.equal(tooWide.stdout, '');
});

test('schema --print --roles --supabase: the schema unchanged first, then roles, then row-level security', async () => {
  const r = await cli(['schema', '--print', '--dimensions', '64', '--roles', '--supabase']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.startsWith(schemaSql(64)), 'an existing migration stays a prefix of the output');
  const rest = r.stdout.slice(schemaSql(64).length);
  assert.ok(rest.indexOf('CREATE ROLE corpus_lens_reader NOLOGIN') < rest.indexOf('ENABLE ROW LEVEL SECURITY'));
  assert.match(
    rest,
    /GRANT SELECT ON TABLE corpus_meta, papers, source_copies, sentences, sections, term_stats, fts_totals, elements TO corpus_lens_reader;/,
  );
  assert.match(rest, /CREATE POLICY corpus_lens_read ON sentences FOR SELECT TO anon, authenticated USING \(true\);/);
  const roles = await cli(['schema', '--print', '--dimensions', '64', '--roles']);
  assert.doesNotMatch(roles.stdout, /ROW LEVEL SECURITY/);
});

test('import embeds, reports, and re-importing adds nothing', async () => {
  const r = await capture(() => importCmd.run(['--db', db, '--documents', docs, '--sources', srcs]));
  assert.equal(r.code, 0, r.err);
  const summary = JSON.parse(r.out);
  assert.equal(summary.papers, 3);
  assert.equal(summary.sentences, 14);
  assert.equal(summary.embedded, 14);
  assert.match(summary.model, /offline/);
  const again = await capture(() => importCmd.run(['--db', db, '--documents', docs, '--sources', srcs]));
  const s2 = JSON.parse(again.out);
  assert.equal(s2.papers, 0);
  assert.equal(s2.sentences, 0);
  assert.equal(s2.skipped, 14);
});

test('a bad JSONL line is reported with its line number; the good lines are imported; exit non-zero', async () => {
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(
    bad,
    [
      JSON.stringify({
        doc_id: 'p4',
        text: 'A new sentence about citation graphs.',
        section_title: 'Intro',
        section_number: '1',
        sentence_index: 0,
        global_index: 0,
      }),
      '{"doc_id": "p4", "text": "broken',
      JSON.stringify({ doc_id: 'p4', text: 'No index here.' }),
      JSON.stringify({
        doc_id: 'p4',
        text: 'Another sentence about citation graphs.',
        section_title: 'Intro',
        section_number: '1',
        sentence_index: 1,
        global_index: 1,
      }),
    ].join('\n') + '\n',
  );
  const r = await capture(() =>
    importCmd.run(['--db', db, '--documents', bad]).then(
      () => 0,
      (e: Error) => {
        err.push(`ERR ${e.message}\n`);
        return 1;
      },
    ),
  );
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.out).sentences, 2, 'the good lines were imported');
  assert.match(r.err, /bad\.jsonl:2: /);
  assert.match(r.err, /bad\.jsonl:3: sentence_index must be an integer/);
  assert.match(r.err, /ERR 2 bad lines not imported \(first: .*bad\.jsonl:2: /);
});

test('query prints the hit contract: {similarity, sentence, previous, next, paper, score}', async () => {
  const r = await capture(() => queryCmd.run(['--db', db, '--k', '3', 'BM25 remains a strong baseline for keyword retrieval.']));
  assert.equal(r.code, 0, r.err);
  const hits = JSON.parse(r.out);
  assert.equal(hits.length, 3);
  assert.deepEqual(Object.keys(hits[0]), ['similarity', 'sentence', 'previous', 'next', 'paper', 'score']);
  assert.deepEqual(Object.keys(hits[0].sentence).sort(), [
    'globalIndex',
    'id',
    'paperId',
    'sectionNumber',
    'sectionTitle',
    'sentenceIndex',
    'text',
  ]);
  assert.deepEqual(Object.keys(hits[0].paper).sort(), ['authors', 'doi', 'id', 'title', 'venue', 'year']);
  assert.equal(hits[0].sentence.text, 'BM25 remains a strong baseline for keyword retrieval.');
  assert.ok(hits[0].similarity > 0.99);
  assert.equal(hits[0].score, hits[0].similarity, 'a vector ranking scores by the cosine');
  assert.equal(hits[0].previous, null);
  assert.equal(hits[0].next.text, 'Acronyms and numbers are blurred by sentence embeddings.');
  assert.deepEqual(hits[0].paper, {
    id: 'p2',
    title: 'Keyword search still matters',
    authors: ['Grace Hopper'],
    year: 2021,
    venue: 'SIGIR',
    doi: '10.1000/p2',
  });
});

test('query --offset 1, --mode keyword|hybrid, --threshold, --queries', async () => {
  const off = JSON.parse(
    (
      await capture(() =>
        queryCmd.run(['--db', db, '--k', '1', '--offset', '1', 'Sentence embeddings map similar sentences to nearby vectors.']),
      )
    ).out,
  );
  assert.equal(off[0].sentence.text, 'We retrieve sentences from prior papers that phrase an idea similarly.');
  const kw = JSON.parse((await capture(() => queryCmd.run(['--db', db, '--mode', 'keyword', 'BM25']))).out);
  assert.equal(kw.length, 1);
  // A BM25 score is no similarity: similarity stays a cosine or null, the BM25 goes in score.
  assert.equal(kw[0].similarity, null);
  assert.ok(kw[0].score > 0);
  const hy = JSON.parse((await capture(() => queryCmd.run(['--db', db, '--mode', 'hybrid', '--k', '5', 'BM25 baseline']))).out);
  assert.equal(hy[0].sentence.text, 'BM25 remains a strong baseline for keyword retrieval.');
  assert.ok(hy[0].similarity >= -1 && hy[0].similarity <= 1, 'hybrid: similarity is the cosine');
  const th = JSON.parse(
    (
      await capture(() =>
        queryCmd.run(['--db', db, '--threshold', '0.9', 'Hybrid retrieval with reciprocal rank fusion beats both rankings.']),
      )
    ).out,
  );
  assert.equal(th.length, 1);
  const qf = join(dir, 'queries.jsonl');
  writeFileSync(qf, '{"id":"a","text":"BM25 baseline"}\n{"id":"b","text":"writing assistants"}\n');
  const lines = (await capture(() => queryCmd.run(['--db', db, '--k', '2', '--queries', qf]))).out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.map((l) => l.id),
    ['a', 'b'],
  );
  for (const l of lines) assert.equal(l.hits.length, 2);
});

test('query --with-title searches for "TITLE. TEXT" (CorpusStudio\'s composition), also for each line of --queries', async () => {
  const title = 'Hybrid retrieval with reciprocal rank fusion';
  const sentence = 'BM25 remains a strong baseline.';
  const hits = async (...args: string[]) => JSON.parse((await capture(() => queryCmd.run(['--db', db, '--k', '5', ...args]))).out);
  const composed = await hits('--with-title', title, sentence);
  assert.deepEqual(composed, await hits(`${title}. ${sentence}`), 'the same hits as the composed text');
  assert.notDeepEqual(composed, await hits(sentence), 'the title changes what is found');
  const qf = join(dir, 'titled-queries.jsonl');
  writeFileSync(qf, JSON.stringify({ id: 'q', text: sentence }) + '\n');
  const [line] = (await capture(() => queryCmd.run(['--db', db, '--k', '5', '--with-title', title, '--queries', qf]))).out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(line.hits, composed);
  // The title never makes an empty query searchable.
  await assert.rejects(() => queryCmd.run(['--db', db, '--with-title', title, '  ']), /no words/);
});

test('query --venue, --section (case-insensitive parts), with --year-min/--year-max and every mode', async () => {
  const text = 'sentences retrieval writing authors';
  const q = async (...flags: string[]) => {
    const r = await capture(() => queryCmd.run(['--db', db, '--k', '25', ...flags, text]));
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out) as { paper: { id: string; venue: string; year: number }; sentence: { sectionTitle: string } }[];
  };
  const sigir = await q('--venue', 'sigir');
  assert.ok(sigir.length > 0);
  for (const h of sigir) assert.equal(h.paper.venue, 'SIGIR');
  const intro = await q('--section', 'INTRO', '--venue', 'acl');
  assert.equal(intro.length, 3);
  for (const h of intro) assert.deepEqual([h.paper.id, h.sentence.sectionTitle], ['p1', 'Introduction']);
  assert.deepEqual(await q('--venue', 'acl', '--year-min', '2020'), []);
  for (const mode of ['keyword', 'hybrid']) {
    const hits = await q('--mode', mode, '--section', 'results');
    assert.ok(hits.length > 0, mode);
    for (const h of hits) assert.equal(h.sentence.sectionTitle, 'Results');
  }
  const papers = await q('--group', 'papers', '--section', 'background');
  assert.deepEqual(
    papers.map((h) => h.paper.id),
    ['p3'],
  );
});

test('query --group papers prints one hit per paper in the paper ranking, the hit contract unchanged', async () => {
  const text = 'Writing assistants suggest example sentences while authors draft [12].';
  const r = await capture(() => queryCmd.run(['--db', db, '--group', 'papers', '--k', '3', text]));
  assert.equal(r.code, 0, r.err);
  const hits = JSON.parse(r.out);
  assert.deepEqual(Object.keys(hits[0]), ['similarity', 'sentence', 'previous', 'next', 'paper', 'score']);
  const ids = hits.map((h: { paper: { id: string } }) => h.paper.id);
  assert.equal(ids.length, 3);
  assert.equal(new Set(ids).size, 3, 'one hit per paper');
  assert.equal(hits[0].paper.id, 'p3');
  assert.equal(hits[0].sentence.text, 'Writing assistants suggest example sentences while authors draft.');
  assert.equal(hits[0].previous.text, 'Authors imitate the phrasing of prior papers in their field.');
  const one = JSON.parse(
    (await capture(() => queryCmd.run(['--db', db, '--group', 'papers', '--k', '1', 'BM25 acronyms rare terms']))).out,
  );
  assert.deepEqual(
    one.map((h: { paper: { id: string } }) => h.paper.id),
    ['p2'],
  );
  await assert.rejects(queryCmd.run(['--db', db, '--group', 'papers', '--mode', 'keyword', 'BM25']), /drop --mode/);
  await assert.rejects(queryCmd.run(['--db', db, '--group', 'authors', 'BM25']), /--group must be sentences or papers/);
});

test('a query embedder of another model/dimension is refused, naming both', async () => {
  const other = createQueryCommand({ env: {}, ...io, makeEmbedder: async () => new HashEmbedder(64) });
  await assert.rejects(other.run(['--db', db, 'anything']), (err: Error) => {
    assert.match(err.message, /^corpus was built with corpus-lens-offline-hash-v1 \(384-d\); query embedding is test-hash-64 \(64-d\)$/);
    return true;
  });
});

test('black box: the CLI binary prints JSON and exits non-zero with one line on errors', async () => {
  const node = cli;
  const ok = await node(['query', '--db', db, '--k', '2', 'writing assistants suggest example sentences']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout)[0].paper.id, 'p3');
  const down = await node(['query', '--db', 'postgres://u:pw@127.0.0.1:1/x', 'text']);
  assert.notEqual(down.code, 0);
  assert.match(down.stderr, /^corpus-lens: cannot reach the corpus at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x: .*\n$/);
  const nokey = await node(['query', '--db', 'supabase:http://127.0.0.1:1', 'text'], { SUPABASE_KEY: '' });
  assert.notEqual(nokey.code, 0);
  assert.equal(nokey.stderr, 'corpus-lens: no Supabase key: set SUPABASE_KEY\n');
});
