// The native vector index's search breadth by corpus size (src/core/store/sql/native-index.ts efSearch): the widths
// the limit bench measured to keep strict recall@25 ≥ 0.95 (docs/benchmarks.md, "How large the embedded corpus may grow").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { efSearch } from '../../../../../src/core/store/sql/native-index.ts';

test('the search breadth: 128 to 100k, size/800 to 250k, then wider, reaching the measured 1,200 by 500k, at most 2,000', () => {
  assert.equal(efSearch(2_000), 128);
  assert.equal(efSearch(100_000), 128, 'the 100k peers target (p50 ≤ 5 ms) was met at 128');
  assert.equal(efSearch(250_000), 313, '250k passed at 313 (0.976)');
  assert.equal(efSearch(500_000), 1200, '500k: 1,200 the narrowest meeting 0.95 (0.951; 625 gave 0.940)');
  assert.equal(efSearch(5_000_000), 2000);
  for (let n = 1_000; n < 2_000_000; n += 7_919) assert.ok(efSearch(n + 7_919) >= efSearch(n), 'never narrower for a larger corpus');
});
