// The embedded corpus's size warning: a pure decision on counts (src/core/store/ops/capacity.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EMBEDDED_SAFE_SHARE,
  EMBEDDED_SENTENCE_LIMIT,
  embeddedCapacityWarning,
  embeddedLimit,
  NATIVE_SENTENCE_LIMIT,
  estimateLoad,
  SENTENCES_PER_PDF_PAGE,
  SENTENCES_PER_SOURCE,
  sourceSentenceEstimate,
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

test("the limit is the one measured for what serves the vectors: the native index's, else pgvector's in PGlite", () => {
  assert.equal(embeddedLimit({}, 'native'), NATIVE_SENTENCE_LIMIT);
  assert.equal(embeddedLimit({}, 'pgvector'), EMBEDDED_SENTENCE_LIMIT);
  assert.equal(embeddedLimit({ CORPUS_LENS_EMBEDDED_LIMIT: '5000' }, 'native'), 5000, 'the override holds for both');
  // Just past the pgvector limit's safe share: a warning for a corpus served by pgvector, none where the native index serves.
  const counts = { sentences: EMBEDDED_SAFE_SHARE * EMBEDDED_SENTENCE_LIMIT, papers: 1000 };
  assert.ok(embeddedCapacityWarning(counts, 1, embeddedLimit({}, 'pgvector')));
  assert.equal(embeddedCapacityWarning(counts, 1, embeddedLimit({}, 'native')), null);
});

test('a source is estimated by what it will index: its full text, else its PDF pages, else its abstract, else nothing', () => {
  assert.equal(sourceSentenceEstimate({ fullTextSentences: 310, pdfPages: 12, abstractSentences: 6 }), 310);
  assert.equal(sourceSentenceEstimate({ fullTextSentences: 0, pdfPages: 12, abstractSentences: 6 }), 12 * SENTENCES_PER_PDF_PAGE);
  assert.equal(sourceSentenceEstimate({ pdfPages: 0, abstractSentences: 6 }), 6);
  assert.equal(sourceSentenceEstimate({}), 0);
});

test('1,505 abstract-only items into an empty corpus project their abstracts (issue 32.9: 376,250 was offered a move)', async () => {
  const items = Array.from({ length: 1_505 }, (_, i) => ({
    estimate: async () => sourceSentenceEstimate({ abstractSentences: 1 + (i % 2) }),
  }));
  const load = await estimateLoad(items);
  // 753 × 1 + 752 × 2 = 2,257 (the corpus the issue saw held 3,006).
  assert.deepEqual(load, { sentences: 2_257, unestimated: 0 });
  assert.equal(embeddedCapacityWarning({ sentences: 0, papers: 0 }, load), null);
  assert.equal(embeddedCapacityWarning({ sentences: 0, papers: 0 }, load, 1_000)?.projected, 2_257);
  // Files without an estimate still count at the corpus mean, beside the estimated ones.
  const mixed = await estimateLoad([...items.slice(0, 3), {}, {}]);
  assert.deepEqual(mixed, { sentences: 4, unestimated: 2 });
  assert.equal(embeddedCapacityWarning({ sentences: 1_000, papers: 10 }, mixed, 1_000)?.projected, 1_204);
});
