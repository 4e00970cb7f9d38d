// `corpus-lens fetch` when the web cannot be reached, against the system resolver failing: the sources' URLs name
// hosts under .invalid, which no resolver answers (RFC 6761), so every request fails as it does offline (ENOTFOUND
// or EAI_AGAIN). Each entry then says "cannot reach arXiv (no network?)" (per host: arXiv, OpenAlex…), never
// "not found", and the run exits 1 because nothing was fetched. The arXiv stand-in (test/support/scholarly-standin.ts)
// gives the real 404: there the entry stays "not found", with no word of the network.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.ts';
import { startStandins, type Standins } from '../support/scholarly-standin.ts';

const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-fetch-offline-'));
// One corpus for every run: creating one is the slow part, and no run here writes a paper.
const db = join(dir, 'db');
let s: Standins;
before(async () => {
  s = await startStandins();
});
after(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const offline = [
  ['--arxiv-url', 'https://arxiv.invalid'],
  ['--arxiv-api-url', 'https://export.arxiv.invalid/api/query'],
  ['--s2-url', 'https://api.semanticscholar.invalid/graph/v1'],
  ['--openalex-url', 'https://api.openalex.invalid'],
].flat();
const env = { CORPUS_LENS_ARXIV_INTERVAL_MS: '0', CORPUS_LENS_S2_INTERVAL_MS: '0', CORPUS_LENS_OPENALEX_INTERVAL_MS: '0' };

test('fetch --ids offline: each entry "cannot reach arXiv / OpenAlex (no network?)", never "not found"; exit 1', async () => {
  const r = await runCli(['fetch', '--db', db, '--ids', '2401.00001', '10.5555/nowhere', '--yes', ...offline], {
    env: { ...env, CORPUS_LENS_CACHE: join(dir, 'cache') },
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /1\/2 papers · 1 failed · arXiv:2401\.00001: failed: cannot reach arXiv \(no network\?\)\n/);
  assert.match(r.stderr, /2\/2 papers · 2 failed · doi:10\.5555\/nowhere: failed: cannot reach OpenAlex \(no network\?\)\n/);
  assert.match(
    r.stderr,
    /corpus-lens fetch: nothing was fetched: cannot reach arXiv \(no network\?\); cannot reach OpenAlex \(no network\?\)/,
  );
  assert.doesNotMatch(r.stderr + r.stdout, /: not.found|not-found|ENOTFOUND|EAI_AGAIN|no arXiv copy/);
  assert.doesNotMatch(r.stderr, / · : /, 'every entry is named');
  assert.match(r.stdout, /0 papers, 0 sentences added; .* 0 not found, 0 already in the corpus; 2 failed/);
  assert.match(r.stdout, /arXiv:2401\.00001 +failed: cannot reach arXiv \(no network\?\)/);

  // --json keeps its shape: the entry is failed, its notes say why, per attempt.
  const j = await runCli(['fetch', '--db', db, '--ids', '2401.00001', '--yes', '--json', ...offline], {
    env: { ...env, CORPUS_LENS_CACHE: join(dir, 'cache') },
  });
  assert.equal(j.code, 1, j.stderr);
  const summary = JSON.parse(j.stdout) as { papers: number; entries: { outcome: string; failed: boolean; notes: string[] }[] };
  assert.equal(summary.papers, 0);
  assert.equal(summary.entries[0].failed, true);
  assert.deepEqual(summary.entries[0].notes, [
    'arXiv metadata: cannot reach arXiv (no network?)',
    'arXiv e-print: cannot reach arXiv (no network?)',
    'arXiv HTML: cannot reach arXiv (no network?)',
  ]);
});

test('fetch --search offline: one line, "cannot reach arXiv (no network?)", exit 1', async () => {
  const r = await runCli(['fetch', '--db', db, '--arxiv', 'graph sparsification', '--yes', ...offline], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /cannot reach arXiv \(no network\?\)/);
  assert.doesNotMatch(r.stderr, /ENOTFOUND|EAI_AGAIN|arxiv\.invalid/);
});

test('fetch --ids of a paper arXiv answers 404 for: "not found" (no network words), exit 1; a usage error stays 2', async () => {
  const urls = ['--arxiv-url', s.arxivUrl, '--arxiv-api-url', s.arxivApiUrl, '--s2-url', s.s2Url, '--openalex-url', s.openalexUrl];
  const r = await runCli(['fetch', '--db', db, '--ids', '2401.99999', '--yes', ...urls], {
    env: { ...env, CORPUS_LENS_CACHE: join(dir, 'cache') },
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /1\/1 papers · 0 failed · arXiv:2401\.99999: not found\n/);
  assert.match(r.stdout, /arXiv:2401\.99999 +not found +arXiv e-print: .*HTTP 404/);
  assert.match(r.stderr, /nothing was fetched: the paper was not found/);
  assert.doesNotMatch(r.stderr + r.stdout, /cannot reach|no network/);
  const usage = await runCli(['fetch', '--db', db, '--ids', '2401.99999', '--yes', '--arxiv', 'x']);
  assert.equal(usage.code, 2);
});
