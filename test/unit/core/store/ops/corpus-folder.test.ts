// Picking an embedded corpus: the corpus folder, whether the picker landed inside it or on its parent.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { corpusFolderFor } from '../../../../../src/core/store/ops/corpus-folder.ts';

test('the corpus folder from itself, from its PostgreSQL internals and from its parent', () => {
  const home = mkdtempSync(join(tmpdir(), 'cl-folder-'));
  const corpus = join(home, '.corpus-lens', 'sample-corpus');
  mkdirSync(join(corpus, 'base', '1'), { recursive: true });
  writeFileSync(join(corpus, 'PG_VERSION'), '16\n');
  assert.equal(corpusFolderFor(corpus), corpus);
  assert.equal(corpusFolderFor(join(corpus, 'base', '1')), corpus);
  assert.equal(corpusFolderFor(join(home, '.corpus-lens')), corpus);
  // A folder with no corpus in or around it is a new corpus there.
  mkdirSync(join(home, 'fresh'));
  assert.equal(corpusFolderFor(join(home, 'fresh')), join(home, 'fresh'));
});
