// A large .bib is one file of many papers: ingest writes it batch by batch with a progress line per batch (not all
// of it, vectors included, at its end), parses it once, and matches its records against each other without walking
// every record that shares a template sentence (the big-.bib bench measures the rate: `npm run bench -- ingest`).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEmbedder } from '../../src/core/embed/index.ts';
import { ingest, type IngestProgress } from '../../src/core/ingest/pipeline.ts';
import type { CorpusMeta, CorpusStore, PaperInput } from '../../src/core/store/types.ts';

/** `n` entries, each with a two-sentence abstract written from one template (as a generated or exported .bib is). */
function bib(n: number): string {
  return Array.from(
    { length: n },
    (_, i) => `@article{key${i},
  author = {Smith, John and Lee, Kim},
  title = {Study number ${i} of sentence retrieval},
  journal = {Journal of Retrieval},
  year = {${2000 + (i % 20)}},
  doi = {10.1234/j.${i}},
  abstract = {We study sentence retrieval for citation recommendation in the setting numbered ${i}. Results show a gain of ${i % 50} points on the benchmark.}
}
`,
  ).join('\n');
}

/** A store that records its writes (what ingest asks of it, nothing else). */
function recordingStore() {
  let meta: CorpusMeta | null = null;
  const writes: number[] = [];
  const store = {
    kind: 'pglite',
    meta: async () => meta,
    init: async (o: { model: string; dimensions: number }) => (meta ??= { schemaVersion: '12', model: o.model, dimensions: o.dimensions }),
    sources: async () => [],
    counts: async () => ({ papers: 0, sentences: 0 }),
    writePapers: async (papers: PaperInput[]) => {
      writes.push(papers.length);
      return { papers: papers.length, sentences: papers.reduce((n, p) => n + p.sentences.length, 0) };
    },
    deletePapers: async () => undefined,
  };
  return { store: store as unknown as CorpusStore, writes };
}

test('a .bib of 3,000 entries is written in batches, with a progress line per batch inside the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cl-bib-stream-'));
  try {
    const file = join(dir, 'big.bib');
    writeFileSync(file, bib(3000));
    const { store, writes } = recordingStore();
    const progress: IngestProgress[] = [];
    const t0 = performance.now();
    const summary = await ingest(store, [file], {
      embedder: createEmbedder({ provider: 'offline' }),
      onProgress: (p) => progress.push(p),
    });
    const ms = performance.now() - t0;
    assert.equal(summary.failed.length, 0);
    assert.equal(summary.papers, 3000, 'one paper per entry: a shared template sentence merges nothing');
    assert.equal(summary.sentences, 6000);
    // 2,000 sentences a batch: three writes, the first two while the file is still being read.
    assert.deepEqual(writes, [1000, 1000, 1000]);
    const inside = progress.filter((p) => p.filePapers);
    assert.deepEqual(
      inside.map((p) => [p.filesDone, p.filePapers!.done, p.filePapers!.total, p.papers]),
      [
        [0, 1000, 3000, 1000],
        [0, 2000, 3000, 2000],
      ],
    );
    assert.equal(progress.at(-1)!.filesDone, 1);
    // Generous bound on a shared machine (it took minutes when every record walked every other record's shingles).
    assert.ok(ms < 60_000, `${ms.toFixed(0)} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
