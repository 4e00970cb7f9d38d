// The recall the benchmarks report (and that the size rule and the embedded limit are chosen by).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recallAtK } from '../../../bench/stats.ts';

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
