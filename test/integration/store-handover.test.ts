// A VS Code window's corpus process hands its embedded corpus over when another opener asks (ops/lock.ts,
// remote-host.ts): a reloaded code-server tab (whose old extension host lives on for hours), a second window, or a
// `corpus-lens query` in a terminal gets the corpus instead of "in use by process N", and the first window takes
// it back on its next request. A write in flight is never cut off: the opener waits for it.
// Both "windows" are the bundled corpus process the extension forks (dist/store-host.js; npm test builds first).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openRemoteStore, type RemoteCorpusStore } from '../../src/core/store/backends/remote.js';
import { LOCK_FILE } from '../../src/core/store/ops/lock.js';
import type { PaperInput } from '../../src/core/store/types.js';
import { DIM } from '../support/db-contract.js';
import { loadFixture } from '../support/db-fixture.js';
import { freshPGlite } from '../support/db-pglite.js';
import { projectRoot } from '../support/eval.js';
import { runCli } from '../support/cli.js';

const HOST = { script: join(projectRoot, 'dist', 'store-host.js') };
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-handover-'));
const corpus = join(dir, 'corpus');
const opened: RemoteCorpusStore[] = [];

async function openWindow(): Promise<RemoteCorpusStore> {
  const s = await openRemoteStore(corpus, { create: false }, HOST);
  opened.push(s);
  return s;
}

const lockOwner = () => JSON.parse(readFileSync(join(corpus, LOCK_FILE), 'utf8')) as { pid: number; handover?: boolean };

function papers(n: number, sentences: number): PaperInput[] {
  const v = new Float32Array(DIM).fill(0.2);
  return Array.from({ length: n }, (_, p) => ({
    id: `bulk${p}`,
    title: `Bulk paper ${p}`,
    sentences: Array.from({ length: sentences }, (_, i) => ({
      sectionIndex: 0,
      sentenceIndex: i,
      globalIndex: i,
      text: `bulk sentence ${i} of paper ${p} about corpus handover`,
      embedding: v,
    })),
  }));
}

before(async () => {
  (await freshPGlite(corpus)).close();
  const s = await openRemoteStore(corpus, {}, HOST);
  await loadFixture(s);
  await s.close();
});

after(async () => {
  for (const s of opened) await s.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

test('a second window opens a corpus the first holds, and each gets it back on its next request', async () => {
  const first = await openWindow();
  const counts = await first.counts();
  assert.ok(counts.sentences > 0);
  assert.deepEqual([lockOwner().pid, lockOwner().handover], [first.pid, true]);
  const second = await openWindow();
  assert.deepEqual(await second.counts(), counts);
  assert.equal(lockOwner().pid, second.pid);
  // The first window's next lookup takes the corpus back.
  const hits = await first.matchKeyword('sentence embeddings', { count: 3 });
  assert.ok(hits.length > 0);
  assert.equal(lockOwner().pid, first.pid);
  await second.close();
  opened.splice(opened.indexOf(second), 1);
});

test('a `corpus-lens query` in a terminal runs while a window holds the corpus', async () => {
  const window = opened[0] ?? (await openWindow());
  const before = await window.counts();
  const r = await runCli(['query', '--db', corpus, '--mode', 'keyword', '--k', '2', 'sentence embeddings']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(JSON.parse(r.stdout).length > 0, r.stdout);
  // The CLI does not hand over: while it runs it keeps the corpus; after it, the window serves again.
  assert.deepEqual(await window.counts(), before);
  assert.equal(lockOwner().pid, window.pid);
});

test('a write in flight is finished before the corpus is handed over', async () => {
  const window = opened[0] ?? (await openWindow());
  const before = await window.counts();
  const writing = window.writePapers(papers(20, 50));
  // Asked while the write runs: the second window waits for it, then sees every written sentence.
  await new Promise((r) => setTimeout(r, 200));
  const second = await openWindow();
  const written = await writing;
  assert.equal(written.sentences, 1000);
  assert.deepEqual(await second.counts(), { papers: before.papers + 20, sentences: before.sentences + 1000 });
  await window.deletePapers(papers(20, 0).map((p) => p.id));
  assert.deepEqual(await second.counts(), before);
});
