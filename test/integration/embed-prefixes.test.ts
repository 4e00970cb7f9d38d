/**
 * Query/document prefixes (src/core/embed/prefix.ts) reach an OpenAI-compatible server: through createEmbedder and
 * the real `openai` client against the /v1/embeddings stand-in, at ingest (every stored sentence) and at query time.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { embedderFromFlags } from '../../src/cli/corpus.js';
import { createEmbedder, resolvePrefixes, PREFIX_PRESETS } from '../../src/core/embed/index.js';
import { search } from '../../src/core/retrieve/index.js';
import { pgliteStore } from '../../src/core/store/backends/pglite.js';
import { documentRow, importPapers, papersFromRows, sourceRow } from '../../src/core/ingest/seed-rows.js';
import { freshPGlite } from '../support/db-pglite.js';
import { fixtureRows } from '../support/db-fixture.js';
import { startStandin, standinVector, type Standin } from '../support/openai-standin.js';

const inputs = (s: Standin): string[] => s.requests.flatMap((r) => [r.body?.input ?? []].flat());

describe('embedding prefixes against the /v1/embeddings stand-in', () => {
  let s: Standin;
  const make = (model: string, prefixes?: Parameters<typeof createEmbedder>[0]['prefixes']) =>
    createEmbedder({ provider: 'openai', baseURL: s.baseURL, apiKey: 'k', model, prefixes, maxRetries: 0 });

  before(async () => {
    s = await startStandin({ defaultDim: 16 });
  });
  after(async () => {
    await s.close();
  });
  beforeEach(() => s.reset());

  test('the preset of a known family: nomic-embed-text and E5 prefixes, per role', async () => {
    const nomic = make('nomic-embed-text:latest');
    await nomic.embed(['Cells divide.'], { role: 'query' });
    await nomic.embed(['Cells divide.', 'They grow.']);
    const e5 = make('intfloat/multilingual-e5-large');
    await e5.embed(['Cells divide.'], { role: 'query' });
    await e5.embed(['Cells divide.'], { role: 'document' });
    assert.deepEqual(inputs(s), [
      'search_query: Cells divide.',
      'search_document: Cells divide.',
      'search_document: They grow.',
      'query: Cells divide.',
      'passage: Cells divide.',
    ]);
    // The vector is the server's for the prefixed text, and query and document vectors of one text differ.
    const [q] = await nomic.embed(['Cells divide.'], { role: 'query' });
    const raw = standinVector('search_query: Cells divide.', 16);
    const norm = Math.hypot(...raw);
    raw.forEach((x, i) => assert.ok(Math.abs(q[i] - x / norm) < 1e-5));
  });

  test('unknown models, `none` and custom prefixes', async () => {
    await make('my-embed').embed(['A.'], { role: 'query' });
    await make('nomic-embed-text', 'none').embed(['B.'], { role: 'query' });
    const custom = make('my-model', { query: 'Q> ', document: 'D> ' });
    await custom.embed(['C.'], { role: 'query' });
    await custom.embed(['C.']);
    assert.deepEqual(inputs(s), ['A.', 'B.', 'Q> C.', 'D> C.']);
    assert.deepEqual(resolvePrefixes('auto', 'BAAI/bge-large-en-v1.5').document, '');
    assert.match(resolvePrefixes('auto', 'mxbai-embed-large').query, /^Represent this sentence/);
    assert.ok(PREFIX_PRESETS.every((p) => p.prefixes.query.length > 0));
  });

  test('the command line: --prefixes auto (default), none, or QUERY|DOCUMENT', async () => {
    const env = { OPENAI_BASE_URL: s.baseURL, OPENAI_API_KEY: 'k' };
    await (await embedderFromFlags({ embedder: 'openai', model: 'nomic-embed-text' }, env)).embed(['A.'], { role: 'query' });
    await (
      await embedderFromFlags({ embedder: 'openai', model: 'nomic-embed-text', prefixes: 'none' }, env)
    ).embed(['B.'], { role: 'query' });
    const custom = await embedderFromFlags({ embedder: 'openai', model: 'my-embed', prefixes: 'query: |passage: ' }, env);
    await custom.embed(['C.'], { role: 'query' });
    await custom.embed(['C.']);
    assert.deepEqual(inputs(s), ['search_query: A.', 'B.', 'query: C.', 'passage: C.']);
    await assert.rejects(
      embedderFromFlags({ embedder: 'openai', model: 'm', prefixes: 'query:' }, env),
      /--prefixes must be auto, none or QUERY\|DOCUMENT/,
    );
  });

  test('ingest sends document prefixes and a search sends the query prefix', async () => {
    const embedder = make('nomic-embed-text');
    const store = pgliteStore(await freshPGlite(), { ownsDatabase: true });
    try {
      const { documents, sources } = fixtureRows();
      const docs = documents.map((d, i) => ({ line: i + 1, row: documentRow(d) }));
      const srcs = sources.map((d, i) => ({ line: i + 1, row: sourceRow(d) }));
      await importPapers(store, embedder, papersFromRows(docs, srcs), { documentsFile: 'Document.jsonl' });
      const stored = inputs(s);
      assert.equal(stored.length, new Set(documents.map((d) => d.text)).size, 'every distinct sentence once');
      assert.ok(
        stored.every((t) => t.startsWith('search_document: ')),
        stored.find((t) => !t.startsWith('search_document: ')),
      );
      s.reset();
      const hits = await search(store, embedder, 'How do authors phrase related work?', 'vector', { k: 3 });
      assert.equal(hits.length, 3);
      assert.deepEqual(inputs(s), ['search_query: How do authors phrase related work?']);
    } finally {
      await store.close();
    }
  });
});
