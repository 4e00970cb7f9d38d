// Element cards by meaning (issue 36, item 10; seed 003): a figure whose caption shares no word with the question but
// means what it asks is shown beside the answer, found by its vector, with vectors that carry meaning (the neural
// embedder, Universal Sentence Encoder Lite, run locally); a figure about something else is not; and the cap on
// cards per answer (corpusLens.ask.maxElements, `ask --max-elements`) holds.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ask, newConversation } from '../../src/core/ask/index.js';
import { DEFAULT_MAX_ELEMENTS } from '../../src/core/ask/elements.js';
import { NeuralEmbedder } from '../../src/core/embed/neural.js';
import { assessSupport } from '../../src/core/grounding/index.js';
import { openPGliteStore } from '../../src/core/store/backends/pglite.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import type { ElementInput, PaperInput } from '../../src/core/store/types.js';

const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-ask-elements-'));
const embedder = new NeuralEmbedder();
let store: SqlCorpusStore;

const QUESTION = 'How does seawater flow near the South Pole?';
/** No content word of the question: only its meaning can bring it. */
const SCHEMATIC = 'Schematic of the ocean current circulation around Antarctica.';
const UNRELATED = 'Median lookup latency of the vector index by corpus size.';

async function paper(id: string, texts: string[], elements: { label: string; caption: string; page: number }[]): Promise<PaperInput> {
  const vectors = await embedder.embed([...texts, ...elements.map((e) => `${e.label} ${e.caption}`)]);
  return {
    id,
    title: id,
    year: 2020,
    sentences: texts.map((text, i) => ({
      sectionTitle: 'Results',
      sectionIndex: 0,
      sentenceIndex: i,
      globalIndex: i,
      page: 2,
      text,
      embedding: vectors[i],
    })),
    elements: elements.map((e, i): ElementInput => ({
      type: 'figure',
      label: e.label,
      caption: e.caption,
      content: null,
      sectionTitle: 'Results',
      sectionIndex: 0,
      afterSentence: texts.length - 1,
      page: e.page,
      bbox: [72, 100, 540, 300],
      elementIndex: i,
      embedding: vectors[texts.length + i],
    })),
  };
}

before(async () => {
  store = await openPGliteStore(join(dir, 'corpus'));
  await store.init({ model: embedder.model, dimensions: embedder.dimensions });
  await store.writePapers([
    // The answer's evidence, with four figures printed on its page (linked cards).
    await paper(
      'pdf:southern-ocean',
      [
        'Seawater flows eastward near the South Pole, driven by strong westerly winds.',
        'Near the South Pole the seawater flow carries heat around the continent.',
      ],
      [1, 2, 3, 4].map((n) => ({ label: `Figure ${n}`, caption: `Panel ${n} of the mooring record.`, page: 2 })),
    ),
    // Another paper's figures, on a page no cited sentence is on: only a direct match can bring them.
    await paper(
      'pdf:atlas',
      ['The atlas collects maps of many regions.'],
      [
        { label: 'Figure 7', caption: SCHEMATIC, page: 9 },
        { label: 'Figure 8', caption: UNRELATED, page: 9 },
      ],
    ),
  ]);
});

after(async () => {
  await store?.close();
  await embedder.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a figure that shares no word with the question but means it is a direct card; an unrelated one is not', async () => {
  assert.equal(assessSupport(QUESTION, [SCHEMATIC], { threshold: 0 }).score, 0, 'no term of the question in the caption');
  const t = await ask(newConversation(), QUESTION, { store, embedder, maxElements: 10 });
  assert.notEqual(t.kind, 'unknown');
  const schematic = t.elements?.find((e) => e.label === 'Figure 7');
  assert.ok(schematic, JSON.stringify(t.elements?.map((e) => [e.label, e.match, e.similarity])));
  assert.equal(schematic.match, 'direct');
  assert.equal(schematic.source, null, 'not on the page of a cited sentence');
  assert.ok(!t.elements?.some((e) => e.label === 'Figure 8'), 'the unrelated figure is not shown');
  // The four figures on the cited sentences' page are shown, each with the cited sentence that brought it.
  const onPage = t.elements?.filter((e) => e.source !== null);
  assert.deepEqual(
    onPage?.map((e) => e.label),
    ['Figure 1', 'Figure 2', 'Figure 3', 'Figure 4'],
  );
  assert.ok(onPage?.every((e) => t.citations.includes(e.source!)));
});

test('cards per answer are capped: the default, a setting of 1 (the direct match first), and 0', async () => {
  const byDefault = await ask(newConversation(), QUESTION, { store, embedder });
  assert.equal(DEFAULT_MAX_ELEMENTS, 3);
  const labels = byDefault.elements?.map((e) => e.label) ?? [];
  assert.equal(labels.length, 3, JSON.stringify(labels));
  assert.equal(labels[0], 'Figure 7', 'the best match first');
  assert.ok(
    labels.slice(1).every((l) => /^Figure [1-4]$/.test(l!)),
    `then figures of the cited page: ${labels}`,
  );
  const one = await ask(newConversation(), QUESTION, { store, embedder, maxElements: 1 });
  assert.deepEqual(
    one.elements?.map((e) => e.label),
    ['Figure 7'],
  );
  const none = await ask(newConversation(), QUESTION, { store, embedder, maxElements: 0 });
  assert.notEqual(none.kind, 'unknown');
  assert.equal(none.elements, undefined);
});
