/**
 * The LLM response cache and the fallback model as the CLI uses them (`review`, `ask`) against the
 * /v1/chat/completions stand-in: what reaches the server is counted there, what the run says is read from --json.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder } from '../../src/core/embed/index.js';
import { openPGliteStore } from '../../src/core/store/backends/pglite.js';
import { faithfulAskModel } from '../support/ask-models.ts';
import { loadCorpus, REVIEW_CORPUS, reviewModel, startChatStandin, type ChatCall, type ChatStandin } from '../support/chat-standin.ts';
import { runCli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-llm-cache-cli-'));
const db = join(dir, 'corpus');
const TOPIC = 'Retrieval of prior sentences and grounded citations for writing related work sections';
let standin: ChatStandin;

before(async () => {
  const store = await openPGliteStore(db);
  await loadCorpus(store, createEmbedder({ provider: 'offline' }), REVIEW_CORPUS);
  await store.close();
  standin = await startChatStandin(reviewModel());
});
after(async () => {
  await standin?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A request as the server saw it: what the cache must tell apart. */
const requestOf = (c: ChatCall) => JSON.stringify([c.body.model, c.messages]);
/** Every request sent by the review runs that share the cache folder below. */
const sent = new Set<string>();

interface StepJson {
  step: string;
  durationMs: number;
  llmCalls: number;
  cachedCalls: number;
  tokens: { total: number };
  fallback?: { model: string; calls: number };
}

async function review(cache: string, extra: string[] = [], topic = TOPIC) {
  standin.reset();
  const r = await runCli(
    ['review', '--db', db, '--topic', topic, '--llm-base-url', standin.baseURL, '--llm-model', 'primary', '--json', '--quiet', ...extra],
    { env: { CORPUS_LENS_CACHE_DIR: cache, OPENAI_API_KEY: 'k' } },
  );
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  const steps = new Map<string, StepJson>(j.trace.steps.map((s: StepJson) => [s.step, s]));
  const calls = [...standin.calls];
  const before = new Set(sent);
  if (cache !== 'off') calls.forEach((c) => sent.add(requestOf(c)));
  return { j, steps, calls, before };
}

describe('review: the response cache', () => {
  const cache = join(dir, 'cache');
  test('a second identical run makes no call and writes the same section; its tokens are zero and said cached', async () => {
    standin.setScript(reviewModel());
    const first = await review(cache);
    assert.ok(first.calls.length >= 5, `${first.calls.length} calls`);
    assert.equal(first.j.counts.llmCalls, first.calls.length);
    assert.equal(first.j.counts.cachedCalls, 0);
    // The cost told before the run and refined after retrieval and the plan: after the plan the calls are counted
    // exactly (no repair was needed); tokens are typical sizes, so only their order of magnitude is checked.
    const estimates = first.j.trace.estimates as { at: string; llmCalls: number; tokens: { total: number }; seconds: number }[];
    assert.deepEqual(
      estimates.map((e) => e.at),
      ['start', 'retrieve', 'plan'],
    );
    assert.ok(estimates[0].llmCalls >= first.calls.length, 'the start estimate is an upper bound');
    assert.equal(estimates[2].llmCalls, first.calls.length);
    const ratio = estimates[2].tokens.total / first.j.trace.total.tokens.total;
    assert.ok(ratio > 0.33 && ratio < 3, `estimated ${estimates[2].tokens.total} tokens, used ${first.j.trace.total.tokens.total}`);
    for (const s of first.steps.values()) assert.ok(s.durationMs >= 0 && (s.llmCalls === 0 || s.tokens.total > 0), s.step);

    const second = await review(cache);
    assert.equal(second.calls.length, 0, 'no request reached the endpoint');
    assert.equal(second.j.text, first.j.text);
    assert.equal(second.j.counts.llmCalls, 0);
    assert.equal(second.j.counts.cachedCalls, first.calls.length);
    assert.equal(second.j.counts.tokens, 0);
    for (const s of second.steps.values()) assert.equal(s.tokens.total, 0, s.step);

    // The output format is not in any prompt: a Markdown re-run is answered from the cache too.
    const markdown = await review(cache, ['--format', 'markdown']);
    assert.equal(markdown.calls.length, 0);
    // --no-llm-cache asks again.
    const bypass = await review(cache, ['--no-llm-cache']);
    assert.equal(bypass.calls.length, first.calls.length);
  });

  test('after an edit only the changed prompts are asked: fewer papers re-ask the plan and the writing, not the quotes', async () => {
    standin.setScript(reviewModel());
    // The cache holds the previous test's run.
    const fewer = await review(cache, ['--papers', '2']);
    const at = (step: string) => fewer.steps.get(step)!;
    // Decomposition and reranking saw the same prompts; each kept paper's quote prompt is the one asked before.
    assert.deepEqual([at('decompose').llmCalls, at('rerank').llmCalls, at('quotes').llmCalls], [0, 0, 0]);
    assert.ok(at('quotes').cachedCalls > 0 && at('decompose').cachedCalls > 0);
    assert.ok(at('plan').llmCalls + at('write').llmCalls > 0, 'the plan over fewer quotes is a new prompt');
    assert.equal(fewer.j.counts.llmCalls, fewer.calls.length);

    // An edited topic is in every step's prompt: all of them are new, and none was sent twice.
    const full = await review(cache, [], 'Grounded citations for related work writing, and retrieval of prior sentences');
    assert.ok(full.calls.length > 0);
    assert.ok(
      full.calls.every((c) => !full.before.has(requestOf(c))),
      'a request asked before reached the endpoint again',
    );
    assert.equal(new Set(full.calls.map(requestOf)).size, full.calls.length, 'no request sent twice in one run');
  });
});

describe('review: the fallback model', () => {
  test('the primary answering 500: the fallback writes the section and the trace names it', async () => {
    const model = reviewModel();
    // retry-after-ms: 1, honoured by the client: the primary's 3 retries happen (counted below) without their backoff.
    standin.setScript((c) => (c.body.model === 'primary' ? { status: 500, retryAfterMs: '1', message: 'overloaded' } : model(c)));
    const r = await review('off', ['--llm-fallback-model', 'backup']);
    assert.equal(r.j.mode, 'review');
    assert.ok(r.j.sections.length > 0);
    const answered = r.calls.filter((c) => c.body.model === 'backup').length;
    assert.equal(r.j.trace.total.fallback.model, 'backup');
    assert.equal(r.j.trace.total.fallback.calls, answered);
    assert.equal(r.steps.get('decompose')!.fallback?.model, 'backup');
    // 1 + 3 retries of the primary, once: then the rest of the run went to the fallback.
    assert.equal(r.calls.filter((c) => c.body.model === 'primary').length, 4);
  });
});

describe('ask: the response cache', () => {
  test('the same question twice: the second makes no call; the trace counts the cached answers', async () => {
    const cache = join(dir, 'ask-cache');
    standin.setScript(faithfulAskModel());
    const run = async () => {
      standin.reset();
      const r = await runCli(
        [
          'ask',
          '--db',
          db,
          '--llm-base-url',
          standin.baseURL,
          '--llm-model',
          'primary',
          '--json',
          '--quiet',
          'How are related work sentences retrieved?',
        ],
        { env: { CORPUS_LENS_CACHE_DIR: cache, OPENAI_API_KEY: 'k' } },
      );
      assert.equal(r.code, 0, r.stderr);
      return { j: JSON.parse(r.stdout), calls: standin.calls.length };
    };
    const first = await run();
    assert.equal(first.j.kind, 'answer', first.j.text);
    assert.equal(first.j.counts.llmCalls, first.calls);
    const second = await run();
    assert.equal(second.calls, 0);
    assert.equal(second.j.text, first.j.text);
    assert.equal(second.j.counts.llmCalls, 0);
    assert.equal(second.j.trace.total.cachedCalls, first.calls);
    assert.equal(second.j.trace.total.tokens.total, 0);
  });
});
