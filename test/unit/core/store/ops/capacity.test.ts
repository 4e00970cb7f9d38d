// The embedded corpus's size warning: a pure decision on counts (src/core/store/ops/capacity.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EMBEDDED_SAFE_SHARE,
  EMBEDDED_SENTENCE_LIMIT,
  embeddedCapacityWarning,
  embeddedLimit,
  SENTENCES_PER_SOURCE,
} from '../../../../../src/core/store/ops/capacity.ts';

test('no warning while the load stays within the safe share of the limit', () => {
  assert.equal(embeddedCapacityWarning({ sentences: 0, papers: 0 }, 10, 100_000), null);
  // 70,000 + 20 papers × 500 = 80,000 = exactly the safe share of 100,000: still fine.
  assert.equal(embeddedCapacityWarning({ sentences: 70_000, papers: 140 }, 20, 100_000), null);
});

test('a load projected past the safe share warns, estimating each source at the corpus mean', () => {
  const w = embeddedCapacityWarning({ sentences: 70_000, papers: 140 }, 21, 100_000);
  assert.ok(w);
  assert.equal(w.projected, 80_500);
  assert.equal(w.safe, 80_000);
  assert.match(w.message, /about 80,500 sentences \(now 70,000\)/);
  assert.match(w.message, /Move Corpus to PostgreSQL/);
});

test('an empty corpus estimates each source at the default sentences per paper', () => {
  const limit = 10_000;
  const sources = Math.floor((EMBEDDED_SAFE_SHARE * limit) / SENTENCES_PER_SOURCE);
  assert.equal(embeddedCapacityWarning({ sentences: 0, papers: 0 }, sources, limit), null);
  assert.equal(embeddedCapacityWarning({ sentences: 0, papers: 0 }, sources + 1, limit)?.projected, (sources + 1) * SENTENCES_PER_SOURCE);
});

test('a corpus already past the safe share warns even for a load of nothing new', () => {
  assert.ok(embeddedCapacityWarning({ sentences: 90_000, papers: 300 }, 0, 100_000));
});

test('the limit is the measured constant unless CORPUS_LENS_EMBEDDED_LIMIT names a positive number', () => {
  assert.equal(embeddedLimit({}), EMBEDDED_SENTENCE_LIMIT);
  assert.equal(embeddedLimit({ CORPUS_LENS_EMBEDDED_LIMIT: '5000' }), 5000);
  assert.equal(embeddedLimit({ CORPUS_LENS_EMBEDDED_LIMIT: 'lots' }), EMBEDDED_SENTENCE_LIMIT);
  assert.equal(embeddedLimit({ CORPUS_LENS_EMBEDDED_LIMIT: '-1' }), EMBEDDED_SENTENCE_LIMIT);
});
