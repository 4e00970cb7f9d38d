// "Ask the corpus" end to end: a REAL PGlite corpus of sample papers (the real ingest), the offline embedder, and
// the REAL `openai` client talking to the local chat-completions stand-in with scripted models (faithful, lying).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  ask,
  isFollowUp,
  newConversation,
  parseConversation,
  serializeConversation,
  isSourceQuestion,
  type Conversation,
} from '../../src/core/ask/index.js';
import { createAskCommand } from '../../src/cli/commands/ask.js';
import { createEmbedder } from '../../src/core/embed/index.js';
import type { Embedder } from '../../src/core/embed/types.js';
import { OpenAIChat } from '../../src/core/llm/index.js';
import { paperTextSource } from '../../src/core/grounding/paper-text.js';
import { stripQuotations } from '../../src/core/grounding/check.js';
import { ShingleIndex } from '../../src/core/text/match.js';
import { openPGliteStore } from '../../src/core/store/backends/pglite.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import type { CorpusStore } from '../../src/core/store/types.js';
import { ASK_LIES, faithfulAskModel, inventorAskModel, liarAskModel } from '../support/ask-models.js';
import { startChatStandin, type ChatStandin } from '../support/chat-standin.js';
import { runCli } from '../support/cli.ts';
import { projectRoot } from '../support/eval.ts';

const FILES = [
  'marchetti2022sentenceretrieval.tex',
  'bergstrom2016citationintent.tex',
  'falk2024quantization.tex',
  'mwangi2022hnswtuning.tex',
  'hollis2023trust.md',
  'kowalczyk2021pdfparse.md',
  'achterberg2019bm25sentences.tex',
];

const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-ask-'));
const db = join(dir, 'corpus');
let store: SqlCorpusStore;
let embedder: Embedder;
let standin: ChatStandin;
/** Every stored sentence by paper id (what an extract may show, word for word). */
const stored = new Map<string, Set<string>>();

before(async () => {
  store = await openPGliteStore(db);
  embedder = createEmbedder({ provider: 'offline' });
  const { ingest } = await import('../../src/core/ingest/pipeline.js');
  const summary = await ingest(
    store,
    FILES.map((f) => join(projectRoot, 'samples', 'corpus', f)),
    { embedder },
  );
  assert.equal(summary.papers, FILES.length, JSON.stringify(summary.failed));
  // A paper as the PDF reader stores one (a page and lines per sentence, the last over a page break), on a topic of its own.
  const pdfSentences = [
    [
      'Abstract',
      'Alpine glaciers lost a fifth of their ice volume between 2000 and 2020 according to repeated laser altimetry surveys.',
      1,
      { lineStart: 5, lineEnd: 7, pageEnd: 1 },
    ],
    [
      'Results',
      'Glacier melt in the Alps accelerated most strongly below 3,000 metres of altitude.',
      4,
      { lineStart: 12, lineEnd: 14, pageEnd: 4 },
    ],
    [
      'Results',
      'The thinning rate of the lowest glacier tongues reached two metres of ice per year.',
      5,
      { lineStart: 40, lineEnd: 2, pageEnd: 6 },
    ],
  ] as const;
  const vectors = await embedder.embed(pdfSentences.map((x) => x[1]));
  await store.writePapers([
    {
      id: 'pdf:glaciers',
      title: 'Alpine Glacier Thinning from Laser Altimetry',
      authors: ['Ines Gletscher'],
      year: 2021,
      sourcePath: '/papers/glaciers.pdf',
      sentences: pdfSentences.map(([section, text, page, lines], i) => ({
        sectionTitle: section,
        sectionIndex: section === 'Abstract' ? 0 : 1,
        sentenceIndex: i,
        globalIndex: i,
        page,
        ...lines,
        text,
        embedding: vectors[i],
      })),
    },
  ]);
  const text = paperTextSource(store);
  for (const s of await store.sources()) stored.set(s.id, new Set(await text.paperSentences(s.id)));
  standin = await startChatStandin(faithfulAskModel());
});

after(async () => {
  await standin?.close();
  await store?.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

function chat() {
  return new OpenAIChat({ baseURL: standin.baseURL, model: 'standin-model', apiKey: 'test-key', timeoutMs: 5000, maxRetries: 0 });
}

/** A store that counts its lookups (to show "where did you find that?" searches nothing). */
function counting(inner: CorpusStore): CorpusStore & { lookups: number } {
  const s = Object.create(inner) as CorpusStore & { lookups: number };
  s.lookups = 0;
  for (const m of ['matchVector', 'matchKeyword', 'matchHybrid', 'matchPapers', 'context'] as const) {
    (s as unknown as Record<string, unknown>)[m] = (...args: unknown[]) => {
      s.lookups++;
      return (inner[m] as (...a: unknown[]) => unknown).apply(inner, args);
    };
  }
  return s;
}

/** Citation markers of a text: only [n] of the conversation's sources may be there. */
function markers(text: string): string[] {
  return [...text.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]);
}

describe('offline (no LLM)', () => {
  test('an extract: stored evidence sentences grouped by paper, with context and sources', async () => {
    const c = newConversation();
    const t = await ask(c, 'What macro-F1 does the citation intent classifier reach?', { store, embedder });
    assert.equal(t.kind, 'extract');
    assert.equal(t.rewrite, 'none');
    assert.ok(t.citations.length > 0);
    const first = c.sources[t.citations[0] - 1];
    assert.equal(first.title, 'Classifying Citation Intent with Lexical and Positional Cues');
    assert.match(t.text, /macro-F1 of 0\.64/);
    // never invented prose: every quoted sentence is a stored sentence of its paper; the only other lines are paper headers
    for (const s of t.sentences) {
      assert.equal(s.verdict, 'extract');
      const src = c.sources[s.citations[0] - 1];
      assert.ok(stored.get(src.paperId)!.has(s.original), s.original);
    }
    for (const line of t.text.split('\n')) {
      if (/^\S/.test(line)) assert.match(line, /^.+ \([^)]*\):$/, `a paper header: ${line}`);
      else assert.match(line, /“[^”]+” \[\d+\]/);
    }
    // sources: paper, section, sentence id and position, context; no page for LaTeX (the store has none)
    assert.equal(first.section, 'Abstract');
    assert.equal(typeof first.sentenceId, 'number');
    assert.equal(first.page, null);
    assert.ok(first.previous || first.next);
    // grouped by paper: a paper's evidence lines follow its one header
    const headers = t.text.split('\n').filter((l) => /^\S/.test(l));
    assert.equal(new Set(headers).size, headers.length);
  });

  test('sources of a PDF carry the page and lines ingest stored; the extract shows them', async () => {
    const c = newConversation();
    const t = await ask(c, 'How fast did glacier melt in the Alps accelerate below 3,000 metres?', { store, embedder });
    assert.equal(t.kind, 'extract');
    const at = new Map(
      c.sources.filter((s) => s.paperId === 'pdf:glaciers').map((s) => [s.text, [s.page, s.lineStart, s.lineEnd, s.pageEnd]]),
    );
    assert.deepEqual(at.get('Glacier melt in the Alps accelerated most strongly below 3,000 metres of altitude.'), [4, 12, 14, 4]);
    const overBreak = at.get('The thinning rate of the lowest glacier tongues reached two metres of ice per year.');
    assert.deepEqual(overBreak, [5, 40, 2, 6]);
    assert.match(t.text, /Results, p\. 4, ll\. 12–14: .*“Glacier melt in the Alps accelerated/);
    assert.match(t.text, /p\. 5, l\. 40 – p\. 6, l\. 2: .*“The thinning rate/);
    const others = c.sources.filter((s) => s.paperId !== 'pdf:glaciers');
    assert.ok(
      others.length > 0 && others.every((s) => s.page === null && s.lineStart === null && s.lineEnd === null),
      'LaTeX and Markdown papers have no page or lines',
    );
  });

  test('papers first on a large corpus: the paper ranking picks the papers, their sentences are searched', async () => {
    const counted = counting(store);
    let paperRankings = 0;
    const matchPapers = counted.matchPapers.bind(counted);
    counted.matchPapers = (...args) => {
      paperRankings++;
      return matchPapers(...args);
    };
    const c = newConversation();
    const t = await ask(c, 'Which HNSW parameters reach recall@10 of 0.98 on small sentence corpora?', {
      store: counted,
      embedder,
      papersFirstAbove: 3,
    });
    assert.equal(paperRankings, 1);
    assert.equal(t.kind, 'extract');
    assert.match(c.sources[t.citations[0] - 1].title ?? '', /HNSW/);
    const small = await ask(newConversation(), 'Which HNSW parameters reach recall@10 of 0.98 on small sentence corpora?', {
      store: counted,
      embedder,
    });
    assert.equal(paperRankings, 1, 'a corpus of 8 papers is searched sentence by sentence');
    assert.equal(small.kind, 'extract');
  });

  test('"I don\'t know" when the evidence does not contain the question\'s terms', async () => {
    const c = newConversation();
    for (const q of [
      'What interest rate did the central bank set in 2023?',
      'How do honey bees communicate the location of flowers to the hive?',
    ]) {
      const t = await ask(c, q, { store, embedder });
      assert.equal(t.kind, 'unknown', `${q}: answerability ${t.answerability}`);
      assert.equal(t.text, "I don't know.");
      assert.deepEqual(t.citations, []);
    }
    assert.equal(c.sources.length, 0);
    const where = await ask(c, 'Where did you find that?', { store, embedder });
    assert.equal(where.kind, 'sources');
    assert.deepEqual(where.citations, []);
    assert.match(where.text, /no evidence for it, so it has no sources/);
  });

  test('a conversation: follow-up rewritten, numbers unique and stable, "where did you find that?" without a search, JSON round trip', async () => {
    const counted = counting(store);
    const c = newConversation();
    const t1 = await ask(c, 'Which HNSW parameters reach recall@10 of 0.98 on small sentence corpora?', { store: counted, embedder });
    const t2 = await ask(c, 'Below what size is exact search as fast as it?', { store: counted, embedder });
    assert.equal(t2.rewrite, 'terms');
    assert.match(t2.standalone, /^Below what size is exact search as fast as it\? \(.*hnsw.*\)$/i);
    assert.equal(t2.kind, 'extract');
    assert.match(t2.text, /50,000 vectors/);
    // one source list: numbers 1..N, one per stored sentence; a sentence cited again keeps its number
    assert.deepEqual(
      c.sources.map((s) => s.n),
      c.sources.map((_, i) => i + 1),
    );
    assert.equal(new Set(c.sources.map((s) => s.sentenceId)).size, c.sources.length);
    const shared = t2.citations.filter((n) => t1.citations.includes(n));
    assert.ok(shared.length > 0, 'the follow-up cites a sentence of the first answer under its first number');
    for (const n of t2.citations) assert.ok(c.sources[n - 1]);

    const before = counted.lookups;
    const t3 = await ask(c, 'Where did you find that?', { store: counted, embedder });
    assert.equal(counted.lookups, before, 'no retrieval');
    assert.equal(t3.kind, 'sources');
    assert.deepEqual(t3.citations, t2.citations);
    for (const n of t2.citations) assert.ok(t3.text.includes(`[${n}] `) && t3.text.includes(c.sources[n - 1].text));

    const again = parseConversation(serializeConversation(c));
    assert.deepEqual(again, c);
    const t4 = await ask(again, 'Which HNSW parameters reach recall@10 of 0.98 on small sentence corpora?', {
      store,
      embedder,
      threshold: 0,
    });
    assert.ok(t4.citations.every((n) => n <= again.sources.length));
    assert.ok(
      t4.citations.some((n) => t1.citations.includes(n)),
      'the same question cites the same numbers',
    );
  });

  test('a new topic mid-conversation is searched as itself: "I don\'t know" for one the corpus lacks, its own paper for one it has', async () => {
    const c = newConversation();
    await ask(c, 'Which HNSW parameters reach recall@10 of 0.98 on small sentence corpora?', { store, embedder });
    await ask(c, 'Below what size is exact search as fast as it?', { store, embedder });
    const away = await ask(c, 'What is the capital of Mongolia?', { store, embedder });
    assert.equal(away.rewrite, 'none');
    assert.equal(away.standalone, 'What is the capital of Mongolia?', 'no terms of the earlier questions appended');
    assert.equal(away.kind, 'unknown', `answerability ${away.answerability}`);
    const other = await ask(c, 'How robustly can sections be detected in scientific PDFs?', { store, embedder });
    assert.equal(other.standalone, 'How robustly can sections be detected in scientific PDFs?');
    assert.match(
      c.sources[other.citations[0] - 1].title ?? '',
      /^Robust Section Detection in Scientific PDFs/,
      'the paper whose title asks it comes first',
    );
    // A question that leans on the conversation still borrows its terms, and is gated on its own words.
    const back = await ask(c, 'And does it work for Chinese and Japanese papers?', { store, embedder });
    assert.equal(back.rewrite, 'terms');
    assert.equal(back.kind, 'unknown', `Chinese and Japanese are in no paper: ${back.answerability}`);
  });

  test('which questions lean on the conversation', () => {
    for (const q of [
      'Below what size is exact search as fast as it?',
      'What reduced that rate?',
      'And what about product quantisation with re-ranking?',
      'Why?',
      'And for dense retrievers?',
      'How much of its improvement comes from the section heading?',
      'Does this hold for abstracts too?',
    ])
      assert.ok(isFollowUp(q), q);
    for (const q of [
      'What is the capital of Mongolia?',
      'Is it true that exact search is faster than HNSW?',
      'Is there evidence that hybrid retrieval improves recall?',
      'Which paper shows that BM25 is strong?',
      'Does hybrid retrieval improve recall over BM25?',
      'How tall is Mount Everest?',
    ])
      assert.ok(!isFollowUp(q), q);
  });

  test('source questions and their look-alikes', () => {
    for (const q of [
      'Where did you find that?',
      'where do you get that from',
      'What is your source?',
      'Which paper says that?',
      'sources?',
      'Show me the sources',
      "What's the evidence?",
    ])
      assert.ok(isSourceQuestion(q), q);
    for (const q of [
      'Where do writers find example sentences?',
      'What sources of noise affect PDF parsing?',
      'Which paper proposes genre-aware ranking?',
      'How did you find the HNSW parameters?',
    ])
      assert.ok(!isSourceQuestion(q), q);
  });

  test('a saved conversation that is not one is refused with the reason', () => {
    assert.throws(() => parseConversation('{"version":2,"turns":[],"sources":[]}'), /version/);
    assert.throws(() => parseConversation('not json'), /not JSON/);
    const c: Conversation = { version: 1, turns: [], sources: [] };
    assert.deepEqual(parseConversation(serializeConversation(c)), c);
  });
});

describe('with an LLM (stand-in)', () => {
  test('a faithful model: every kept sentence cites [n] sources that back it; follow-up rewritten by the model', async () => {
    standin.setScript(faithfulAskModel());
    standin.reset();
    const c = newConversation();
    const t = await ask(c, 'How often did researchers accept erroneous suggestions from the AI writing assistant?', {
      store,
      embedder,
      chat: chat(),
    });
    assert.equal(t.kind, 'answer', JSON.stringify(t.sentences));
    assert.equal(t.counts.removedCitations, 0);
    assert.equal(t.counts.removedSentences, 0);
    assert.deepEqual(
      standin.calls.map((x) => x.step),
      ['answer', 'verify'],
    );
    for (const s of t.sentences) {
      assert.ok(s.kept && s.citations.length, s.text);
      assert.equal(s.verdict, 'supported');
      for (const m of markers(s.text)) assert.ok(/^\d+$/.test(m) && c.sources[Number(m) - 1], `[${m}] is a source`);
    }
    assert.ok(t.citations.some((n) => /^Trust and Over-Reliance/.test(c.sources[n - 1].title ?? '')));
    const t2 = await ask(c, 'What reduced that rate?', { store, embedder, chat: chat() });
    assert.equal(t2.rewrite, 'llm');
    assert.match(t2.standalone, /^How often did researchers accept erroneous suggestions.*: What reduced that rate\?$/);
    assert.ok(standin.calls.some((x) => x.step === 'rewrite'));
    assert.ok(t2.citations.every((n) => c.sources[n - 1]));
    assert.equal(new Set(c.sources.map((s) => s.sentenceId)).size, c.sources.length);
  });

  test('a model that rewrites a new topic as a follow-up: the gate reads the question as asked', async () => {
    standin.setScript(faithfulAskModel());
    const c = newConversation();
    await ask(
      c,
      'In the laboratory study, how often did researchers accept erroneous suggestions of generative writing assistants with planted errors such as a wrong number or an inverted claim?',
      { store, embedder, chat: chat() },
    );
    standin.reset();
    const t = await ask(c, 'What is the capital of Mongolia?', { store, embedder, chat: chat() });
    assert.deepEqual(
      standin.calls.map((x) => x.step),
      ['rewrite'],
      'the gate says "I don\'t know" before the model is asked to answer',
    );
    assert.equal(t.rewrite, 'llm');
    assert.match(t.standalone, /erroneous suggestions.*Mongolia/, 'the stand-in prefixes the last question');
    assert.equal(t.kind, 'unknown', `answerability of the question as asked: ${t.answerability}`);
  });

  test("onProgress: the stages in order and the model's draft streamed; the checked turn is the one asked without it", async () => {
    standin.setScript(faithfulAskModel());
    const q = 'How often did researchers accept erroneous suggestions from the AI writing assistant?';
    standin.reset();
    const quiet = await ask(newConversation(), q, { store, embedder, chat: chat() });
    assert.equal(standin.calls.find((x) => x.step === 'answer')?.stream, false, 'nobody listens: no stream');
    standin.reset();
    const events: import('../../src/core/ask/index.js').AskProgress[] = [];
    const streamed = await ask(newConversation(), q, { store, embedder, chat: chat(), onProgress: (p) => events.push(p) });
    const answerCall = standin.calls.find((x) => x.step === 'answer');
    assert.equal(answerCall?.stream, true, 'the answer is requested as a stream');
    const stages = events.filter((e) => e.kind === 'stage').map((e) => (e as { stage: string }).stage);
    assert.deepEqual(stages, ['search', 'answer', 'check'], 'a first question is not rewritten');
    const deltas = events.filter((e) => e.kind === 'draft').map((e) => (e as { delta: string }).delta);
    assert.ok(deltas.length > 3, `the draft arrives in pieces (${deltas.length})`);
    assert.match(deltas.join(''), /\[P\d+\]/, 'the draft is the raw, unchecked reply, paper ids and all');
    const ev = events.find((e) => e.kind === 'evidence');
    assert.deepEqual(ev && ev.kind === 'evidence' ? [ev.answerable, ev.sentences] : null, [true, streamed.counts.evidence]);
    assert.equal(events.indexOf(ev!) < events.findIndex((e) => e.kind === 'draft'), true, 'evidence before the draft');
    assert.deepEqual(streamed.sentences, quiet.sentences, 'streaming changes nothing in the checked answer');
    assert.equal(streamed.text, quiet.text);
    // The cost ahead comes first, before any call, from the estimator related work uses; the turn keeps it beside its trace.
    assert.equal(events[0].kind, 'estimate');
    const ahead = events[0].kind === 'estimate' ? events[0].estimate : undefined;
    assert.deepEqual(streamed.estimate, ahead);
    assert.equal(ahead?.llmCalls, 2, 'a first question: the answer and its verification');
    assert.equal(streamed.trace?.total.llmCalls, 2);
    const used = streamed.trace!.total.tokens.total;
    assert.ok(ahead!.tokens.total / used > 0.33 && ahead!.tokens.total / used < 3, `estimated ${ahead!.tokens.total} tokens, used ${used}`);
    assert.ok(ahead!.seconds >= 1);
    // A follow-up adds the rewrite; without a model there is no estimate.
    const c = newConversation();
    await ask(c, q, { store, embedder, chat: chat() });
    const followUp = await ask(c, 'What reduced that rate?', { store, embedder, chat: chat(), verify: false });
    assert.equal(followUp.estimate?.llmCalls, 2, 'the rewrite and the answer, not verified');
    assert.match(followUp.estimate!.basis, /follow-up rewrite/);
    assert.equal((await ask(newConversation(), q, { store, embedder })).estimate, undefined);
    assert.equal(parseConversation(serializeConversation(c)).turns[1].estimate?.llmCalls, 2, 'kept in the saved conversation');
  });

  test('a lying model: invented keys, unknown papers, invented numbers and raw citations never reach the answer', async () => {
    standin.setScript(liarAskModel());
    const c = newConversation();
    const t = await ask(c, 'How much recall@10 does scalar 8-bit quantisation of sentence embeddings lose?', {
      store,
      embedder,
      chat: chat(),
    });
    assert.equal(t.kind, 'answer');
    assert.doesNotMatch(t.text, ASK_LIES);
    assert.ok(t.counts.removedSentences >= 4, `removed ${t.counts.removedSentences}`);
    assert.ok(t.counts.removedCitations >= 2, `removed citations ${t.counts.removedCitations}`);
    for (const m of markers(t.text)) assert.ok(/^\d+$/.test(m) && c.sources[Number(m) - 1], `[${m}] is a source`);
    for (const s of t.sentences.filter((x) => !x.kept)) assert.ok(s.reasons.length, s.original);
    // a copied evidence sentence is a quotation, never an unquoted copy
    const shingles = new ShingleIndex(
      [...stored].flatMap(([paperId, ss]) => [...ss].map((text) => ({ text, paperId }))),
      12,
    );
    assert.deepEqual(shingles.find(stripQuotations(t.text)), []);
  });

  test('a model whose every claim is invented: the check leaves nothing, so "I don\'t know"', async () => {
    standin.setScript(inventorAskModel());
    const c = newConversation();
    const t = await ask(c, 'How much recall@10 does scalar 8-bit quantisation of sentence embeddings lose?', {
      store,
      embedder,
      chat: chat(),
    });
    assert.equal(t.kind, 'unknown');
    assert.equal(t.text, "I don't know.");
    assert.equal(t.sentences.filter((s) => !s.kept).length, 1);
    assert.equal(c.sources.length, 0);
  });

  test('below the threshold the model is not asked', async () => {
    standin.setScript(liarAskModel());
    standin.reset();
    const t = await ask(newConversation(), 'What interest rate did the central bank set in 2023?', { store, embedder, chat: chat() });
    assert.equal(t.kind, 'unknown');
    assert.equal(standin.calls.length, 0);
  });
});

describe('corpus-lens ask', () => {
  function run(args: string[], env: NodeJS.ProcessEnv = {}) {
    let stdout = '';
    let stderr = '';
    const cmd = createAskCommand({ env, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return cmd.run(args).then((code) => ({ code, stdout, stderr }));
  }

  before(async () => {
    await store.close(); // the command opens the folder itself
  });

  test('--json: the documented shape; --history is read, extended and written back', async () => {
    const history = join(dir, 'conversation.json');
    const r1 = await run(['--db', db, '--history', history, '--json', 'What macro-F1 does the citation intent classifier reach?']);
    assert.equal(r1.code, 0);
    const j1 = JSON.parse(r1.stdout);
    assert.deepEqual(Object.keys(j1), [
      'question',
      'standalone',
      'rewrite',
      'kind',
      'answered',
      'text',
      'sentences',
      'citations',
      'sources',
      'answerability',
      'threshold',
      'counts',
      'model',
      'conversation',
      'elements',
      'filters',
      'trace',
      'estimate',
    ]);
    assert.equal(j1.filters, null, 'the question states no filter');
    assert.equal(j1.estimate, null, 'no model: nothing to estimate');
    // Each stage timed; offline, no model call and no token.
    assert.deepEqual(
      j1.trace.steps.map((s: { step: string }) => s.step),
      ['search', 'elements'],
    );
    assert.equal(j1.trace.total.tokens.total, 0);
    assert.equal(j1.trace.total.llmCalls, 0);
    assert.equal(j1.kind, 'extract');
    assert.equal(j1.answered, true);
    assert.equal(j1.model, null);
    assert.deepEqual(
      j1.sources.map((s: { n: number }) => s.n),
      j1.citations,
    );
    for (const s of j1.sources)
      for (const k of [
        'paperId',
        'citationKey',
        'title',
        'section',
        'sentenceId',
        'text',
        'previous',
        'next',
        'page',
        'lineStart',
        'lineEnd',
        'pageEnd',
      ])
        assert.ok(k in s, k);
    assert.deepEqual(Object.keys(j1.counts), [
      'evidence',
      'papers',
      'unverifiedEvidence',
      'removedSentences',
      'removedCitations',
      'llmCalls',
      'ms',
      'modelMs',
    ]);
    const saved = parseConversation(readFileSync(history, 'utf8'));
    assert.equal(saved.turns.length, 1);

    standin.setScript(faithfulAskModel());
    const r2 = await run(
      [
        '--db',
        db,
        '--history',
        history,
        '--llm-base-url',
        standin.baseURL,
        '--llm-model',
        'standin-model',
        '--json',
        'How much of its improvement comes from the section heading?',
      ],
      { OPENAI_API_KEY: 'sk-test' },
    );
    assert.equal(r2.code, 0, r2.stderr);
    const j2 = JSON.parse(r2.stdout);
    assert.equal(j2.rewrite, 'llm');
    assert.equal(j2.model, 'standin-model');
    assert.equal(j2.conversation.turns, 2);
    assert.ok(j2.citations.every((n: number) => n >= 1 && n <= j2.conversation.sources));
    const r3 = await run(['--db', db, '--history', history, 'where did you find that?']);
    assert.equal(r3.code, 0);
    for (const n of j2.citations) assert.match(r3.stdout, new RegExp(`^\\[${n}\\] `, 'm'));
    assert.equal(parseConversation(readFileSync(history, 'utf8')).turns.length, 3);
  });

  test('text output: the answer, then its sources; "I don\'t know" is an answer (exit 0)', async () => {
    const r = await run(['--db', db, '--quiet', 'What macro-F1 does the citation intent classifier reach?']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /\n\nSources:\n\[1\] Classifying Citation Intent/);
    assert.equal(r.stderr, '');
    const u = await run(['--db', db, 'What interest rate did the central bank set in 2023?']);
    assert.equal(u.code, 0);
    assert.equal(u.stdout, "I don't know.\n");
    assert.match(u.stderr, /I don't know \(answerability 0\.\d+, threshold 0\.735\)/);
  });

  test('"since 2020" is a filter: only sources from 2020 on, its words not searched, named in --json and on stderr', async () => {
    const question = 'How is sentence retrieval evaluated';
    const all = JSON.parse((await run(['--db', db, '--json', `${question}?`])).stdout);
    // Without the filter the answer cites a paper from before 2020, so the filtered run has something to leave out.
    assert.ok(
      all.sources.some((s: { year: number }) => s.year < 2020),
      JSON.stringify(all.sources.map((s: { year: number }) => s.year)),
    );
    const r = await run(['--db', db, '--json', `${question} in papers since 2020?`]);
    assert.equal(r.code, 0);
    const since = JSON.parse(r.stdout);
    assert.deepEqual(since.filters, { yearMin: 2020, yearMax: null, venues: [], phrases: ['since 2020'] });
    assert.equal(since.answered, true);
    assert.ok(since.sources.length > 0);
    for (const s of since.sources) assert.ok(s.year >= 2020, `${s.citationKey} (${s.year})`);
    assert.match(r.stderr, /filters from the question: years 2020 on \(from "since 2020"\)/);
    // A venue the corpus's papers name: only that venue's papers.
    const venue = JSON.parse((await run(['--db', db, '--json', `${question} at SDProc?`])).stdout);
    assert.deepEqual(venue.filters?.venues, ['SDProc']);
    assert.ok(venue.sources.length > 0);
    for (const s of venue.sources) assert.equal(s.paperId, venue.sources[0].paperId);
  });

  test('the built corpus-lens lists ask and exits 1 with one line on a missing corpus', async () => {
    const help = await runCli(['--help']);
    assert.match(help.stdout, /^ {2}ask +answer a question from the corpus/m);
    const usage = await runCli(['ask', '--help']);
    assert.equal(usage.code, 0);
    assert.match(usage.stdout, /--json prints \{question, standalone/);
    const missing = await runCli(['ask', '--db', join(dir, 'no-such-corpus'), 'What is BM25?']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
    assert.match(missing.stderr, /^corpus-lens: no corpus at /);
  });

  test('bad input: one clear error each; a bad history file is left as it was', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"version":1,"turns":"many"}');
    await assert.rejects(
      run(['--db', db, '--history', bad, 'a question']),
      /--history .*bad\.json is not a Corpus Lens conversation \(version 1\): turns/,
    );
    assert.equal(readFileSync(bad, 'utf8'), '{"version":1,"turns":"many"}');
    await assert.rejects(run(['--db', db]), /give the question/);
    await assert.rejects(run(['--db', db, '--threshold', '2', 'q']), /--threshold must be a number from 0 to 1/);
    await assert.rejects(run(['--db', db, '--verify', 'maybe', 'q']), /--verify must be on or off/);
    await assert.rejects(run(['q']), /--db is required/);
    assert.ok(!existsSync(join(dir, 'missing.json')));
  });
});

describe('element cards (figures, tables, equations) beside an answer', () => {
  test('a table on the page of a cited PDF sentence is linked; a sample paper\'s figure matching the question is direct; "where did you find that?" shows them again', async () => {
    // The CLI tests above closed the shared store (their child processes open the corpus): open it again.
    const store = await openPGliteStore(db);
    // A PDF-like paper: two sentences on page 3 and the table printed on that page, one sentence on page 7.
    const sentences = [
      ['Results', 'Arctic sea ice reached its smallest September extent of the decade in 2020.', 3],
      ['Results', 'The September minimum of Arctic sea ice shrank by about thirteen percent per decade.', 3],
      ['Discussion', 'Thinner multiyear ice melts faster in warm summers.', 7],
    ] as const;
    const vectors = await embedder.embed([
      ...sentences.map((s) => s[1]),
      'Table 2 Arctic sea ice extent in September by year Year | Extent 2012 | 3.4 2020 | 3.9',
    ]);
    await store.writePapers([
      {
        id: 'pdf:seaice',
        title: 'Arctic Sea Ice Minima',
        year: 2022,
        sentences: sentences.map(([section, text, page], i) => ({
          sectionTitle: section,
          sectionIndex: section === 'Results' ? 0 : 1,
          sentenceIndex: i === 2 ? 0 : i,
          globalIndex: i,
          page,
          text,
          embedding: vectors[i],
        })),
        elements: [
          {
            type: 'table',
            label: 'Table 2',
            caption: 'Arctic sea ice extent in September by year.',
            content: 'Year | Extent\n2012 | 3.4\n2020 | 3.9',
            sectionTitle: 'Results',
            sectionIndex: 0,
            afterSentence: 1,
            page: 3,
            bbox: [72, 400, 540, 480],
            elementIndex: 0,
            embedding: vectors[3],
          },
        ],
      },
    ]);
    try {
      const c = newConversation();
      const t = await ask(c, 'How much did the September minimum of Arctic sea ice shrink per decade?', { store, embedder });
      assert.equal(t.kind, 'extract');
      const table = t.elements?.find((e) => e.label === 'Table 2');
      assert.ok(table, JSON.stringify(t.elements));
      assert.equal(table.paperId, 'pdf:seaice');
      assert.equal(table.page, 3);
      assert.deepEqual(table.bbox, [72, 400, 540, 480]);
      assert.equal(table.caption, 'Arctic sea ice extent in September by year.');
      // Linked or direct, it sits beside a cited sentence of its page.
      const cited = t.citations.map((n) => c.sources[n - 1]);
      assert.ok(cited.some((s) => s.paperId === 'pdf:seaice' && s.page === 3));
      if (table.match === 'linked') assert.ok(table.source !== null && cited.some((s) => s.n === table.source));
      const md = (await import('../../src/core/ask/markdown.js')).conversationMarkdown(c);
      assert.match(
        md,
        /### Figures, tables and equations\n\n- \*\*Table 2\*\* \\\(table, section “Results”, p\\\. 3\\\) “Arctic sea ice extent in September by year\\\.” — Arctic Sea Ice Minima/,
      );
      const where = await ask(c, 'where did you find that?', { store, embedder });
      assert.equal(where.kind, 'sources');
      assert.deepEqual(where.elements, t.elements);
      const roundTrip = parseConversation(serializeConversation(c));
      assert.deepEqual(roundTrip.turns[0].elements, t.elements, 'cards survive the saved conversation');

      // The sample corpus's own LaTeX figure (falk2024quantization: Recall@10 against memory per vector, with and
      // without re-ranking) is shown for a question its caption answers.
      const q = await ask(newConversation(), 'How does Recall@10 change with the memory per vector, with and without re-ranking?', {
        store,
        embedder,
      });
      assert.ok(q.kind !== 'unknown');
      const fig = q.elements?.find((e) => e.type === 'figure' && e.label === 'Figure 1' && /memory per vector/.test(e.caption ?? ''));
      assert.ok(fig, JSON.stringify(q.elements));
      assert.equal(fig.page, null);

      // An unrelated question shows no card; "I don't know" never does.
      const none = await ask(newConversation(), 'What interest rate did the central bank set in 2023?', { store, embedder });
      assert.equal(none.kind, 'unknown');
      assert.equal(none.elements, undefined);
    } finally {
      await store.deletePapers(['pdf:seaice']);
      await store.close();
    }
  });

  test("a figure on the page of a cited sentence is shown even when it is also among the direct matches and its caption shares few of the question's words", async () => {
    const store = await openPGliteStore(db);
    const text = 'Glacier meltwater runoff in Greenland doubled between 1990 and 2020 according to the gauge records.';
    const caption = 'Schematic of the river gauge station.';
    const [v, e] = await embedder.embed([text, `Figure 4 ${caption}`]);
    await store.writePapers([
      {
        id: 'pdf:glacier',
        title: 'Greenland Runoff Records',
        year: 2021,
        sentences: [{ sectionTitle: 'Results', sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, page: 5, text, embedding: v }],
        elements: [
          {
            type: 'figure',
            label: 'Figure 4',
            caption,
            content: null,
            sectionTitle: 'Results',
            sectionIndex: 0,
            afterSentence: 0,
            page: 5,
            bbox: [72, 300, 540, 500],
            elementIndex: 0,
            embedding: e,
          },
        ],
      },
    ]);
    try {
      const c = newConversation();
      const t = await ask(c, 'How much did glacier meltwater runoff in Greenland grow between 1990 and 2020?', { store, embedder });
      assert.notEqual(t.kind, 'unknown');
      const cited = t.citations.map((n) => c.sources[n - 1]);
      const page5 = cited.find((s) => s.paperId === 'pdf:glacier' && s.page === 5);
      assert.ok(page5, 'the page-5 sentence is cited');
      const fig = t.elements?.find((x) => x.label === 'Figure 4');
      assert.ok(fig, `the figure printed beside the cited sentence is shown: ${JSON.stringify(t.elements)}`);
      assert.equal(fig.source, page5.n, 'and says which cited source brought it');
    } finally {
      await store.deletePapers(['pdf:glacier']);
      await store.close();
    }
  });
});
