// One paper per work across runs: a record read now finds the paper an earlier run stored with the same text (a
// reading with small differences), never another paper, whether the stored fingerprints are read into one table
// (a small corpus: no search per record) or candidates come from keyword probes (a large one). Real PGlite.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineEmbedder } from '../../src/core/embed/index.ts';
import { readPaperFile } from '../../src/core/ingest/index.ts';
import { ingest } from '../../src/core/ingest/pipeline.ts';
import { fillFromStored, StoredWorks } from '../../src/core/ingest/stored-work.ts';
import { toPaperInput } from '../../src/core/ingest/folder.ts';
import type { ParsedPaper } from '../../src/core/ingest/types.ts';
import { openStore } from '../../src/core/store/index.ts';
import type { CorpusStore } from '../../src/core/store/types.ts';
import { projectRoot } from '../support/eval.ts';

const sample = (name: string) => join(projectRoot, 'samples', 'corpus', name);
const dir = mkdtempSync(join(tmpdir(), 'cl-stored-work-'));
let store: CorpusStore;
let stored: Set<string>;

before(async () => {
  store = await openStore(join(dir, 'corpus'));
  await ingest(store, [sample('falk2024quantization.tex'), sample('achterberg2019bm25sentences.tex')], {
    embedder: createOfflineEmbedder(),
  });
  stored = new Set((await store.sources()).map((s) => s.id));
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Another reading of a stored sample (as a PDF of it reads): a new id, every fifth sentence dropped, words changed. */
async function reading(name: string): Promise<ParsedPaper> {
  const [paper] = (await readPaperFile(sample(name))).papers;
  const sentences = paper.sentences.filter((_, i) => i % 5 !== 4).map((s) => ({ ...s, text: s.text.replace(/\bthe\b/, 'a') }));
  return { ...paper, id: 'sha256:another-reading', sentences };
}

/** The store, counting its keyword searches. */
function counting(inner: CorpusStore): { store: CorpusStore; searches: () => number } {
  let n = 0;
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'matchKeyword') return (...args: Parameters<CorpusStore['matchKeyword']>) => (n++, target.matchKeyword(...args));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, searches: () => n };
}

for (const [how, tableUpTo] of [
  ['from the table of stored fingerprints (a small corpus)', undefined],
  ['from keyword probes (a corpus past the table size)', 0],
] as const) {
  test(`a reading of a stored paper finds it; a paper not stored finds nothing: ${how}`, async () => {
    const { store: watched, searches } = counting(store);
    const works = new StoredWorks(watched, stored, tableUpTo);
    const found = await works.find(await reading('falk2024quantization.tex'), (id) => stored.has(id));
    assert.equal(found?.title, 'How Much Recall Does Quantisation Cost? Product Quantisation for Sentence Embeddings');
    assert.equal(await works.find(await reading('adeyemi2019citrec.tex'), (id) => stored.has(id)), undefined);
    // Not eligible (taken by an earlier record of the run): not matched again.
    assert.equal(await works.find(await reading('falk2024quantization.tex'), (id) => stored.has(id) && id !== found!.id), undefined);
    if (tableUpTo === undefined) assert.equal(searches(), 0, 'no keyword search per record');
    else assert.ok(searches() >= 3, `${searches()} keyword searches`);
  });
}

test('a stored paper whose title a model proposed: the match carries the model, and an untitled record filled from it stays marked', async () => {
  // As an earlier run with a chat model stored it: a title proposed from page 1, marked with the model.
  const [paper] = (await readPaperFile(sample('adeyemi2019citrec.tex'))).papers;
  const proposed = {
    ...paper,
    id: 'sha256:proposed-reading',
    title: 'Citation Recommendation from Sentences',
    metadataProposedBy: 'standin-model',
    elements: [],
  };
  const vectors = await createOfflineEmbedder().embed(proposed.sentences.map((s) => s.text));
  await store.writePapers([toPaperInput(proposed, vectors)]);
  try {
    const ids = new Set([...stored, proposed.id]);
    // A better-text copy without a title of its own (a LaTeX source without \title) is the same work.
    const untitled = { ...(await reading('adeyemi2019citrec.tex')), title: null };
    const found = await new StoredWorks(store, ids).find(untitled, (id) => ids.has(id));
    assert.deepEqual([found?.id, found?.metadataProposedBy], [proposed.id, 'standin-model']);
    const filled = fillFromStored(untitled, found!);
    assert.deepEqual([filled.title, filled.metadataProposedBy], ['Citation Recommendation from Sentences', 'standin-model']);
  } finally {
    await store.deletePapers([proposed.id]);
  }
});
