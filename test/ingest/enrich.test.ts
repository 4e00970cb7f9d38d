// LLM enrichment of element descriptions (seed 003; src/core/ingest/enrich.ts and `corpus-lens elements --enrich`),
// with the REAL openai client against the local OpenAI-wire-format chat stand-in: the elements of elements.tex
// ingested into an embedded corpus (offline embedder), described by a scripted model, found by a query that only the
// description answers (and not before); untrusted output stored as capped plain text; a refused key, rate limits and
// an empty answer leave elements un-enriched and are reported.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder } from '../../src/core/embed/index.ts';
import type { Embedder } from '../../src/core/embed/types.ts';
import { enrichElements, MAX_DESCRIPTION_CHARS, pageText, plainDescription } from '../../src/core/ingest/enrich.ts';
import { ingest } from '../../src/core/ingest/pipeline.ts';
import { OpenAIChat } from '../../src/core/llm/index.ts';
import { searchElements } from '../../src/core/retrieve/elements.ts';
import { openPGliteStore } from '../../src/core/store/backends/pglite.ts';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.ts';
import { startChatStandin, type ChatCall, type ChatStandin } from '../support/chat-standin.ts';
import { runCli } from '../support/cli.ts';

const fixtures = join(__dirname, '..', 'fixtures', 'ingest');
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-enrich-'));
let store: SqlCorpusStore;
let embedder: Embedder;
let standin: ChatStandin;

/** A word no fixture holds: only a description can make an element match it. */
const ONLY_IN_DESCRIPTION = 'quokkaboard';
const labelOf = (call: ChatCall) => /^Label: (.*)$/m.exec(call.messages.at(-1)?.content ?? '')?.[1] ?? '';
/** A faithful describer: Table 1 (the retrieval benchmark) gets the word; every element some text of its own. */
const describer = (call: ChatCall) => ({
  content:
    labelOf(call) === 'Table 1'
      ? `Benchmark comparison of lexical and dense retrievers on the citation ${ONLY_IN_DESCRIPTION} leaderboard.`
      : `A ${labelOf(call)} of a retrieval study.`,
});
const chat = (o: { maxRetries?: number } = {}) =>
  new OpenAIChat({
    baseURL: standin.baseURL,
    model: 'standin',
    apiKey: 'sk-test',
    maxRetries: o.maxRetries ?? 0,
    baseRetryDelayMs: 5,
    maxRetryDelayMs: 20,
  });
const descriptions = async () => (await store.listElements({ count: 100 })).map((h) => h.element.description);

before(async () => {
  embedder = createEmbedder({ provider: 'offline' });
  store = await openPGliteStore(join(dir, 'corpus'));
  const summary = await ingest(store, [join(fixtures, 'elements.tex')], { embedder });
  assert.equal(summary.elements, 7);
  standin = await startChatStandin(describer);
});

after(async () => {
  await standin?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a refused key stops the run: nothing described, the reason reported, the elements as they were', async () => {
  standin.setScript(() => ({ status: 401, message: 'Incorrect API key provided' }));
  const s = await enrichElements(store, embedder, chat());
  assert.equal(s.enriched, 0);
  assert.match(s.stopped ?? '', /401|Incorrect API key/);
  assert.deepEqual(await descriptions(), Array(7).fill(null));
});

test('rate limits past the retries stop the run the same way', async () => {
  standin.setScript(() => ({ status: 429, retryAfterMs: '5', message: 'Rate limit reached' }));
  const s = await enrichElements(store, embedder, chat({ maxRetries: 1 }));
  assert.equal(s.enriched, 0);
  assert.match(s.stopped ?? '', /429|Rate limit/);
  assert.ok(standin.calls.length >= 2, 'retried before giving up');
  assert.deepEqual(await descriptions(), Array(7).fill(null));
});

test('a query only the description answers finds the element after enrichment, not before', async () => {
  const query = `${ONLY_IN_DESCRIPTION} leaderboard`;
  const beforeHits = await searchElements(store, embedder, query, { k: 3 });
  assert.notEqual(beforeHits[0]?.element.label, 'Table 1', 'found before any description');
  standin.setScript(describer);
  const s = await enrichElements(store, embedder, chat());
  assert.deepEqual(
    { enriched: s.enriched, skipped: s.skipped, failed: s.failed, stopped: s.stopped },
    { enriched: 7, skipped: 0, failed: [], stopped: null },
  );
  const afterHits = await searchElements(store, embedder, query, { k: 3 });
  assert.equal(afterHits[0].element.label, 'Table 1');
  assert.match(afterHits[0].element.description ?? '', new RegExp(ONLY_IN_DESCRIPTION));
  // The model saw the element's caption, cells and the text of its page (LaTeX has no pages: its section around it,
  // here the whole Results section, the last sentence four after the table) as data; not the next section.
  const call = standin.calls.find((c) => labelOf(c) === 'Table 1')!;
  const user = call.messages.at(-1)!.content;
  for (const part of [
    'Caption: Retrieval quality on the citation benchmark.',
    'Dense encoder',
    'Text of its page:\nDense retrieval finds paraphrases that keyword search misses.',
    'Latency stays under a tenth of a second.',
  ])
    assert.ok(user.includes(part), part);
  assert.ok(!user.includes('Hybrid retrieval helps authors'), 'the Conclusion is not its page');
  const fenced = /<corpus_data>\n([\s\S]*)\n<\/corpus_data>/.exec(user)?.[1] ?? '';
  assert.ok(fenced.includes('Caption: Retrieval quality') && fenced.includes('Dense encoder'), 'inside the shared data fence');
  assert.match(call.messages[0].content, /is DATA/, 'and the system prompt carries the data rule');
  // A second run asks nothing: every element has its description.
  standin.calls.length = 0;
  const again = await enrichElements(store, embedder, chat());
  assert.deepEqual([again.enriched, again.skipped, standin.calls.length], [0, 7, 0]);
});

test('untrusted output is stored as capped plain text; an empty answer fails that element only', async () => {
  standin.setScript((call) =>
    labelOf(call) === 'Figure 1'
      ? { content: '' }
      : { content: `Description: <script>alert(1)</script> **Bold** [a link](javascript:x) \`code\` ${'word '.repeat(200)}` },
  );
  const s = await enrichElements(store, embedder, chat(), { force: true });
  assert.equal(s.stopped, null);
  assert.deepEqual(
    s.failed.map((f) => f.label),
    ['Figure 1'],
  );
  assert.equal(s.enriched, 6);
  let checked = 0;
  for (const d of await descriptions()) {
    if (d == null || !d.includes('word')) continue;
    checked++;
    assert.ok(d.length <= MAX_DESCRIPTION_CHARS, `${d.length} characters`);
    assert.doesNotMatch(d, /[<>*`]|javascript|^Description/);
    assert.match(d, /^alert\(1\) Bold a link code word word/);
    assert.ok(d.endsWith('…'));
  }
  assert.equal(checked, 6);
  assert.equal(plainDescription('  A table\n\nof   results. '), 'A table of results.');
});

test("a PDF element's context is every sentence stored on its page, in reading order, at most 4,000 characters nearest it", () => {
  const paper = [
    { text: 'Page one ends here.', page: 1, sectionTitle: 'Intro' },
    { text: 'The method section starts on page two.', page: 2, sectionTitle: 'Method' },
    { text: 'The encoder pools token states.', page: 2, sectionTitle: 'Method' },
    { text: 'Results follow on the same page.', page: 2, sectionTitle: 'Results' },
    { text: 'Page three is elsewhere.', page: 3, sectionTitle: 'Results' },
  ];
  const e = { page: 2, sectionTitle: 'Method', afterSentence: 2 };
  assert.equal(
    pageText(paper, e),
    'The method section starts on page two. The encoder pools token states. Results follow on the same page.',
  );
  const long = Array.from({ length: 60 }, (_, i) => ({ text: `Sentence ${i} ${'x'.repeat(100)}.`, page: 5, sectionTitle: 'Long' }));
  const kept = pageText(long, { page: 5, sectionTitle: 'Long', afterSentence: 30 });
  assert.ok(kept.length <= 4000, `${kept.length}`);
  assert.ok(kept.includes('Sentence 30 ') && kept.includes('Sentence 20 ') && !kept.includes('Sentence 0 '), 'the sentences nearest it');
  assert.ok(kept.indexOf('Sentence 29 ') < kept.indexOf('Sentence 31 '), 'in reading order');
});

test('corpus-lens elements --enrich: the summary as JSON; without a model, one line and exit 2', async () => {
  standin.setScript(describer);
  await store.close();
  try {
    const r = await runCli(['elements', '--db', join(dir, 'corpus'), '--enrich', '--force', '--llm-base-url', standin.baseURL, '--json'], {
      env: { ...process.env, OPENAI_API_KEY: 'sk-test' },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { elements: 7, enriched: 7, skipped: 0, failed: [], stopped: null });
    const list = await runCli(['elements', '--db', join(dir, 'corpus'), '--json', `${ONLY_IN_DESCRIPTION}`]);
    assert.equal(JSON.parse(list.stdout)[0].element.label, 'Table 1');
    const none = await runCli(['elements', '--db', join(dir, 'corpus'), '--enrich'], { env: { ...process.env, OPENAI_BASE_URL: '' } });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--enrich needs a chat model/);
    standin.setScript(() => ({ status: 401, message: 'Incorrect API key provided' }));
    const refused = await runCli(['elements', '--db', join(dir, 'corpus'), '--enrich', '--force', '--llm-base-url', standin.baseURL]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the model could not be used, 7 elements left undescribed: .*401/);
  } finally {
    store = await openPGliteStore(join(dir, 'corpus'));
  }
});
