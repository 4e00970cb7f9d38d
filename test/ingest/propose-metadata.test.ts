// Metadata for a paper that has none (issue 36.11): a PDF compiled without a title in layout-readable form (the title
// set at body size, no \title), no .bib; the REAL `openai` client against the chat stand-in proposes title, authors and
// year from page 1, stored as proposed by the model. Adversarial replies (garbage JSON, a 2,000-character title, HTML,
// a title the page does not print) leave the paper as the offline reader found it.
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
import { compilePdf, noPdflatex } from '../support/pdflatex.js';

const TITLE = 'Sparse Retrieval for Long Scholarly Queries';
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-propose-'));
let standin: ChatStandin;
let reply: Reply = { content: '' };
let pdf = '';

before(async () => {
  standin = await startChatStandin(() => reply);
  if (noPdflatex) return;
  const ok = compilePdf(join(dir, 'pdf'), {
    name: 'untitled',
    lines: [
      '\\documentclass{article}',
      '\\pagestyle{empty}',
      '\\begin{document}',
      '\\noindent Sparse Retrieval for Long Scholarly Queries\\\\',
      'Jane Smith and Ravi Kumar\\\\',
      'March 2019',
      '',
      '\\section*{Introduction}',
      'Sparse lexical retrieval raises recall on long queries by eleven points over dense retrieval on our benchmark.',
      'Short queries show no difference between the two methods in any of our runs.',
      '\\end{document}',
    ],
  });
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
