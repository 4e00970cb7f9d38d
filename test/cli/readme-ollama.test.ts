/**
 * The README's Ollama commands, run as written: the ingest command is read from README.md itself (so the test
 * follows the README), its `http://localhost:11434/v1` pointed at the /v1/embeddings stand-in answering 768-d
 * vectors for nomic-embed-text (a size the product does not hold), DB and … filled in. A corpus is created with
 * the size the endpoint answered, `query` picks the model the corpus recorded, and a second ingest fills it.
 * Limits: the stand-in's vectors are hash noise, so this checks the plumbing and sizes, not what a neural model finds.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openStore } from '../../src/core/store/index.js';
import { runCli } from '../support/cli.js';
import { projectRoot } from '../support/eval.js';
import { startStandin, type Standin } from '../support/openai-standin.js';

let standin: Standin;
let dir: string;
before(async () => {
  // Ollama answers its own size and ignores no parameter we rely on: the stand-in refuses `dimensions` for it, so
  // none may be sent.
  standin = await startStandin({ modelDims: { 'nomic-embed-text': 768 }, rejectDimensions: ['nomic-embed-text'] });
  dir = mkdtempSync(join(tmpdir(), 'corpus-lens-readme-ollama-'));
});
after(async () => {
  await standin?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The README's `OPENAI_BASE_URL=… corpus-lens ingest … …` command: its base URL and its arguments. */
function readmeIngest(): { baseURL: string; args: string[] } {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const m = /`OPENAI_BASE_URL=(\S+) corpus-lens (ingest [^`]*?) …`/.exec(readme);
  assert.ok(m, 'the README shows the Ollama ingest command');
  return { baseURL: m[1], args: m[2].split(/\s+/) };
}

test('the README Ollama commands create, query and fill a 768-d corpus', { timeout: 300_000 }, async () => {
  const { baseURL, args } = readmeIngest();
  assert.equal(baseURL, 'http://localhost:11434/v1');
  assert.deepEqual(args, ['ingest', '--db', 'DB', '--embedder', 'openai', '--model', 'nomic-embed-text']);
  const db = join(dir, 'corpus');
  const env = { OPENAI_BASE_URL: baseURL.replace('http://localhost:11434/v1', standin.baseURL), OPENAI_API_KEY: '' };
  const withDb = args.map((a) => (a === 'DB' ? db : a));
  const paper = (name: string, text: string) => {
    const file = join(dir, `${name}.md`);
    writeFileSync(file, `---\ntitle: "${name}"\n---\n\n## Results\n\n${text}\n`);
    return file;
  };

  const first = await runCli([...withDb, paper('diet', 'Mice were fed a high-fat diet for twelve weeks. Their weight rose.')], { env });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^1 papers, 2 sentences added/);
  const store = await openStore(db, { create: false });
  try {
    const meta = await store.meta();
    assert.deepEqual([meta?.model, meta?.dimensions], ['openai:nomic-embed-text', 768]);
  } finally {
    await store.close();
  }

  standin.reset();
  const q = await runCli(['query', '--db', db, '--k', '2', 'rodents on a fatty diet'], { env });
  assert.equal(q.code, 0, q.stderr);
  assert.equal((JSON.parse(q.stdout) as unknown[]).length, 2);
  // The corpus's model, with its query prefix, and nothing else.
  assert.deepEqual(
    standin.requests.map((r) => [r.body?.model, [r.body?.input].flat()]),
    [['nomic-embed-text', ['search_query: rodents on a fatty diet']]],
  );

  const second = await runCli([...withDb, paper('sleep', 'Sleep loss impaired recall in adults. The effect lasted two days.')], { env });
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /^1 papers, 2 sentences added/);
  assert.equal(standin.requests.filter((r) => r.body?.dimensions !== undefined).length, 0);
});
