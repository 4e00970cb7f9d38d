import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CachedEmbedder } from '../../../../src/core/embed/cache.js';
import type { Embedder } from '../../../../src/core/embed/types.js';

/** A fake provider that records calls and can be slowed down or made to honour aborts. */
class Recorder implements Embedder {
  readonly calls: string[][] = [];
  constructor(
    readonly model = 'fake-1',
    readonly dimensions = 3,
    private readonly delayMs = 0,
  ) {}
  async embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    if (this.delayMs) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, this.delayMs);
        options?.signal?.addEventListener('abort', () => {
          clearTimeout(t);
          reject(new DOMException('aborted', 'AbortError'));
        });
      });
    }
    return texts.map((t) => Float32Array.from([t.length, t.charCodeAt(0) || 0, 1]));
  }
}

describe('CachedEmbedder', () => {
  test('passes model and dimensions through', () => {
    const c = new CachedEmbedder(new Recorder('m-x', 7));
    assert.equal(c.model, 'm-x');
    assert.equal(c.dimensions, 7);
  });

  test('identical texts never re-embed, across calls and within a batch', async () => {
    const r = new Recorder();
    const c = new CachedEmbedder(r);
    const a = await c.embed(['alpha', 'beta', 'alpha', 'beta', 'gamma']);
    assert.deepEqual(r.calls, [['alpha', 'beta', 'gamma']]);
    assert.deepEqual([...a[2]], [...a[0]]);
    assert.deepEqual([...a[4]], [5, 'g'.charCodeAt(0), 1]);
    const b = await c.embed(['gamma', 'delta', 'alpha']);
    assert.deepEqual(r.calls, [['alpha', 'beta', 'gamma'], ['delta']]);
    assert.deepEqual([...b[0]], [...a[4]]);
    assert.deepEqual([...b[2]], [...a[0]]);
    await c.embed(['alpha']);
    assert.equal(r.calls.length, 2, 'a full hit makes no provider call');
    assert.equal(c.stats.providerTexts, 4);
  });

  test('concurrent identical requests share one provider call', async () => {
    const r = new Recorder('m', 3, 30);
    const c = new CachedEmbedder(r);
    const [x, y, z] = await Promise.all([c.embed(['same', 'one']), c.embed(['same']), c.embed(['one', 'same', 'two'])]);
    assert.deepEqual(r.calls, [['same', 'one'], ['two']]);
    assert.deepEqual([...y[0]], [...x[0]]);
    assert.deepEqual([...z[1]], [...x[0]]);
    assert.equal(c.stats.shared, 3);
  });

  test('returned vectors are copies', async () => {
    const c = new CachedEmbedder(new Recorder());
    const [v] = await c.embed(['abc']);
    v[0] = 999;
    const [w] = await c.embed(['abc']);
    assert.equal(w[0], 3);
  });

  test('keyed by model: two providers with different models do not share', async () => {
    const r1 = new Recorder('m1');
    const r2 = new Recorder('m2');
    const c1 = new CachedEmbedder(r1);
    const c2 = new CachedEmbedder(r2);
    await c1.embed(['t']);
    await c2.embed(['t']);
    assert.equal(r1.calls.length + r2.calls.length, 2);
  });

  test('empty input', async () => {
    const r = new Recorder();
    assert.deepEqual(await new CachedEmbedder(r).embed([]), []);
    assert.equal(r.calls.length, 0);
  });

  test('a failed call is not cached; the next call retries', async () => {
    let fail = true;
    const inner: Embedder = {
      model: 'f',
      dimensions: 1,
      embed: async (texts) => {
        if (fail) throw new Error('boom');
        return texts.map(() => Float32Array.from([1]));
      },
    };
    const c = new CachedEmbedder(inner);
    await assert.rejects(c.embed(['a']), /boom/);
    fail = false;
    assert.equal((await c.embed(['a'])).length, 1);
  });

  test('an aborted caller rejects at once; a caller that joined its request still gets its vector', async () => {
    const r = new Recorder('m', 3, 60);
    const c = new CachedEmbedder(r);
    const ac = new AbortController();
    const first = c.embed(['shared'], { signal: ac.signal });
    const second = c.embed(['shared']);
    setTimeout(() => ac.abort(), 10);
    await assert.rejects(first, { name: 'AbortError' });
    const [v] = await second;
    assert.equal(v[0], 6);
    assert.equal(r.calls.length, 2, 'the joiner re-requested after the owner aborted');
  });

  test('an already-aborted signal rejects without calling the provider', async () => {
    const r = new Recorder();
    await assert.rejects(new CachedEmbedder(r).embed(['x'], { signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(r.calls.length, 0);
  });

  test('evicts under its byte budget', async () => {
    const c = new CachedEmbedder(new Recorder(), { maxBytes: 1000 });
    await c.embed(Array.from({ length: 100 }, (_, i) => `text ${i}`));
    assert.ok(c.size < 100 && c.size > 0, `size ${c.size}`);
  });
});
