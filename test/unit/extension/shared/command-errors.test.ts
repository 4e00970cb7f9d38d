// What a failing command does (src/extension/shared/command-errors.ts, which every command registration and panel action
// goes through): logged, shown once with "Show Log", never an unhandled rejection; cancelling is not a failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guarded, SHOW_LOG, type FailureReporter } from '../../../../src/extension/shared/command-errors.js';

function recorder(pick?: string) {
  const seen = { logged: [] as string[], shown: [] as { message: string; actions: string[] }[], logShown: 0 };
  let answered!: () => void;
  const answer = new Promise<void>((resolve) => (answered = resolve));
  const reporter: FailureReporter = {
    error: (line) => seen.logged.push(line),
    show: (message, ...actions) => {
      seen.shown.push({ message, actions });
      return Promise.resolve(pick).finally(() => setImmediate(answered));
    },
    showLog: () => seen.logShown++,
  };
  return { seen, reporter, answer };
}

test('a rejected command is logged under its name and shown once with Show Log; its promise resolves', async () => {
  const { seen, reporter, answer } = recorder();
  const run = guarded(
    'corpusLens.indexFolder',
    async (folder: string) => {
      throw new Error(`cannot read ${folder}: EACCES\nat readdir (node:fs)`);
    },
    reporter,
  );
  assert.equal(await run('/papers'), undefined);
  await answer;
  assert.deepEqual(seen.logged, ['corpusLens.indexFolder failed: cannot read /papers: EACCES\nat readdir (node:fs)']);
  assert.deepEqual(seen.shown, [{ message: 'Corpus Lens: cannot read /papers: EACCES', actions: [SHOW_LOG] }]);
  assert.equal(seen.logShown, 0);
});

test('picking Show Log opens the log', async () => {
  const { seen, reporter, answer } = recorder(SHOW_LOG);
  await guarded('corpusLens.connect', () => Promise.reject(new Error('connection refused')), reporter)();
  await answer;
  assert.equal(seen.logShown, 1);
});

test('a synchronous throw and a thrown non-Error are handled the same way; secrets are not shown', async () => {
  const { seen, reporter, answer } = recorder();
  await guarded(
    'configure',
    () => {
      throw { message: 'could not open postgres://corpus:hunter2@db.example/corpus' };
    },
    reporter,
  )();
  await answer;
  assert.equal(seen.shown.length, 1);
  assert.ok(!seen.shown[0].message.includes('hunter2') && !seen.logged[0].includes('hunter2'), seen.shown[0].message);
});

test('a cancelled command (AbortError, VS Code Canceled) is logged, not shown', async () => {
  const { seen, reporter } = recorder();
  const abort = new Error('This operation was aborted');
  abort.name = 'AbortError';
  await guarded('corpusLens.addPapers', () => Promise.reject(abort), reporter)();
  const canceled = new Error('Canceled');
  canceled.name = 'Canceled';
  await guarded('corpusLens.generateRelatedWork', () => Promise.reject(canceled), reporter)();
  assert.deepEqual(seen.shown, []);
  assert.deepEqual(seen.logged, ['corpusLens.addPapers: cancelled', 'corpusLens.generateRelatedWork: cancelled']);
});

test('a command that succeeds returns its result (the Cite from Zotero command returns the key) and reports nothing', async () => {
  const { seen, reporter } = recorder();
  assert.equal(await guarded('corpusLens.citeFromZotero', async () => 'smith2020', reporter)(), 'smith2020');
  assert.deepEqual(seen, { logged: [], shown: [], logShown: 0 });
});

test('no unhandled rejection escapes, even when showing the message fails', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  try {
    const reporter: FailureReporter = {
      error: () => undefined,
      show: () => Promise.reject(new Error('window closed')),
      showLog: () => undefined,
    };
    // As the panel calls its actions: without awaiting them.
    void guarded('retry', () => Promise.reject(new Error('corpus gone')), reporter)();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('Add Papers → Search arXiv offline: the notification says "cannot reach arXiv (no network?)", not the URL and ENOTFOUND', async () => {
  // The search the command runs (core/sources, as add-papers.ts calls it), against hosts no resolver answers (.invalid).
  const { search, sourceContext, sourcesConfig } = await import('../../../../src/core/sources/index.js');
  const config = sourcesConfig({
    arxivApiUrl: 'https://export.arxiv.invalid/api/query',
    openalexUrl: 'https://api.openalex.invalid',
    arxivIntervalMs: 0,
    openalexIntervalMs: 0,
  });
  for (const [source, name] of [
    ['arxiv', 'arXiv'],
    ['openalex', 'OpenAlex'],
  ] as const) {
    const { seen, reporter, answer } = recorder();
    await guarded('corpusLens.addPapers', () => search(sourceContext(config), source, 'graph sparsification'), reporter)();
    await answer;
    assert.deepEqual(seen.shown, [{ message: `Corpus Lens: cannot reach ${name} (no network?)`, actions: [SHOW_LOG] }]);
    assert.doesNotMatch(seen.logged.join('\n'), /ENOTFOUND|EAI_AGAIN|\.invalid/);
  }
});
