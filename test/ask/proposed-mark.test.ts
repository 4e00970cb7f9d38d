// Ask marks a paper whose title, authors and year a model proposed (papers.metadata_proposed_by), as the panel does:
// on each answer source and each figure/table card of it, through a saved conversation, and in `ask --json` only
// where it is set (a paper of real metadata prints as before). A real PGlite corpus, the offline embedder.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ask, newConversation, parseConversation, serializeConversation } from '../../src/core/ask/index.js';
import { createAskCommand } from '../../src/cli/commands/ask.js';
import { createEmbedder } from '../../src/core/embed/index.js';
import { openPGliteStore } from '../../src/core/store/backends/pglite.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import type { PaperInput } from '../../src/core/store/types.js';

const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-ask-proposed-'));
const db = join(dir, 'corpus');
const embedder = createEmbedder({ provider: 'offline' });
let store: SqlCorpusStore;

const MODEL = 'gpt-4o-mini';
const QUESTION = 'How much does sparse retrieval raise recall on long queries?';

async function paper(id: string, title: string, text: string, caption: string, proposedBy?: string): Promise<PaperInput> {
  const [sentence, table] = await embedder.embed([text, `Table 1 ${caption}`]);
  return {
    id,
    title,
    authors: ['Jane Smith'],
    year: 2021,
    ...(proposedBy ? { metadataProposedBy: proposedBy } : {}),
    sentences: [{ sectionTitle: 'Results', sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, page: 1, text, embedding: sentence }],
    elements: [
      {
        type: 'table',
        label: 'Table 1',
        caption,
        content: null,
        sectionTitle: 'Results',
        sectionIndex: 0,
        afterSentence: 0,
        page: 1,
        bbox: [72, 100, 540, 300],
        elementIndex: 0,
        embedding: table,
      },
    ],
  };
}

before(async () => {
  store = await openPGliteStore(db);
  await store.init({ model: embedder.model, dimensions: embedder.dimensions });
  await store.writePapers([
    await paper(
      'pdf:proposed',
      'Sparse Retrieval for Long Queries',
      'Sparse retrieval raises recall on long queries by twelve points.',
      'Recall of sparse retrieval on long queries.',
      MODEL,
    ),
    await paper(
      'pdf:real',
      'Query Length and Recall',
      'On long queries sparse retrieval raises recall by nine points over dense retrieval.',
      'Recall of sparse and dense retrieval by query length.',
    ),
  ]);
});

after(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

test("a source and a card of a paper a model proposed carry the model; a real paper's carry no field; a save keeps it", async () => {
  const c = newConversation();
  const t = await ask(c, QUESTION, { store, embedder, maxElements: 4 });
  assert.notEqual(t.kind, 'unknown');
  const cited = t.citations.map((n) => c.sources[n - 1]);
  assert.deepEqual(cited.map((s) => s.paperId).sort(), ['pdf:proposed', 'pdf:real'], 'both papers answer');
  assert.deepEqual(cited.map((s) => [s.paperId, s.metadataProposedBy]).sort(), [
    ['pdf:proposed', MODEL],
    ['pdf:real', undefined],
  ]);
  assert.ok(!('metadataProposedBy' in cited.find((s) => s.paperId === 'pdf:real')!), 'no field, not even undefined');
  const cards = t.elements ?? [];
  assert.deepEqual(cards.map((e) => e.paperId).sort(), ['pdf:proposed', 'pdf:real'], JSON.stringify(cards));
  assert.equal(cards.find((e) => e.paperId === 'pdf:proposed')!.metadataProposedBy, MODEL);
  assert.ok(!('metadataProposedBy' in cards.find((e) => e.paperId === 'pdf:real')!));
  // The extension keeps the conversation per workspace and the CLI in --history: a reopened one still marks it.
  const saved = parseConversation(serializeConversation(c));
  assert.equal(saved.sources.find((s) => s.paperId === 'pdf:proposed')!.metadataProposedBy, MODEL);
  assert.equal(saved.turns[0].elements!.find((e) => e.paperId === 'pdf:proposed')!.metadataProposedBy, MODEL);
  assert.throws(
    () => parseConversation(serializeConversation(c).replace(`"metadataProposedBy": "${MODEL}"`, '"metadataProposedBy": 7')),
    /metadataProposedBy/,
  );
});

test("ask --json: the field only where it is set; a real paper's source and card print the keys they always had", async () => {
  await store.close(); // the command opens the folder itself
  let stdout = '';
  const code = await createAskCommand({ env: {}, stdout: (s) => (stdout += s), stderr: () => {} }).run([
    '--db',
    db,
    '--json',
    '--max-elements',
    '4',
    QUESTION,
  ]);
  assert.equal(code, 0);
  const j = JSON.parse(stdout);
  const source = (id: string) => j.sources.find((s: { paperId: string }) => s.paperId === id);
  const card = (id: string) => j.elements.find((e: { paperId: string }) => e.paperId === id);
  assert.equal(source('pdf:proposed').metadataProposedBy, MODEL);
  assert.equal(card('pdf:proposed').metadataProposedBy, MODEL);
  assert.deepEqual(Object.keys(source('pdf:real')), [
    'n',
    'paperId',
    'citationKey',
    'title',
    'authors',
    'year',
    'section',
    'sentenceId',
    'globalIndex',
    'text',
    'previous',
    'next',
    'page',
    'lineStart',
    'lineEnd',
    'pageEnd',
  ]);
  assert.deepEqual(Object.keys(card('pdf:real')), [
    'type',
    'label',
    'caption',
    'content',
    'paperId',
    'citationKey',
    'title',
    'year',
    'section',
    'page',
    'bbox',
    'match',
    'similarity',
    'source',
    'description',
  ]);
});
