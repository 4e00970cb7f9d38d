// The one place an embedder meets a corpus (src/core/ingest/corpus-embedder.ts), through the real createEmbedder
// (OpenAI-compatible provider, cache, prefixes) against the /v1/embeddings stand-in that answers only each model's
// own size, and an in-memory PGlite corpus.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createEmbedder } from '../../../../src/core/embed/index.js';
import { CachedEmbedder } from '../../../../src/core/embed/cache.js';
import type { Embedder } from '../../../../src/core/embed/types.js';
import { EmbedderMismatchError, embedderDimensions, initCorpus } from '../../../../src/core/ingest/corpus-embedder.js';
import { CorpusMismatchError } from '../../../../src/core/store/types.js';
import { pgliteStore } from '../../../../src/core/store/backends/pglite.js';
import { freshPGlite } from '../../../support/db-pglite.js';
import { startStandin, type Standin } from '../../../support/openai-standin.js';

describe('an embedder meets a corpus', () => {
  let s: Standin;
  const make = (model: string, dimensions?: number) =>
    createEmbedder({ provider: 'openai', baseURL: s.baseURL, apiKey: 'k', model, dimensions, maxRetries: 0 });
  const inputs = () => s.requests.flatMap((r) => [r.body?.input ?? []].flat());

  before(async () => {
    s = await startStandin({ modelDims: { 'nomic-embed-text': 768, 'bge-m3': 1024 }, rejectDimensions: ['nomic-embed-text', 'bge-m3'] });
  });
  after(async () => {
    await s.close();
  });
  beforeEach(() => s.reset());

  test('a model of unknown size is probed once, through the cache and prefixes, and the size kept', async () => {
    const e = make('nomic-embed-text');
    assert.equal(e.dimensions, 0);
    assert.equal(await embedderDimensions(e, null), 768);
    assert.equal(await embedderDimensions(e, null), 768);
    assert.equal(e.dimensions, 768);
    assert.deepEqual(inputs(), ['dimension probe']);
    assert.equal(s.requests[0].body?.dimensions, undefined, 'no dimensions parameter sent unasked');
  });

  test('a sample text is the probe: embedded as a document once, then served from the cache', async () => {
    const e = make('nomic-embed-text');
    assert.equal(await embedderDimensions(e, null, { sample: 'Mice ate fat.' }), 768);
    await e.embed(['Mice ate fat.', 'Rats ran.']);
    assert.deepEqual(inputs(), ['search_document: Mice ate fat.', 'search_document: Rats ran.']);
  });

  test('another size or another model is refused, naming both sides', async () => {
    const corpus = { model: 'openai:nomic-embed-text', dimensions: 768 };
    await assert.rejects(embedderDimensions(make('bge-m3'), corpus), (err: Error) => {
      assert.ok(err instanceof EmbedderMismatchError && err instanceof CorpusMismatchError);
      assert.equal(err.name, 'CorpusMismatchError');
      assert.match(
        err.message,
        /^the corpus holds 768-d vectors from openai:nomic-embed-text; this model \(openai:bge-m3\) gives 1024-d vectors\. /,
      );
      return true;
    });
    await assert.rejects(embedderDimensions(make('other-768', 768), corpus), /this model \(openai:other-768@768\) is another model/);
    // A CorpusStudio corpus records no model: only the size counts.
    assert.equal(await embedderDimensions(make('nomic-embed-text'), { model: '*', dimensions: 768 }), 768);
  });

  test('an endpoint that answers no vector gives a clear error, not a corpus of 0 dimensions', async () => {
    const empty: Embedder = { model: 'x', dimensions: 0, embed: async () => [], resolveDimensions: async () => 0 };
    await assert.rejects(embedderDimensions(empty, null), /the embedding model x answered no vectors to learn their size from/);
  });

  test('initCorpus records the learned size in a new corpus and checks it on the next run; a refusal writes nothing', async () => {
    const store = pgliteStore(await freshPGlite(), { ownsDatabase: true });
    try {
      const meta = await initCorpus(store, make('nomic-embed-text'));
      assert.deepEqual([meta.model, meta.dimensions], ['openai:nomic-embed-text', 768]);
      assert.equal((await initCorpus(store, make('nomic-embed-text'))).dimensions, 768);
      await assert.rejects(initCorpus(store, make('bge-m3')), EmbedderMismatchError);
      const after = await store.meta();
      assert.deepEqual([after?.model, after?.dimensions], ['openai:nomic-embed-text', 768]);
    } finally {
      await store.close();
    }
  });
});

test('the cache key holds the vector length: a size learned later never serves a vector of the old length', async () => {
  let dims = 2;
  const inner: Embedder = {
    model: 'm',
    get dimensions() {
      return dims;
    },
    embed: async (texts) => texts.map(() => new Float32Array(dims).fill(1)),
  };
  const c = new CachedEmbedder(inner);
  assert.equal((await c.embed(['a']))[0].length, 2);
  dims = 3;
  assert.equal((await c.embed(['a']))[0].length, 3);
});
