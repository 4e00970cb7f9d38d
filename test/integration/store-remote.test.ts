// npm test runs this file alone: rejections within 2 s and within 50 ms.
// The store contract through a child process (openRemoteStore over embedded PGlite in a temp folder), plus what
// the process boundary adds: error classes and fields cross it, aborts and progress cross it, a killed child fails
// pending and later calls at once, close() ends the child, and a dead parent leaves no orphan.
// The child is the TypeScript entry src/core/store/backends/remote-host.ts run with `--import tsx` (no build needed);
// the bundled dist/store-host.js is what the extension forks (checked by the extension-host suite).
// Round trips are counted as requests in the proxy (`onRequest`): the SQL statements the child then sends are
// counted by the PGlite contract run (store-pglite.test.ts) on the same store code.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { paperTextSource } from '../../src/core/grounding/paper-text.js';
import { openRemoteStore, type RemoteCorpusStore } from '../../src/core/store/backends/remote.js';
import { CorpusMismatchError, StoreError, type PaperInput } from '../../src/core/store/types.js';
import { storeContract, MODEL, DIM } from '../support/db-contract.js';
import { loadFixture } from '../support/db-fixture.js';
import { freshPGlite } from '../support/db-pglite.js';
import { projectRoot } from '../support/eval.js';

const HOST = { script: join(projectRoot, 'src', 'core', 'store', 'backends', 'remote-host.ts'), execArgv: ['--import', 'tsx'] };

let store: RemoteCorpusStore;
let requests = 0;
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-remote-'));
const corpus = join(dir, 'corpus');

const open = () => openRemoteStore(corpus, {}, { ...HOST, onRequest: () => requests++ });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

function papers(n: number, prefix: string, sentences = 20): PaperInput[] {
  const v = new Float32Array(DIM).fill(0.1);
  return Array.from({ length: n }, (_, p) => ({
    id: `${prefix}${p}`,
    title: `Paper ${p}`,
    sentences: Array.from({ length: sentences }, (_, i) => ({
      sectionIndex: 0,
      sentenceIndex: i,
      globalIndex: i,
      text: `sentence ${i} of ${prefix}${p}`,
      embedding: v,
    })),
  }));
}

before(async () => {
  (await freshPGlite(corpus)).close(); // the template data dir: the child skips initdb
  store = await open();
  assert.notEqual(store.pid, process.pid);
  assert.equal(store.kind, 'pglite');
  assert.equal(store.schema, 'corpusLens');
  assert.equal(store.readOnly, false);
  // The index controls crossed too: deferIndexesFrom 1 drops and rebuilds the indexes through them.
  assert.equal(typeof (store as unknown as Record<string, unknown>).dropSearchIndexes, 'function');
  assert.equal(await loadFixture(store, 64, { deferIndexesFrom: 1 }), 14);
  // The native vector index, the default where it loads, is not built for the contract's corpora: they are small
  // enough to be scanned exactly (store.ts EXACT_BELOW); native-index.test.ts tests its lookups.
  assert.equal(readdirSync(corpus).filter((f) => f.startsWith('corpus-lens-vectors.')).length, 0, 'no native index under 2,000 sentences');
});

after(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

storeContract({
  store: () => store,
  roundTrips: () => requests,
  reimport: () => loadFixture(store),
  keyword: true,
  backend: 'embedded PGlite in the corpus child process',
});

test('meta() is the recorded metadata, cached after the first call like every store', async () => {
  const meta = await store.meta();
  assert.equal(meta?.model, MODEL);
  assert.equal(meta?.dimensions, DIM);
  assert.match(String(meta?.createdAt), /^\d{4}-/);
  const before = requests;
  assert.deepEqual(await store.meta(), meta);
  assert.equal(requests, before);
});

test('a CorpusMismatchError crosses the boundary with its class and fields; a StoreError with its class', async () => {
  await assert.rejects(store.init({ model: 'other', dimensions: 32 }), (err: unknown) => {
    assert.ok(err instanceof CorpusMismatchError, String(err));
    assert.equal(err.name, 'CorpusMismatchError');
    assert.deepEqual([err.corpus.model, err.corpus.dimensions], [MODEL, DIM]);
    assert.deepEqual(err.query, { model: 'other', dimensions: 32 });
    assert.equal(err.message, `corpus was built with ${MODEL} (64-d); query embedding is other (32-d)`);
    return true;
  });
  await assert.rejects(store.matchVector(new Float32Array(32), { count: 3 }), (err: unknown) => {
    assert.ok(err instanceof StoreError, String(err));
    assert.equal(err.message, 'query embedding has 32 dimensions; the corpus has 64');
    return true;
  });
  // A failing paper is named as in-process.
  const bad = papers(1, 'bad')[0];
  (bad.sentences[0] as { text: unknown }).text = null;
  await assert.rejects(
    store.writePapers([bad]),
    (err: unknown) => err instanceof StoreError && /paper bad0: null value in column "text"/.test(err.message),
  );
});

test("the review reads a paper's sentences through the child (no driver crosses the boundary)", async () => {
  assert.equal((store as unknown as { driver?: unknown }).driver, undefined);
  const sentences = await paperTextSource(store).paperSentences('p1');
  assert.equal(sentences.length, 6);
  assert.equal(sentences[1], 'Sentence embeddings map similar sentences to nearby vectors.');
});

test('writePapers streams its progress back', async () => {
  const seen: [number, number][] = [];
  const r = await store.writePapers(papers(3, 'prog', 2), { onProgress: (done, total) => seen.push([done, total]) });
  assert.deepEqual(r, { papers: 3, sentences: 6, skipped: 0, elements: 0 });
  assert.deepEqual(seen, [
    [1, 3],
    [2, 3],
    [3, 3],
  ]);
  await store.deletePapers(['prog0', 'prog1', 'prog2']);
});

test("aborting writePapers stops it in the child with the caller's AbortError; an aborted signal writes nothing", async () => {
  const before = await store.counts();
  const controller = new AbortController();
  let progress = 0;
  // 600 papers = 6 groups of 100. The abort sent on the first group's progress reaches the child while it writes
  // the second group (in-process it would stop before the second): the child reads it when that group commits and
  // stops there. A parent slower than a whole group would let one more group in; never the whole load.
  const load = store.writePapers(papers(600, 'ab'), {
    signal: controller.signal,
    onProgress: () => {
      if (++progress === 1) controller.abort();
    },
  });
  await assert.rejects(load, (err: unknown) => {
    assert.equal(err, controller.signal.reason, "rejected with the signal's own reason");
    assert.equal((err as Error).name, 'AbortError');
    return true;
  });
  const mid = await store.counts();
  const written = mid.papers - before.papers;
  assert.ok(written >= 100 && written <= 300 && written % 100 === 0, `${written} papers written of 600, in whole groups`);
  assert.equal(progress, written);

  const pre = new AbortController();
  pre.abort();
  await assert.rejects(store.writePapers(papers(2, 'pre'), { signal: pre.signal }), { name: 'AbortError' });
  assert.deepEqual(await store.counts(), mid);
  await store.deletePapers(papers(600, 'ab').map((p) => p.id));
  assert.deepEqual(await store.counts(), before);
});

test('a corpus persisted in a folder reopens through a new child; close() ends the old one', async () => {
  const pid = store.pid;
  await store.close();
  assert.ok(await gone(pid, 3000), 'the child exited after close()');
  await assert.rejects(store.counts(), (err: unknown) => err instanceof StoreError && err.message === 'the corpus is closed');
  await store.close(); // twice is fine
  store = await open();
  assert.notEqual(store.pid, pid);
  assert.deepEqual(await store.counts(), { papers: 3, sentences: 14 });
  assert.equal((await store.meta())?.model, MODEL);
});

test('a killed child fails the pending and every later call at once with one StoreError line', async () => {
  const exits: StoreError[] = [];
  const mem = await openRemoteStore('memory://', {}, { ...HOST, onExit: (e) => exits.push(e) });
  await mem.init({ model: MODEL, dimensions: DIM });
  const t0 = performance.now();
  const pending = mem.writePapers(papers(300, 'k'));
  process.kill(mem.pid, 'SIGKILL');
  const expected = (err: unknown) => err instanceof StoreError && err.message === 'the corpus process exited (code null, signal SIGKILL)';
  await assert.rejects(pending, expected);
  assert.ok(performance.now() - t0 < 2000, `rejected after ${performance.now() - t0} ms`);
  const t1 = performance.now();
  await assert.rejects(mem.counts(), expected);
  await assert.rejects(mem.meta(), expected);
  assert.ok(performance.now() - t1 < 50);
  assert.equal(exits.length, 1);
  assert.ok(expected(exits[0]));
  await mem.close(); // a dead child: close() resolves
});

test('opening errors keep their class; a child that cannot start fails at once', async () => {
  await assert.rejects(openRemoteStore('', {}, HOST), (err: unknown) => err instanceof StoreError && /no corpus given/.test(err.message));
  await assert.rejects(
    openRemoteStore(corpus, {}, { script: join(dir, 'no-such-host.js') }),
    (err: unknown) => err instanceof StoreError && /^the corpus process exited \(code 1, signal null\)$/.test(err.message),
  );
});

test('a parent that dies leaves no orphan corpus process', async () => {
  const probe = `
    const { openRemoteStore } = require(${JSON.stringify(join(projectRoot, 'src', 'core', 'store', 'backends', 'remote.ts'))});
    openRemoteStore('memory://', {}, ${JSON.stringify(HOST)}).then((s) => console.log(s.pid));
    setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['--import', 'tsx', '-e', probe], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((resolve, reject) => {
    let out = '';
    parent.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    parent.on('exit', (code) => reject(new Error(`probe exited ${code}`)));
  });
  assert.ok(alive(pid));
  parent.kill('SIGKILL');
  assert.ok(await gone(pid, 5000), `corpus process ${pid} outlived its parent`);
});
