// Cite keeps the entry type and venue field of the paper's source entry (issue 31.9): a paper the corpus's own
// .bib lists as @inproceedings with booktitle is cited as one, not as @article with journal. Real ingest of two
// sample papers with the samples' references.bib into a real PGlite corpus, then the entry Cite would add.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { planCitation } from '../../../../src/core/bib/cite.js';
import { formatBibtexEntry, sourceShape } from '../../../../src/core/bib/format.js';
import { createEmbedder } from '../../../../src/core/embed/index.js';
import { ingest } from '../../../../src/core/ingest/pipeline.js';
import { openPGliteStore } from '../../../../src/core/store/backends/pglite.js';
import { projectRoot } from '../../../support/eval.ts';

test("the source entry's type and venue field are kept; without one, @article/@misc as before", () => {
  const paper = {
    title: 'Trust and Over-Reliance',
    authors: ['Naomi Hollis'],
    year: 2023,
    venue: 'Proceedings of the Symposium on Human-AI Collaboration in Writing',
    doi: null,
    arxivId: null,
    url: null,
    citationKey: 'hollis2023trust',
  };
  const source = '@inproceedings{hollis2023trust,\n  title = {{Trust}},\n  booktitle = {Proceedings of the Symposium},\n  year = {2023}\n}';
  assert.deepEqual(sourceShape(source), { type: 'inproceedings', venueField: 'booktitle' });
  const entry = formatBibtexEntry({ ...paper, bibtex: source }, 'hollis2023trust');
  assert.match(entry, /^@inproceedings\{hollis2023trust,/);
  assert.match(entry, /\n {2}booktitle = \{Proceedings of the Symposium on Human-AI Collaboration in Writing\}/);
  assert.doesNotMatch(entry, /journal/);
  assert.match(formatBibtexEntry(paper, 'k'), /^@article\{k,[\s\S]*journal = /);
  assert.match(formatBibtexEntry({ ...paper, venue: null }, 'k'), /^@misc\{k,/);
  // A head that is not an entry type of letters is not copied (the type reaches the user's .bib).
  assert.equal(sourceShape('@in}proceedings{x,'), null);
  assert.match(formatBibtexEntry({ ...paper, bibtex: '@string{a = "b"}' }, 'k'), /^@article\{k,/);
});

test('a corpus paper from a folder with a .bib: the stored source entry gives Cite its @inproceedings', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cl-cite-type-'));
  const store = await openPGliteStore(join(dir, 'corpus'));
  try {
    const samples = join(projectRoot, 'samples', 'corpus');
    await ingest(store, [join(samples, 'hollis2023trust.md'), join(samples, 'references.bib')], {
      embedder: createEmbedder({ provider: 'offline' }),
    });
    const ids = (await store.sources()).map((s) => s.id);
    const stored = await store.paperBibtex(ids);
    const hollis = stored.find((r) => /hollis2023trust/.test(r.bibtex));
    assert.ok(hollis, `the source entry is stored: ${stored.map((r) => r.bibtex.slice(0, 40)).join(' | ')}`);
    const plan = await planCitation('', {
      title: 'Trust and Over-Reliance in AI Writing Assistants: A Laboratory Study with Researchers',
      authors: ['Naomi Hollis'],
      year: 2023,
      venue: 'Proceedings of the Symposium on Human-AI Collaboration in Writing (HAIW 2023)',
      doi: null,
      arxivId: null,
      url: null,
      citationKey: 'hollis2023trust',
      bibtex: hollis.bibtex,
    });
    assert.match(
      plan.entry ?? '',
      /^@inproceedings\{hollis2023trust,[\s\S]*booktitle = \{Proceedings of the Symposium on Human-AI Collaboration in Writing \(HAIW 2023\)\}/,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
