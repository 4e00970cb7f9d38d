/**
 * The embedding cache on disk (CORPUS_LENS_CACHE_DIR), as the CLI uses it against the /v1/embeddings stand-in:
 * re-indexing the same papers into a new corpus and re-running a query cost no embedding calls, even for a model
 * of a size the product does not know (its probe is answered from disk too); another model, size or prefix
 * setting misses. Limits: the stand-in's vectors are hash noise; this checks what is sent, not what is found.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { startStandin, type Standin } from '../support/openai-standin.js';

let standin: Standin;
let dir: string;
before(async () => {
  standin = await startStandin({ modelDims: { 'nomic-embed-text': 768, 'bge-m3': 1024 }, rejectDimensions: ['nomic-embed-text'] });
  dir = mkdtempSync(join(tmpdir(), 'corpus-lens-embedding-cache-'));
});
after(async () => {
  await standin?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Texts sent to /v1/embeddings since the last reset. */
const sent = (): string[] => standin.requests.filter((r) => r.url.endsWith('/embeddings')).flatMap((r) => [r.body?.input ?? []].flat());

test('a second ingest of the same papers and a re-run query make no /v1/embeddings calls', { timeout: 300_000 }, async () => {
  const env = { OPENAI_BASE_URL: standin.baseURL, OPENAI_API_KEY: '', CORPUS_LENS_CACHE_DIR: join(dir, 'cache') };
  const papers = ['diet', 'sleep'].map((name, i) => {
    const file = join(dir, `${name}.md`);
    const text = i
      ? 'Sleep loss impaired recall in adults. The effect lasted two days.'
      : 'Mice were fed a high-fat diet. Their weight rose.';
    writeFileSync(file, `---\ntitle: "${name}"\n---\n\n## Results\n\n${text}\n`);
    return file;
  });
  const ingest = (db: string, ...more: string[]) =>
    runCli(['ingest', '--db', join(dir, db), '--embedder', 'openai', '--model', 'nomic-embed-text', ...more, ...papers], { env });

  const first = await ingest('a');
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^2 papers, 4 sentences added/);
  assert.ok(sent().length >= 4, 'the first ingest embeds every sentence');

  standin.reset();
  const again = await ingest('b');
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^2 papers, 4 sentences added/);
  assert.deepEqual(sent(), [], 'a re-index into a new corpus (size probe included) is served from disk');

  const query = () => runCli(['query', '--db', join(dir, 'b'), '--k', '2', 'rodents on a fatty diet'], { env });
  standin.reset();
  const q1 = await query();
  assert.equal(q1.code, 0, q1.stderr);
  assert.deepEqual(sent(), ['search_query: rodents on a fatty diet']);
  standin.reset();
  const q2 = await query();
  assert.equal(q2.code, 0, q2.stderr);
  assert.deepEqual(sent(), []);
  assert.equal(q2.stdout, q1.stdout);

  // Another prefix setting is another text; another model another file: both miss.
  standin.reset();
  assert.equal((await ingest('c', '--prefixes', 'none')).code, 0);
  assert.ok(sent().includes('Mice were fed a high-fat diet.'), sent().join(' | '));
  standin.reset();
  const other = await runCli(['ingest', '--db', join(dir, 'd'), '--embedder', 'openai', '--model', 'bge-m3', ...papers], { env });
  assert.equal(other.code, 0, other.stderr);
  assert.ok(sent().includes('Mice were fed a high-fat diet.'));

  // Off: every run embeds again.
  standin.reset();
  const off = await runCli(['query', '--db', join(dir, 'b'), '--k', '2', 'rodents on a fatty diet'], {
    env: { ...env, CORPUS_LENS_CACHE_DIR: 'off' },
  });
  assert.equal(off.code, 0, off.stderr);
  assert.deepEqual(sent(), ['search_query: rodents on a fatty diet']);
});

test('another requested size misses', { timeout: 300_000 }, async () => {
  const env = { OPENAI_BASE_URL: standin.baseURL, OPENAI_API_KEY: '', CORPUS_LENS_CACHE_DIR: join(dir, 'cache-dims') };
  const file = join(dir, 'dims.md');
  writeFileSync(file, '---\ntitle: "dims"\n---\n\n## Results\n\nA sentence about sizes.\n');
  for (const [db, dims] of [
    ['e', '256'],
    ['f', '512'],
  ]) {
    standin.reset();
    const r = await runCli(['ingest', '--db', join(dir, db), '--embedder', 'openai', '--model', 'bge-m3', '--dimensions', dims, file], {
      env,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sent(), ['A sentence about sizes.']);
  }
});
