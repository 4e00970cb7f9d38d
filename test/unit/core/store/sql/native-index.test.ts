// The native vector index's graph and search breadth by corpus size (src/core/store/sql/native-index.ts graphFor,
// keepsGraph, efSearch): the settings and widths the limit bench measured to keep strict recall@25 ≥ 0.95
// (docs/benchmarks.md, "How large the embedded corpus may grow").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DENSE_FROM, DENSE_GRAPH, efSearch, graphFor, keepsGraph, SPARSE_GRAPH } from '../../../../../src/core/store/sql/native-index.ts';

test('m 16 / 64: 128 to 100k, size/800 to 250k, then wider, reaching the measured 1,200 by 500k, at most 2,000', () => {
  const m = SPARSE_GRAPH.connectivity;
  assert.equal(efSearch(2_000, m), 128);
  assert.equal(efSearch(100_000, m), 128, 'the 100k peers target (p50 ≤ 5 ms) was met at 128');
  assert.equal(efSearch(250_000, m), 313, '250k passed at 313 (0.976)');
  assert.equal(efSearch(500_000, m), 1200, '500k: 1,200 the narrowest meeting 0.95 (0.951; 625 gave 0.940)');
  assert.equal(efSearch(5_000_000, m), 2000);
  for (let n = 1_000; n < 2_000_000; n += 7_919) assert.ok(efSearch(n + 7_919, m) >= efSearch(n, m), 'never narrower for a larger corpus');
});

test('the denser graph searches narrower: 128 to 250k, 228 at 500k, 428 at 1M, at most 2,000', () => {
  const m = DENSE_GRAPH.connectivity;
  assert.equal(efSearch(200_000, m), 128, '200k: 0.990 at 128 with m 24 / 128 (m 16 / 64 needs 250)');
  assert.equal(efSearch(250_000, m), 128);
  assert.equal(efSearch(500_000, m), 228, '500k: 0.986 at 200 (m 16 / 64 needed 1,200)');
  assert.equal(efSearch(1_000_000, m), 428, '1M: 0.993 at 300, 0.996 at 450 (m 16 / 64: 0.936 at 3,000)');
  assert.equal(efSearch(50_000_000, m), 2000);
  for (let n = 1_000; n < 2_000_000; n += 7_919) {
    assert.ok(efSearch(n + 7_919, m) >= efSearch(n, m), 'never narrower for a larger corpus');
    assert.ok(efSearch(n, m) <= efSearch(n, SPARSE_GRAPH.connectivity), 'never wider than the sparser graph');
  }
});

test('a new index is dense from DENSE_FROM (the 100k targets keep m 16 / 64); a sparser one past it is rebuilt, a denser one kept', () => {
  assert.deepEqual(graphFor(100_000), SPARSE_GRAPH, 'the 100k targets were measured with m 16 / 64');
  assert.deepEqual(graphFor(DENSE_FROM - 1), SPARSE_GRAPH);
  assert.deepEqual(graphFor(DENSE_FROM), DENSE_GRAPH);
  assert.ok(DENSE_FROM > 100_000 && DENSE_FROM < 200_000, 'between the size m 16 passed with room and the one where it was at the bar');
  assert.equal(keepsGraph(16, DENSE_FROM - 1), true, 'a sparse index under the line is extended as built');
  assert.equal(keepsGraph(16, DENSE_FROM), false, 'grown past it: rebuilt dense');
  assert.equal(keepsGraph(24, 10_000), true, 'a denser graph than the size asks for is kept');
  assert.equal(
    keepsGraph(16, 1_000_000, () => SPARSE_GRAPH),
    true,
    "a store's fixed settings hold at any size",
  );
});
