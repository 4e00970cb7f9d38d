// `corpus-lens ingest` into an embedded corpus warns on stderr before a load that would pass the safe share of the
// embedded corpus's size limit (CORPUS_LENS_EMBEDDED_LIMIT lowers the limit so that a small folder passes it); the
// JSON on stdout is the same either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.ts';

test('ingest warns on stderr when the load would pass the embedded limit, and not otherwise', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-capacity-'));
  try {
    const folder = join(dir, 'papers');
    mkdirSync(folder);
    for (let p = 0; p < 3; p++) {
      const body = Array.from({ length: 6 }, (_, i) => `Paper ${p} reports finding ${i} about capacity planning.`).join(' ');
      writeFileSync(join(folder, `p${p}.md`), `---\ntitle: "Paper ${p}"\n---\n\n## Results\n\n${body}\n`);
    }
    const db = join(dir, 'corpus');
    // 3 sources × 250 (an empty corpus's estimate) = 750 sentences > 80 % of 500.
    const tight = await runCli(['ingest', '--db', db, '--json', folder], { env: { CORPUS_LENS_EMBEDDED_LIMIT: '500' } });
    assert.equal(tight.code, 0, tight.stderr);
    const lines = tight.stderr.split('\n').filter((l) => l.includes('warning'));
    assert.equal(lines.length, 1, tight.stderr);
    assert.match(lines[0], /^corpus-lens: warning: this load would bring the embedded corpus to about 750 sentences \(now 0\)/);
    assert.match(lines[0], /PostgreSQL/);
    const summary = JSON.parse(tight.stdout);
    assert.deepEqual(
      Object.keys(summary),
      ['papers', 'sentences', 'elements', 'skipped', 'failed', 'warnings'],
      'the JSON summary is unchanged',
    );
    assert.equal(summary.papers, 3);

    // The measured limit: 3 more papers into a corpus of 3 is nowhere near it.
    const roomy = await runCli(['ingest', '--db', db, '--json', folder]);
    assert.equal(roomy.code, 0, roomy.stderr);
    assert.doesNotMatch(roomy.stderr, /warning/);
    assert.equal(JSON.parse(roomy.stdout).skipped, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
