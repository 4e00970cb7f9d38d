// `corpus-lens ingest --precision float32|half`: a new corpus is created with that index precision (how its HNSW
// indexes hold the vectors) and answers queries through it; an existing corpus keeps its own, and a different
// --precision is refused before anything is written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPGliteStore } from '../../src/core/store/backends/pglite.js';
import { runCli } from '../support/cli.ts';

test(
  'ingest --precision half creates a half corpus that answers; float32 on it is refused and writes nothing',
  { timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-precision-'));
    try {
      const folder = join(dir, 'papers');
      mkdirSync(folder);
      writeFileSync(
        join(folder, 'a.md'),
        '---\ntitle: "Tides"\n---\n\n## Results\n\nTidal currents erode the sandbanks every winter. The harbour silts up.\n',
      );
      const db = join(dir, 'corpus');

      const bad = await runCli(['ingest', '--db', db, '--precision', 'double', folder]);
      assert.equal(bad.code, 2, 'a usage error');
      assert.match(bad.stderr, /--precision must be float32 or half \(got 'double'\)/);

      const made = await runCli(['ingest', '--db', db, '--precision', 'half', '--json', folder]);
      assert.equal(made.code, 0, made.stderr);
      assert.equal(JSON.parse(made.stdout).papers, 1);
      const store = await openPGliteStore(db);
      try {
        assert.equal((await store.meta())?.indexPrecision, 'half');
      } finally {
        await store.close();
      }
      const hits = await runCli(['query', '--db', db, '--k', '1', 'tidal currents erode sandbanks']);
      assert.equal(hits.code, 0, hits.stderr);
      assert.equal(JSON.parse(hits.stdout)[0].sentence.text, 'Tidal currents erode the sandbanks every winter.');

      writeFileSync(join(folder, 'b.md'), '---\ntitle: "Dunes"\n---\n\n## Results\n\nDunes migrate inland.\n');
      const refused = await runCli(['ingest', '--db', db, '--precision', 'float32', '--json', folder]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /this corpus's indexes are half; --precision float32 applies to a new corpus only/);
      const same = await runCli(['ingest', '--db', db, '--precision', 'half', '--json', folder]);
      assert.equal(same.code, 0, same.stderr);
      assert.deepEqual(
        [JSON.parse(same.stdout).papers, JSON.parse(same.stdout).skipped],
        [1, 1],
        'b.md was not written by the refused run',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
