// npm test runs this file alone: retry waits bounded from both sides.
// One retry policy (src/core/net/retry.ts) for both OpenAI-compatible clients: the embedding client
// (OpenAIEmbedder, against the /v1/embeddings stand-in, test/support/openai-standin.ts) and the chat client
// (OpenAIChat, against the /v1/chat/completions stand-in, test/support/chat-standin.ts), both driven through the real
// `openai` package. The same statuses are retried by both, a Retry-After is waited out by both, and a request's
// own fault (400, 401, 403, 404, 422) is sent exactly once by both.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenAIEmbedder } from '../../src/core/embed/openai.ts';
import { OpenAIChat } from '../../src/core/llm/chat.ts';
import { backoffMs, isRetryableStatus, retryWaitMs } from '../../src/core/net/retry.ts';
import { startStandin, type Standin } from '../support/openai-standin.ts';
import { startChatStandin, type ChatStandin, type Reply } from '../support/chat-standin.ts';

const RETRIED = [408, 409, 425, 429, 500, 502, 503, 504, 529];
const NOT_RETRIED = [400, 401, 403, 404, 422, 501];

test('the policy: which statuses, and how long to wait', () => {
  for (const s of RETRIED) assert.equal(isRetryableStatus(s), true, String(s));
  for (const s of [...NOT_RETRIED, 200, 302, 505, undefined]) assert.equal(isRetryableStatus(s), false, String(s));
  const b = { baseMs: 100, maxMs: 1000 };
  assert.equal(
    backoffMs(0, b, () => 0),
    50,
    'equal jitter: at least half the step',
  );
  assert.equal(
    backoffMs(2, b, () => 1),
    400,
  );
  assert.equal(
    backoffMs(10, b, () => 1),
    1000,
    'capped',
  );
  assert.equal(retryWaitMs(0, b, new Headers({ 'retry-after': '0.3' })), 300, 'Retry-After wins over backoff');
  assert.equal(retryWaitMs(0, b, new Headers({ 'retry-after-ms': '20', 'retry-after': '5' })), 20, 'retry-after-ms first');
  assert.equal(retryWaitMs(0, b, new Headers({ 'retry-after': '60' })), 1000, 'and capped');
});

/** Both clients behind one face: run one request against a server whose first answer is `status`. */
interface Client {
  name: string;
  /** Requests the server saw in this run. */
  run(
    status: number,
    headers?: { retryAfter?: string; retryAfterMs?: string },
  ): Promise<{ ok: boolean; requests: number; error?: Error & { status?: number } }>;
}

describe('both clients retry the same statuses, honour Retry-After, and send a bad request once', () => {
  let embed: Standin;
  let chat: ChatStandin;
  let failFirst: { status: number; retryAfter?: string; retryAfterMs?: string } | undefined;
  const clients: Client[] = [];

  before(async () => {
    embed = await startStandin({ defaultDim: 4 });
    chat = await startChatStandin((call): Reply => {
      if (call.n === 1 && failFirst) return { ...failFirst, message: `scripted ${failFirst.status}` };
      return { content: 'fine' };
    });
    clients.push(
      {
        name: 'embedding client',
        async run(status, h = {}) {
          embed.reset();
          embed.script({ kind: 'status', status, ...h });
          const e = new OpenAIEmbedder({
            baseURL: embed.baseURL,
            model: 'm',
            maxRetries: 2,
            retryBaseMs: 1,
            retryMaxMs: 2000,
            timeoutMs: 5000,
          });
          try {
            await e.embed(['a sentence']);
            return { ok: true, requests: embed.requests.length };
          } catch (error) {
            return { ok: false, requests: embed.requests.length, error: error as Error };
          }
        },
      },
      {
        name: 'chat client',
        async run(status, h = {}) {
          chat.reset();
          failFirst = { status, ...h };
          const c = new OpenAIChat({
            baseURL: chat.baseURL,
            model: 'm',
            maxRetries: 2,
            baseRetryDelayMs: 1,
            maxRetryDelayMs: 2000,
            timeoutMs: 5000,
          });
          try {
            await c.complete({ step: 'test', messages: [{ role: 'user', content: 'hi' }] });
            return { ok: true, requests: chat.calls.length };
          } catch (error) {
            return { ok: false, requests: chat.calls.length, error: error as Error };
          } finally {
            failFirst = undefined;
          }
        },
      },
    );
  });
  after(async () => {
    await embed.close();
    await chat.close();
  });

  test('429 and 5xx: retried, then the answer', async () => {
    for (const client of clients) {
      for (const status of RETRIED) {
        const r = await client.run(status);
        assert.deepEqual({ ok: r.ok, requests: r.requests }, { ok: true, requests: 2 }, `${client.name}, ${status}: ${r.error?.message}`);
      }
    }
  });

  test('a Retry-After is waited out (seconds, and retry-after-ms), not the 1 ms backoff', async () => {
    for (const client of clients) {
      for (const [h, ms] of [
        [{ retryAfter: '0.3' }, 300],
        [{ retryAfterMs: '250', retryAfter: '5' }, 250],
      ] as const) {
        const t0 = performance.now();
        const r = await client.run(429, h);
        const waited = performance.now() - t0;
        assert.equal(r.ok, true, `${client.name}: ${r.error?.message}`);
        assert.equal(r.requests, 2);
        assert.ok(waited >= ms - 5, `${client.name}: retried after ${waited.toFixed(0)} ms, the server asked for ${ms}`);
        assert.ok(waited < 2000, `${client.name}: waited ${waited.toFixed(0)} ms, not retry-after's 5 s (retry-after-ms wins)`);
      }
    }
  });

  test("400, 401, 403, 404, 422 and 501: the request's fault, sent once, the status in the error", async () => {
    for (const client of clients) {
      for (const status of NOT_RETRIED) {
        const r = await client.run(status, { retryAfter: '0' });
        assert.equal(r.ok, false, `${client.name}, ${status}`);
        assert.equal(r.requests, 1, `${client.name}, ${status}: sent ${r.requests} times`);
        assert.equal(r.error?.status, status, `${client.name}: ${r.error?.message}`);
      }
    }
  });
});
