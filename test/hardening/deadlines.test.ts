// npm test runs this file alone: hangs must end within wall-clock deadlines.
// Hangs end within a deadline with a clear error: an endpoint that sends its headers and then one byte a second
// (embeddings, chat, both non-streamed and streamed) and a Supabase host that accepts connections and never
// answers. Stand-ins on 127.0.0.1 only; each holds a connection at most until the client gives up (closed in after()).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { OpenAIEmbedder } from '../../src/core/embed/openai.ts';
import { OpenAIChat } from '../../src/core/llm/chat.ts';
import { openSupabaseStore } from '../../src/core/store/backends/supabase.ts';

const open = new Set<ServerResponse>();
const sockets = new Set<Socket>();
/** Answers every request with 200 and its headers, then one byte a second (JSON never completes). */
const trickle: Server = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const sse = /"stream":\s*true/.test(body);
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
    open.add(res);
    const chunk = () => (sse ? `data: {"choices":[{"delta":{"content":"a"}}]}\n\n` : ' ');
    res.write(sse ? chunk() : '{');
    const timer = setInterval(() => res.write(chunk()), sse ? 200 : 1000);
    res.on('close', () => {
      clearInterval(timer);
      open.delete(res);
    });
  });
});
/** Accepts TCP connections and never says a word. */
const silent = createTcpServer((s) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
const listen = (s: Server | ReturnType<typeof createTcpServer>) =>
  new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
let trickPort = 0;
let silentPort = 0;
before(async () => {
  [trickPort, silentPort] = await Promise.all([listen(trickle), listen(silent)]);
});
after(() => {
  for (const r of open) r.destroy();
  for (const s of sockets) s.destroy();
  trickle.close();
  silent.close();
});

async function endsWithin<T>(ms: number, p: Promise<T>, pattern: RegExp): Promise<void> {
  const t0 = Date.now();
  await assert.rejects(p, (err: Error) => {
    assert.match(err.message, pattern);
    return true;
  });
  const took = Date.now() - t0;
  assert.ok(took < ms, `took ${took} ms`);
}

test('embeddings: a trickling body ends at the whole call’s deadline, not per attempt × retries', async () => {
  const e = new OpenAIEmbedder({
    baseURL: `http://127.0.0.1:${trickPort}/v1`,
    model: 'm',
    dimensions: 4,
    timeoutMs: 60_000,
    deadlineMs: 1500,
    maxRetries: 5,
  });
  await endsWithin(
    5000,
    e.embed(['a sentence']),
    /gave no complete answer within 1\.5 s \(the deadline for the whole call, retries included\)/,
  );
});

test('embeddings: the per-attempt timeout covers the body too (retried, then a timeout error)', async () => {
  const e = new OpenAIEmbedder({
    baseURL: `http://127.0.0.1:${trickPort}/v1`,
    model: 'm',
    dimensions: 4,
    timeoutMs: 500,
    deadlineMs: 60_000,
    maxRetries: 1,
    retryBaseMs: 10,
  });
  await endsWithin(5000, e.embed(['a sentence']), /did not answer within 500 ms \(after 2 attempt\(s\)\)/);
});

test('chat: a trickling answer and a stream that never ends both stop at the deadline', async () => {
  const chat = new OpenAIChat({ baseURL: `http://127.0.0.1:${trickPort}/v1`, model: 'm', timeoutMs: 60_000, deadlineMs: 1500 });
  await endsWithin(
    5000,
    chat.complete({ step: 'write', messages: [{ role: 'user', content: 'hi' }] }),
    /step "write": the LLM gave no complete answer within 1\.5 s/,
  );
  let tokens = 0;
  await endsWithin(
    5000,
    chat.complete({ step: 'write', messages: [{ role: 'user', content: 'hi' }], onToken: () => tokens++ }),
    /step "write": the LLM (gave no complete answer within 1\.5 s|stream broke off)/,
  );
  assert.ok(tokens > 0, 'the stream did deliver tokens before the deadline');
});

test('Supabase: a host that never answers ends with a clear message within its timeout', async () => {
  await endsWithin(
    5000,
    openSupabaseStore(`http://127.0.0.1:${silentPort}`, 'key', { timeoutMs: 1000 }),
    /cannot reach the corpus at http:\/\/127\.0\.0\.1:\d+: no answer within 1 s/,
  );
});
