// npm test runs this file alone: a time budget per phase, and embed calls that must end within their deadline plus 1.5 s.
// The fuzz/fault script (scripts/fuzz.ts) in its short mode: every phase runs at least once within a ~25 s budget,
// with a fixed seed so CI is repeatable (FUZZ_SEED=N picks another; `npm run fuzz` explores with fresh seeds). A
// failure prints its seed and input, to replay with --seed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runFuzz } from '../../scripts/fuzz.ts';

test('fuzz and fault injection, short mode', { timeout: 120_000 }, async (t) => {
  const report = await runFuzz({ seconds: 25, seed: Number(process.env.FUZZ_SEED ?? 20261123), log: (l) => t.diagnostic(l) });
  for (const phase of ['bibtex', 'redact', 'decode', 'html', 'query', 'endpoint', 'cli']) {
    assert.ok((report.cases[phase] ?? 0) >= 1, `phase ${phase} ran: ${JSON.stringify(report.cases)}`);
  }
});
