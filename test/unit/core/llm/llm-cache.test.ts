// The response cache and the fallback model (llm/cache.ts, llm/fallback.ts, llm/open.ts), with the real `openai`
// client against the /v1/chat/completions stand-in: what reaches the server is counted there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { completeJson, LlmError, openChat, type ChatModel, type ChatRequest } from '../../../../src/core/llm/index.js';
import { startChatStandin, type ChatStandin, type Reply, type Script } from '../../../support/chat-standin.ts';

let standin: ChatStandin;
const dirs: string[] = [];
function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'corpus-lens-llm-cache-'));
  dirs.push(d);
  return d;
}
before(async () => {
  standin = await startChatStandin(() => ({ content: 'unset' }));
});
after(async () => {
  await standin.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function use(script: Script): void {
  standin.setScript(script);
  standin.reset();
}

const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  step: 'test',
  messages: [
    { role: 'system', content: 'step: test.' },
    { role: 'user', content },
  ],
  ...extra,
});

/** A model as the CLI and VS Code open it, at the stand-in, with a short timeout and fast retries for the tests. */
function model(o: { cacheDir?: string; fallbackModel?: string; timeoutMs?: number } = {}): ChatModel {
  return openChat({ baseURL: standin.baseURL, model: 'primary', apiKey: 'k', timeoutMs: 5000, client: { baseRetryDelayMs: 5 }, ...o });
}

describe('the response cache', () => {
  test('a second process asking the same thing makes no call; another prompt, model or parameter does', async () => {
    const dir = freshDir();
    use((c) => ({ content: `answer to ${c.messages[1].content} from ${c.body.model}` }));
    const first = await model({ cacheDir: dir }).complete(ask('one'));
    assert.equal(first.usage.cached, undefined);
    assert.ok(first.usage.totalTokens > 0);
    assert.equal(standin.calls.length, 1);

    const again = model({ cacheDir: dir }); // a new client, as a re-run builds
    const r = await again.complete(ask('one'));
    assert.equal(r.text, first.text);
    assert.deepEqual(r.usage, { promptTokens: 0, completionTokens: 0, totalTokens: 0, cached: true });
    assert.equal(standin.calls.length, 1, 'answered from disk');

    await again.complete(ask('two'));
    await again.complete(ask('one', { temperature: 0 }));
    await again.complete(ask('one', { json: true }));
    await openChat({ baseURL: standin.baseURL, model: 'other', apiKey: 'k', cacheDir: dir }).complete(ask('one'));
    assert.equal(standin.calls.length, 5, 'each differs from the cached request');
    assert.ok(readdirSync(dir).every((f) => f.endsWith('.llm')));
  });

  test('a streamed step gets the cached text through onToken', async () => {
    const dir = freshDir();
    use(() => ({ content: 'streamed words come back' }));
    await model({ cacheDir: dir }).complete(ask('s', { onToken: () => undefined }));
    const deltas: string[] = [];
    const r = await model({ cacheDir: dir }).complete(ask('s', { onToken: (d) => deltas.push(d) }));
    assert.equal(standin.calls.length, 1);
    assert.equal(deltas.join(''), 'streamed words come back');
    assert.equal(r.usage.cached, true);
  });

  test('errors, answers cut at max_tokens, empty answers and JSON that needed a repair are not kept', async () => {
    const dir = freshDir();
    const replies: Reply[] = [{ status: 400, message: 'bad' }, { content: 'cut sho', finish: 'length' }, { content: '' }];
    use(() => replies.shift() ?? { content: 'whole answer' });
    const m = model({ cacheDir: dir });
    await assert.rejects(m.complete(ask('q')), LlmError);
    assert.equal((await m.complete(ask('q'))).text, 'cut sho');
    assert.equal((await m.complete(ask('q'))).text, '');
    assert.equal((await m.complete(ask('q'))).text, 'whole answer');
    assert.equal((await m.complete(ask('q'))).usage.cached, true);
    assert.equal(standin.calls.length, 4);

    // The first reply does not parse and its repair does: only the repair is kept (under its own request), so a re-run
    // asks the first request again (it may parse now); what parses is kept and answers the run after.
    const schema = z.object({ n: z.number() });
    const json: Reply[] = [{ content: 'not json' }, { content: '{"n": 1}' }];
    use(() => json.shift() ?? { content: '{"n": 2}' });
    const one = await completeJson(model({ cacheDir: dir }), { ...ask('j'), schema });
    assert.deepEqual([one.value, one.calls], [{ n: 1 }, 2]);
    const two = await completeJson(model({ cacheDir: dir }), { ...ask('j'), schema });
    assert.deepEqual(two.value, { n: 2 });
    assert.equal(standin.calls.length, 3, 'the unparsable first reply was asked again');
    const three = await completeJson(model({ cacheDir: dir }), { ...ask('j'), schema });
    assert.deepEqual(three.value, { n: 2 });
    assert.equal(standin.calls.length, 3);
  });
});

describe('the fallback model', () => {
  test('the primary answering 500 (after retries) or unknown (404): the fallback answers and says so', async () => {
    for (const status of [500, 404]) {
      use((c) => (c.body.model === 'primary' ? { status } : { content: `from ${c.body.model}` }));
      const m = model({ fallbackModel: 'backup' });
      const r = await m.complete(ask('q'));
      assert.equal(r.text, 'from backup');
      assert.equal(r.usage.model, 'backup');
      // The primary is given up for the rest of the run: the next request goes to the fallback at once.
      const before = standin.calls.filter((c) => c.body.model === 'primary').length;
      await m.complete(ask('q2'));
      assert.equal(standin.calls.filter((c) => c.body.model === 'primary').length, before, `${status}`);
    }
  });

  test('a primary that times out: the fallback answers', async () => {
    use((c) => (c.body.model === 'primary' ? { hang: true } : { content: 'in time' }));
    const r = await model({ fallbackModel: 'backup', timeoutMs: 300 }).complete(ask('q'));
    assert.equal(r.text, 'in time');
    assert.equal(r.usage.model, 'backup');
  });

  test('not on a wrong key (401) or a bad request (400): the primary\u2019s error stands', async () => {
    for (const status of [401, 400]) {
      use((c) => (c.body.model === 'primary' ? { status, message: `scripted ${status}` } : { content: 'never' }));
      await assert.rejects(model({ fallbackModel: 'backup' }).complete(ask('q')), (e: LlmError) => e.status === status);
      assert.ok(standin.calls.every((c) => c.body.model === 'primary'));
    }
  });

  test('both failing: one error naming both models', async () => {
    use(() => ({ status: 503 }));
    await assert.rejects(model({ fallbackModel: 'backup' }).complete(ask('q')), /fallback model backup, after the primary primary failed/);
  });

  test('with the cache: a fallback answer is kept under the fallback, never under the primary', async () => {
    const dir = freshDir();
    use((c) => (c.body.model === 'primary' ? { status: 500 } : { content: 'backup says' }));
    await model({ cacheDir: dir, fallbackModel: 'backup' }).complete(ask('q'));
    use((c) => ({ content: `${c.body.model} says` }));
    const r = await model({ cacheDir: dir, fallbackModel: 'backup' }).complete(ask('q'));
    assert.equal(r.text, 'primary says', 'the primary is back: it answers');
    assert.equal(standin.calls.length, 1);
  });
});
