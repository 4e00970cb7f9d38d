// The AUC the citation-check bench reports (bench/stats.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auc } from '../../../bench/stats.ts';

test('AUC: 1 when every positive outscores every negative, 0 the reverse, ties count half', () => {
  assert.equal(auc([3, 4], [1, 2]), 1);
  assert.equal(auc([1, 2], [3, 4]), 0);
  assert.equal(auc([1, 1], [1, 1]), 0.5);
  assert.equal(auc([2, 3], [1, 2]), 0.875); // 3 of 4 pairs won, one tie
  assert.equal(auc([-Infinity, 5], [0]), 0.5);
});

test('a NaN score is refused with a clear message, not an endless loop', () => {
  assert.throws(() => auc([0.5, NaN], [0.1]), /auc: 1 of 3 scores are NaN/);
  assert.throws(() => auc([0.5], [NaN, NaN]), /auc: 2 of 3 scores are NaN/);
});
