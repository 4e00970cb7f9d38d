/**
 * Any OpenAI-compatible model creates a corpus (issue 30): the built `corpus-lens` binary, as users run it, against
 * the /v1/embeddings stand-in answering each model's OWN size (a custom 768-d name, bge-m3 1024-d; the product holds
 * no size for them, and the stand-in refuses a `dimensions` parameter for them, so none may be sent unasked). On
 * an embedded corpus, a real PostgreSQL 15 + pgvector server and Supabase (the PostgREST stand-in over that server):
 * ingest and import create the corpus with the size the endpoint answers and record it; a second ingest and
 * import fill it; a model of another size is refused with a message naming both sides and writes nothing; copy
 * carries the corpus to a server; query finds a stored sentence by its own vector.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../src/core/store/index.js';
import { runCli } from '../support/cli.js';
import { fixtureRows, toJsonl } from '../support/db-fixture.js';
import { startStandin, type Standin } from '../support/openai-standin.js';
import { realPgSkip, startRealPg, type RealPg } from '../support/pg-real.js';
import { pgStandinDb, startPostgrestStandin, type PostgrestStandin } from '../support/postgrest-standin.js';

const MODEL = 'lab-embedder-v2'; // a vLLM / LM Studio style name no table knows
const OTHER = 'bge-m3';
const SIZES = { [MODEL]: 768, [OTHER]: 1024, 'nomic-embed-text': 768 };
const KEY = 'test-service-key';

let standin: Standin;
let dir: string;

/** A Markdown paper of three sentences mentioning `topic`. */
function paper(name: string, topic: string): string {
  const file = join(dir, 'papers', `${name}.md`);
  mkdirSync(join(dir, 'papers'), { recursive: true });
  writeFileSync(
    file,
    `---\ntitle: "${topic} study"\n---\n\n## Results\n\nWe measured ${topic} in forty sites. ` +
      `The ${topic} rose after the flood. Our ${topic} model explains the change.\n`,
  );
  return file;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runCli(args, { env: { OPENAI_BASE_URL: standin.baseURL, OPENAI_API_KEY: '', ...env } });
}

/** What the corpus recorded and holds, read through the product's own store. */
async function corpusState(db: string): Promise<{ model: string; dimensions: number; papers: number; sentences: number }> {
  const store = await openStore(db, { create: false, supabaseKey: KEY });
  try {
    const meta = await store.meta();
    const counts = await store.counts();
    return { model: meta?.model ?? '', dimensions: meta?.dimensions ?? 0, papers: counts.papers, sentences: counts.sentences };
  } finally {
    await store.close();
  }
}

const dimensionsSent = () => standin.requests.filter((r) => r.body?.dimensions !== undefined).length;

before(async () => {
  standin = await startStandin({ modelDims: SIZES, rejectDimensions: Object.keys(SIZES) });
  dir = mkdtempSync(join(tmpdir(), 'corpus-lens-dims-'));
});
after(async () => {
  await standin?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Target {
  name: string;
  skip: string | false;
  /** The --db of a new, empty corpus (migrated for `dimensions` where the backend needs a migration). */
  fresh(name: string): Promise<string>;
  env?: NodeJS.ProcessEnv;
}

let server: RealPg | undefined;
const closers: Array<() => Promise<void>> = [];
const pgSkip = realPgSkip();
async function realServer(): Promise<RealPg> {
  server ??= await startRealPg();
  return server;
}
after(async () => {
  for (const close of closers) await close();
  await server?.stop();
});

/** A Supabase project (the PostgREST stand-in over its own database on the real server), migrated as its owner would. */
async function supabaseProject(name: string, migrateFor?: number): Promise<{ target: string; postgres: string }> {
  const postgres = await (await realServer()).createDatabase(name);
  const db = await pgStandinDb(postgres);
  const rest: PostgrestStandin = await startPostgrestStandin(db, { key: KEY });
  closers.push(async () => (await rest.stop(), await db.end()));
  if (migrateFor !== undefined) {
    const schema = await runCli(['schema', '--print', '--dimensions', String(migrateFor)]);
    assert.equal(schema.code, 0, schema.stderr);
    await db.query(schema.stdout);
  }
  return { target: `supabase:${rest.url}`, postgres };
}

const TARGETS: Target[] = [
  { name: 'an embedded corpus (PGlite)', skip: false, fresh: async (name) => join(dir, name) },
  {
    name: 'PostgreSQL 15 + pgvector (real server)',
    skip: pgSkip,
    fresh: async (name) => (await realServer()).createDatabase(`pg_${name}`),
  },
  {
    name: 'Supabase (PostgREST stand-in over the real server)',
    skip: pgSkip,
    fresh: async (name) => (await supabaseProject(`supabase_${name}`, name === 'dims_import' ? 1024 : 768)).target,
    env: { SUPABASE_KEY: KEY },
  },
];

for (const target of TARGETS) {
  describe(`a 768-d model no table knows, on ${target.name}`, { skip: target.skip }, () => {
    let db = '';
    // A corpus that was never made fails the later steps here, not as a new corpus named "undefined".
    const run = (args: string[]) => (assert.ok(db, 'the corpus of the first step'), cli(args, target.env));

    test('ingest creates the corpus with the size the endpoint answers; a second ingest fills it', { timeout: 300_000 }, async () => {
      db = await target.fresh('dims_ingest');
      standin.reset();
      const first = await run(['ingest', '--db', db, '--embedder', 'openai', '--model', MODEL, '--json', paper('a', 'salinity')]);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(JSON.parse(first.stdout).sentences, 3);
      assert.deepEqual(await corpusState(db), { model: `openai:${MODEL}`, dimensions: 768, papers: 1, sentences: 3 });
      // Without --embedder, the model the corpus recorded (as `query` does).
      const second = await run(['ingest', '--db', db, '--json', paper('b', 'turbidity')]);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(JSON.parse(second.stdout).papers, 1);
      assert.deepEqual(await corpusState(db), { model: `openai:${MODEL}`, dimensions: 768, papers: 2, sentences: 6 });
      assert.equal(dimensionsSent(), 0, 'no `dimensions` parameter was sent unasked');
    });

    test('a model of another size is refused, naming both sides, and nothing is written', { timeout: 300_000 }, async () => {
      standin.reset();
      const r = await run(['ingest', '--db', db, '--embedder', 'openai', '--model', OTHER, paper('d', 'phosphate')]);
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        /^corpus-lens: the corpus holds 768-d vectors from openai:lab-embedder-v2; this model \(openai:bge-m3\) gives 1024-d vectors\. /,
      );
      assert.deepEqual(await corpusState(db), { model: `openai:${MODEL}`, dimensions: 768, papers: 2, sentences: 6 });
      // One probe, and no paper text, went to the endpoint.
      assert.deepEqual(
        standin.requests.flatMap((q) => [q.body?.input].flat()),
        ['dimension probe'],
      );
    });

    test('import fills the corpus with the same model and refuses another size', { timeout: 300_000 }, async () => {
      const { documents, sources } = fixtureRows();
      const docs = join(dir, 'Document.jsonl');
      const srcs = join(dir, 'Source.jsonl');
      writeFileSync(docs, toJsonl(documents));
      writeFileSync(srcs, toJsonl(sources));
      const bad = await run(['import', '--db', db, '--documents', docs, '--sources', srcs, '--embedder', 'openai', '--model', OTHER]);
      assert.equal(bad.code, 1);
      assert.match(
        bad.stderr,
        /the corpus holds 768-d vectors from openai:lab-embedder-v2; this model \(openai:bge-m3\) gives 1024-d vectors/,
      );
      assert.equal((await corpusState(db)).papers, 2);
      const ok = await run(['import', '--db', db, '--documents', docs, '--sources', srcs, '--embedder', 'openai', '--model', MODEL]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(JSON.parse(ok.stdout).sentences, documents.length);
      assert.deepEqual(await corpusState(db), {
        model: `openai:${MODEL}`,
        dimensions: 768,
        papers: 2 + sources.length,
        sentences: 6 + documents.length,
      });
    });

    test('query finds a stored sentence by its own 768-d vector', { timeout: 300_000 }, async () => {
      const r = await run(['query', '--db', db, '--k', '3', 'The turbidity rose after the flood.']);
      assert.equal(r.code, 0, r.stderr);
      const hits = JSON.parse(r.stdout) as Array<{ similarity: number; sentence: { text: string } }>;
      assert.equal(hits[0].sentence.text, 'The turbidity rose after the flood.');
      assert.ok(hits[0].similarity > 0.999, String(hits[0].similarity));
      const other = await run(['query', '--db', db, '--embedder', 'openai', '--model', OTHER, 'turbidity']);
      assert.equal(other.code, 1);
      assert.match(other.stderr, /corpus was built with openai:lab-embedder-v2 \(768-d\); query embedding is openai:bge-m3 \(1024-d\)/);
    });

    test("import creates a new corpus of the model's size", { timeout: 300_000 }, async () => {
      const fresh = await target.fresh('dims_import');
      const { documents, sources } = fixtureRows();
      const docs = join(dir, 'Document.jsonl');
      writeFileSync(docs, toJsonl(documents));
      writeFileSync(join(dir, 'Source.jsonl'), toJsonl(sources));
      const r = await run([
        'import',
        '--db',
        fresh,
        '--documents',
        docs,
        '--sources',
        join(dir, 'Source.jsonl'),
        '--embedder',
        'openai',
        '--model',
        OTHER,
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(await corpusState(fresh), {
        model: `openai:${OTHER}`,
        dimensions: 1024,
        papers: sources.length,
        sentences: documents.length,
      });
    });
  });
}

describe('copy carries a 768-d corpus to PostgreSQL and to Supabase', { skip: pgSkip }, () => {
  let source: string;
  before(async () => {
    source = join(dir, 'copy-source');
    const r = await cli([
      'ingest',
      '--db',
      source,
      '--embedder',
      'openai',
      '--model',
      MODEL,
      paper('e', 'alkalinity'),
      paper('f', 'silica'),
    ]);
    assert.equal(r.code, 0, r.stderr);
  });

  test('to a new PostgreSQL database, then queried there', { timeout: 300_000 }, async () => {
    const to = await (await realServer()).createDatabase('dims_copy');
    const r = await cli(['copy', '--from', source, '--to', to, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).checksum.match, true);
    assert.deepEqual(await corpusState(to), { model: `openai:${MODEL}`, dimensions: 768, papers: 2, sentences: 6 });
    const q = await cli(['query', '--db', to, '--k', '1', 'The silica rose after the flood.']);
    assert.equal(q.code, 0, q.stderr);
    assert.equal(JSON.parse(q.stdout)[0].sentence.text, 'The silica rose after the flood.');
  });

  test('to a Supabase project (its postgres:// connection string), then queried through supabase-js', { timeout: 300_000 }, async () => {
    const project = await supabaseProject('dims_copy_supabase', 768);
    const r = await cli(['copy', '--from', source, '--to', project.postgres, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const q = await cli(['query', '--db', project.target, '--k', '1', 'The alkalinity rose after the flood.'], { SUPABASE_KEY: KEY });
    assert.equal(q.code, 0, q.stderr);
    assert.equal(JSON.parse(q.stdout)[0].sentence.text, 'The alkalinity rose after the flood.');
  });

  test('into a corpus of another size: refused, nothing copied', { timeout: 300_000 }, async () => {
    const to = await (await realServer()).createDatabase('dims_copy_other');
    const made = await cli(['ingest', '--db', to, '--embedder', 'openai', '--model', OTHER, paper('g', 'iron')]);
    assert.equal(made.code, 0, made.stderr);
    const r = await cli(['copy', '--from', source, '--to', to]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /openai:bge-m3 \(1024-d\).*openai:lab-embedder-v2 \(768-d\)/);
    assert.deepEqual(await corpusState(to), { model: `openai:${OTHER}`, dimensions: 1024, papers: 1, sentences: 3 });
  });
});

describe('a Supabase project not yet migrated', { skip: pgSkip }, () => {
  test('the first ingest names the migration with the size the endpoint answered', { timeout: 300_000 }, async () => {
    const project = await supabaseProject('dims_unmigrated');
    const r = await cli(['ingest', '--db', project.target, '--embedder', 'openai', '--model', MODEL, paper('h', 'oxygen')], {
      SUPABASE_KEY: KEY,
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /run `corpus-lens schema --print --dimensions 768` as a migration/);
  });
});

describe('--dimensions N for models that take the parameter', () => {
  test('ingest asks for N, records it in the model id, and query asks for the same', { timeout: 300_000 }, async () => {
    const db = join(dir, 'dims-flag');
    standin.reset();
    const r = await cli([
      'ingest',
      '--db',
      db,
      '--embedder',
      'openai',
      '--model',
      'text-embedding-3-small',
      '--dimensions',
      '256',
      paper('i', 'chlorophyll'),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(standin.requests.length > 0 && standin.requests.every((q) => q.body?.dimensions === 256));
    assert.deepEqual(await corpusState(db), { model: 'openai:text-embedding-3-small@256', dimensions: 256, papers: 1, sentences: 3 });
    standin.reset();
    const q = await cli(['query', '--db', db, '--k', '1', 'The chlorophyll rose after the flood.']);
    assert.equal(q.code, 0, q.stderr);
    assert.equal(JSON.parse(q.stdout)[0].sentence.text, 'The chlorophyll rose after the flood.');
    assert.deepEqual(
      standin.requests.map((x) => x.body?.dimensions),
      [256],
    );
    const other = await cli([
      'ingest',
      '--db',
      db,
      '--embedder',
      'openai',
      '--model',
      'text-embedding-3-small',
      '--dimensions',
      '512',
      paper('j', 'zinc'),
    ]);
    assert.equal(other.code, 1);
    assert.match(
      other.stderr,
      /the corpus holds 256-d vectors from openai:text-embedding-3-small@256; this model \(openai:text-embedding-3-small@512\) gives 512-d vectors/,
    );
  });

  test('a bad --dimensions, or one for the offline embedder, is refused before anything is made', async () => {
    const db = join(dir, 'dims-bad');
    const zero = await cli(['ingest', '--db', db, '--embedder', 'openai', '--model', MODEL, '--dimensions', '0', paper('k', 'lead')]);
    assert.equal(zero.code, 2, zero.stderr); // a usage error
    assert.match(zero.stderr, /--dimensions must be an integer in 1\.\.16000 \(got '0'\)/);
    const offline = await cli(['ingest', '--db', db, '--dimensions', '128', paper('k', 'lead')]);
    assert.equal(offline.code, 2, offline.stderr);
    assert.match(offline.stderr, /--dimensions applies to --embedder openai/);
    // A model the server does not have (Ollama's answer before `ollama pull`).
    standin.failAlways({ kind: 'status', status: 404, message: `model "${MODEL}" not found, try pulling it first` });
    try {
      const missing = await cli(['ingest', '--db', db, '--embedder', 'openai', '--model', MODEL, paper('k', 'lead')]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /Not found \(404\) at .*check the model name.*not found, try pulling it first/);
    } finally {
      standin.failAlways(undefined);
    }
    assert.equal(existsSync(db), false, 'no empty corpus folder is left behind');
  });
});
