import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CachedEmbedder } from '../../../../src/core/embed/cache.js';
import { DiskVectorCache } from '../../../../src/core/embed/disk-cache.js';
import { PrefixedEmbedder } from '../../../../src/core/embed/prefix.js';
import type { Embedder } from '../../../../src/core/embed/types.js';

/** A provider that counts the texts it is asked for; its vectors depend on the text and its length. */
class Counter implements Embedder {
  texts: string[] = [];
  constructor(
    readonly model = 'openai:m',
    public dimensions = 4,
    private readonly answers = dimensions,
  ) {}
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.texts.push(...texts);
    return texts.map((t) => Float32Array.from({ length: this.answers }, (_, i) => t.length + i / 10));
  }
}

const dirs: string[] = [];
function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'corpus-lens-disk-cache-'));
  dirs.push(d);
  return d;
}
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the embedding cache on disk', () => {
  test('a second process (a new CachedEmbedder) embeds nothing it embedded before', async () => {
    const dir = freshDir();
    const first = new Counter();
    const a = await new CachedEmbedder(first, { disk: { dir } }).embed(['one sentence.', 'another, longer sentence.']);
    assert.equal(first.texts.length, 2);
    const second = new Counter();
    const c = new CachedEmbedder(second, { disk: { dir } });
    const b = await c.embed(['another, longer sentence.', 'one sentence.', 'a new one.']);
    assert.deepEqual(second.texts, ['a new one.']);
    assert.deepEqual([...b[0]], [...a[1]]);
    assert.deepEqual([...b[1]], [...a[0]]);
    assert.equal(c.stats.diskHits, 2);
  });

  test('another model, size or prefix misses', async () => {
    const dir = freshDir();
    await new CachedEmbedder(new Counter('openai:m', 4), { disk: { dir } }).embed(['text.']);
    const other = new Counter('openai:other', 4);
    await new CachedEmbedder(other, { disk: { dir } }).embed(['text.']);
    assert.deepEqual(other.texts, ['text.']);
    // The same model name at another requested size is another model id (openai:m@8); a learned size is checked.
    const resized = new Counter('openai:m', 8);
    await new CachedEmbedder(resized, { disk: { dir } }).embed(['text.']);
    assert.deepEqual(resized.texts, ['text.']);
    // A model of unknown size (0) takes what its model answered last.
    const unknown = new Counter('openai:m', 0, 4);
    const [v] = await new CachedEmbedder(unknown, { disk: { dir } }).embed(['text.']);
    assert.deepEqual(unknown.texts, []);
    assert.equal(v.length, 8);
    // Prefixes are added before the cache: a changed prefix is another text.
    const prefixed = new Counter('openai:m', 4);
    await new PrefixedEmbedder(new CachedEmbedder(prefixed, { disk: { dir } }), { query: 'query: ', document: 'passage: ' }).embed([
      'text.',
    ]);
    assert.deepEqual(prefixed.texts, ['passage: text.']);
  });

  test('a torn last record is cut off and the rest still read', async () => {
    const dir = freshDir();
    await new CachedEmbedder(new Counter(), { disk: { dir } }).embed(['kept.']);
    const [file] = readdirSync(dir);
    appendFileSync(join(dir, file), Buffer.alloc(30, 7)); // a killed process's half record
    const next = new Counter();
    const c = new CachedEmbedder(next, { disk: { dir } });
    await c.embed(['kept.', 'added after the tear.']);
    assert.deepEqual(next.texts, ['added after the tear.']);
    const again = new Counter();
    await new CachedEmbedder(again, { disk: { dir } }).embed(['kept.', 'added after the tear.']);
    assert.deepEqual(again.texts, []);
  });

  test('bounded: a file past the budget keeps its newest records, and older model files go first', async () => {
    const dir = freshDir();
    const record = 16 + 4 + 4 * 4;
    const cache = new DiskVectorCache({ dir, maxBytes: record * 10 });
    for (let i = 0; i < 30; i++) cache.put('openai:m', [[`text ${i}`, Float32Array.from([i, 0, 0, 1])]]);
    const [file] = readdirSync(dir);
    assert.ok(statSync(join(dir, file)).size <= record * 10);
    assert.deepEqual([...cache.get('openai:m', 'text 29', 4)!], [29, 0, 0, 1]);
    assert.equal(cache.get('openai:m', 'text 0', 4), undefined);
    // A second model's file over the folder's budget removes the least recently used other file.
    const big = new DiskVectorCache({ dir, maxBytes: record * 10 });
    big.put('openai:first', [['a', Float32Array.from([1, 2, 3, 4])]]);
    const fresh = new DiskVectorCache({ dir, maxBytes: record * 2 });
    fresh.put('openai:second', [['b', Float32Array.from([1, 2, 3, 4])]]);
    assert.ok(readdirSync(dir).length < 3, readdirSync(dir).join(', '));
  });
});
