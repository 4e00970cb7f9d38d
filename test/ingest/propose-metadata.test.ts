// Metadata for a paper that has none (issue 36.11): a PDF compiled without a title in layout-readable form (the title
// set at body size, no \title), no .bib; the REAL `openai` client against the chat stand-in proposes title, authors and
// year from page 1, stored as proposed by the model. Adversarial replies (garbage JSON, a 2,000-character title, HTML,
// a title the page does not print) leave the paper as the offline reader found it. Through the CLI: the fallback model
// and the answers cache apply to the proposal, and `stats` lists the paper as proposed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createEmbedder } from '../../src/core/embed/index.js';
import { readPaperFile } from '../../src/core/ingest/index.js';
import { ingest } from '../../src/core/ingest/pipeline.js';
import { proposeMetadata } from '../../src/core/ingest/propose-metadata.js';
import { OpenAIChat } from '../../src/core/llm/index.js';
import { openPGliteStore } from '../../src/core/store/backends/pglite.js';
import { startChatStandin, type ChatStandin, type Reply } from '../support/chat-standin.js';
import { runCli } from '../support/cli.js';
import { compilePdf, noPdflatex, UNTITLED_PAPER } from '../support/pdflatex.js';

const TITLE = UNTITLED_PAPER.title;
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-propose-'));
let standin: ChatStandin;
let reply: Reply = { content: '' };
let pdf = '';

before(async () => {
  standin = await startChatStandin(() => reply);
  if (noPdflatex) return;
  const ok = compilePdf(join(dir, 'pdf'), UNTITLED_PAPER.source);
  assert.ok(ok);
  pdf = join(dir, 'pdf', 'untitled.pdf');
});

after(async () => {
  await standin?.close();
  rmSync(dir, { recursive: true, force: true });
});

const chat = () => new OpenAIChat({ baseURL: standin.baseURL, model: 'standin-model', apiKey: 'k', timeoutMs: 5000, maxRetries: 0 });

describe('metadata proposed for a PDF that has none', { skip: noPdflatex }, () => {
  test('the offline reader finds no title; the model proposes one, stored as proposed by it', async () => {
    const read = await readPaperFile(pdf);
    assert.equal(read.papers[0].title, null, 'the fixture must have no layout-readable title');
    assert.match(read.papers[0].firstPage ?? '', /Sparse Retrieval for Long/);

    reply = { content: JSON.stringify({ title: TITLE, authors: ['Jane Smith', 'Ravi Kumar', 'Invented Person'], year: 2019 }) };
    const store = await openPGliteStore(join(dir, 'corpus'));
    try {
      const before = standin.calls.length;
      await ingest(store, [pdf], { embedder: createEmbedder({ provider: 'offline' }), chat: chat() });
      assert.equal(standin.calls.length - before, 1);
      assert.equal(standin.calls.at(-1)!.step, 'metadata');
      const [p] = await store.listPapers();
      assert.equal(p.title, TITLE);
      assert.deepEqual(p.authors, ['Jane Smith', 'Ravi Kumar']);
      assert.equal(p.year, 2019);
      const { rows } = await store.driver.query('SELECT metadata_proposed_by FROM papers');
      assert.equal(rows[0].metadata_proposed_by, 'standin-model');
    } finally {
      await store.close();
    }
  });

  test('adversarial replies give a clean fallback: nothing proposed', async () => {
    const page = (await readPaperFile(pdf)).papers[0].firstPage!;
    for (const content of [
      'Sure! The title is {not json',
      JSON.stringify({ title: 'Sparse '.repeat(300), authors: [], year: 2019 }),
      JSON.stringify({ title: `<script>alert(1)</script>${TITLE}`, authors: ['Jane Smith'], year: 2019 }),
      JSON.stringify({ title: 'A Completely Different Paper That Is Not On The Page', authors: ['Jane Smith'], year: 2019 }),
      JSON.stringify({ title: 42, authors: 'Jane Smith' }),
    ]) {
      reply = { content };
      assert.equal(await proposeMetadata(chat(), page), null, content.slice(0, 80));
    }
    reply = { status: 500, message: 'down' };
    assert.equal(await proposeMetadata(chat(), page), null);
  });
});

describe(
  'corpus-lens ingest with a model, then stats: proposed metadata listed, the fallback and the cache apply',
  { skip: noPdflatex },
  () => {
    test('--llm-fallback-model answers when the model fails; stats lists the paper as proposed by it; --no-llm-cache asks again', async () => {
      const db = join(dir, 'cli-corpus');
      const cache = join(dir, 'cli-cache');
      const answer = JSON.stringify({ title: TITLE, authors: ['Jane Smith'], year: 2019 });
      // The broken model's 500s carry `retry-after-ms: 1`, which the client honours: its three retries still happen
      // (asserted below), without ~2.5 s of backoff per ingest (test/net/retry-policy.test.ts times the real waits).
      standin.setScript((call) =>
        call.body.model === 'broken' ? { status: 500, retryAfterMs: '1', message: 'down' } : { content: answer },
      );
      const llm = ['--llm-base-url', standin.baseURL, '--llm-model', 'broken', '--llm-fallback-model', 'backup'];
      const ingestCli = async (...more: string[]) => {
        const r = await runCli(['ingest', '--db', db, '--json', ...llm, ...more, pdf], { env: { CORPUS_LENS_CACHE_DIR: cache } });
        assert.equal(r.code, 0, r.stderr);
      };
      standin.reset();
      await ingestCli();
      const models = standin.calls.filter((c) => c.step === 'metadata').map((c) => c.body.model);
      assert.deepEqual(models, ['broken', 'broken', 'broken', 'broken', 'backup'], 'the model, its 3 retries, then the fallback');

      const r = await runCli(['stats', '--db', db, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.equal(report.proposedMetadata.length, 1);
      const [found] = report.proposedMetadata;
      assert.equal(found.model, 'backup');
      assert.equal(found.paper.title, TITLE);
      assert.equal(found.paper.sourcePath, pdf);
      assert.equal(found.fix.action, 'metadata');
      // The keys stats printed before stay.
      for (const k of ['missingTitle', 'missingAuthors', 'missingYear', 'anonymousKeys', 'stubs', 'duplicates', 'missingInputs', 'notes'])
        assert.ok(k in report, k);
      const md = await runCli(['stats', '--db', db]);
      assert.match(md.stdout, /## Metadata proposed by a model \(1\)/);
      assert.ok(md.stdout.includes(`- ${TITLE} \`smith2019\` — pdf`), md.stdout);
      assert.match(md.stdout, /title proposed by `backup`/);

      // Re-indexed: the fallback's answer kept on disk answers (the failing model is asked again: failures are not
      // kept); with --no-llm-cache the fallback is asked again too.
      const askedBackup = () => standin.calls.some((c) => c.step === 'metadata' && c.body.model === 'backup');
      standin.reset();
      await ingestCli('--reindex');
      assert.ok(!askedBackup(), 'answered from the cache');
      await ingestCli('--reindex', '--no-llm-cache');
      assert.ok(askedBackup());
    });
  },
);
