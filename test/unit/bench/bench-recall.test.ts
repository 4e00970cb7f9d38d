// The recall the benchmarks report (and that the size rule and the embedded limit are chosen by).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { missesAtK, recallAtK } from '../../../bench/stats.ts';

const exact = { ids: [1, 2, 3, 4], sims: [0.9, 0.8, 0.7, 0.6] };

test('strict recall counts the exact ids returned; k-nn recall also counts a hit tied with the k-th', () => {
  // 5 is a duplicate of 4 (same similarity): strict misses it, k-nn counts it.
  const tied = { ids: [1, 2, 3, 5], sims: [0.9, 0.8, 0.7, 0.6] };
  assert.deepEqual(recallAtK([tied], [exact], 4), { strict: 0.75, knn: 1 });
  // Within ann-benchmarks' 1e-3 of the k-th it counts; farther it does not.
  const near = { ids: [1, 2, 3, 6], sims: [0.9, 0.8, 0.7, 0.5995] };
  const far = { ids: [1, 2, 3, 7], sims: [0.9, 0.8, 0.7, 0.55] };
  assert.equal(recallAtK([near], [exact], 4).knn, 1);
  assert.equal(recallAtK([far], [exact], 4).knn, 0.75);
  assert.equal(recallAtK([far], [exact], 4).strict, 0.75);
});

test('recall is the mean over queries, each out of its exact answer (a filter may leave fewer than k)', () => {
  const short = { ids: [9, 8], sims: [0.5, 0.4] };
  const r = recallAtK([exact, { ids: [9], sims: [0.5] }], [exact, short], 4);
  assert.deepEqual(r, { strict: 0.75, knn: 0.75 });
  // A missing answer counts as nothing found; a query whose exact answer is empty is left out.
  assert.deepEqual(recallAtK([], [exact, { ids: [], sims: [] }], 4), { strict: 0, knn: 0 });
});

test('the misses are counted in ids and by query, worst first, so a rounded mean cannot hide them', () => {
  const w = (ids: number[], top: number) => ({ ids, sims: ids.map((_, i) => top - i / 100) });
  const want = [w([1, 2, 3, 4], 0.5), w([5, 6, 7, 8], 0.2), w([9, 10, 11, 12], 0.6)];
  const got = [w([1, 2, 3, 4], 0.5), w([5, 99, 98, 97], 0.2), w([9, 10, 11, 96], 0.6)];
  assert.deepEqual(missesAtK(got, want, 4), {
    missed: 4,
    of: 12,
    queries: [
      { index: 1, share: 0.25, nearest: 0.2 },
      { index: 2, share: 0.75, nearest: 0.6 },
    ],
  });
  // One id missed in 2,500 is a recall that prints 1.000 to three places: the count says it was not none.
  const many = Array.from({ length: 100 }, (_, q) =>
    w(
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24].map((j) => q * 25 + j),
      0.5,
    ),
  );
  const one = many.map((r, q) => (q === 7 ? { ids: [...r.ids.slice(0, 24), -1], sims: r.sims } : r));
  assert.equal(recallAtK(one, many, 25).strict.toFixed(3), '1.000');
  assert.deepEqual(missesAtK(one, many, 25), { missed: 1, of: 2500, queries: [{ index: 7, share: 0.96, nearest: 0.5 }] });
});
