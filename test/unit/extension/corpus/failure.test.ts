import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EmbedderMismatchError } from '../../../../src/core/ingest/corpus-embedder.js';
import { StoreError } from '../../../../src/core/store/types.js';
import { connectFailure } from '../../../../src/extension/corpus/failure.js';

test('a model of another vector size is said to be one, with both sizes and the fix, not as a failed connection', () => {
  const err = new EmbedderMismatchError(
    { model: 'openai:nomic-embed-text', dimensions: 768 },
    { model: 'openai:bge-m3', dimensions: 1024 },
  );
  const line = connectFailure('corpus', err);
  assert.doesNotMatch(line, /could not connect/);
  assert.match(
    line,
    /^the embedding model does not fit corpus: the corpus holds 768-d vectors .* gives 1024-d vectors\. Use the corpus's model/,
  );
  assert.equal(connectFailure('corpus', new StoreError('connection refused')), 'could not connect to corpus: connection refused');
});
