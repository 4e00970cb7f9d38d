// A paper indexed under a key of its own (a Better BibTeX / Zotero key, an entry of the user's .bib) is cited under
// that key everywhere: the hit a lookup returns carries it, Cite plans it, related work emits it. Only where the
// user's .bib already uses the key for another paper does a fresh key stand in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planCitation } from '../../src/core/bib/cite.ts';
import { runCli } from '../support/cli.ts';

const KEY = 'Lovelace:1843notes';
const BIB = `@article{${KEY},
  title = {Sketch of the Analytical Engine},
  author = {Lovelace, Ada},
  year = {1843},
  journal = {Scientific Memoirs},
  abstract = {The analytical engine weaves algebraical patterns just as the Jacquard loom weaves flowers and leaves. Its operations can be extended to any objects whose mutual relations could be expressed by the abstract science of operations.}
}
`;

test('a paper indexed under its own key is found, cited and written up under that key', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cl-own-keys-'));
  writeFileSync(join(dir, 'refs.bib'), BIB);
  const db = join(dir, 'corpus');
  const ingest = await runCli(['ingest', '--db', db, '--json', join(dir, 'refs.bib')]);
  assert.equal(ingest.code, 0, ingest.stderr);

  const query = await runCli(['query', '--db', db, '--k', '1', 'the engine weaves algebraical patterns like a loom']);
  assert.equal(query.code, 0, query.stderr);
  const [hit] = JSON.parse(query.stdout);
  assert.equal(hit.paper.citationKey, KEY, 'the hit carries the key the paper was indexed under');

  // Cite: the own key where the .bib does not use it; a fresh key where it names another paper there.
  assert.equal((await planCitation('', hit.paper)).key, KEY);
  const other = `@book{${KEY},\n  title = {Passages from the Life of a Philosopher},\n  author = {Babbage, Charles}\n}\n`;
  const plan = await planCitation(other, hit.paper);
  assert.notEqual(plan.key, KEY, 'a key the .bib gives another paper is not reused');
  assert.match(plan.entry ?? '', new RegExp(`^@article\\{${plan.key},`));

  const review = await runCli(['review', '--db', db, '--topic', 'the analytical engine']);
  assert.equal(review.code, 0, review.stderr);
  assert.match(review.stdout, new RegExp(`cite: ${KEY}`), 'the outline cites the own key');
  assert.match(review.stdout, new RegExp(`@article\\{${KEY},`), 'its BibTeX entry is under the own key');
});
