/**
 * A local stand-in for an OpenAI-compatible `/v1/chat/completions` endpoint (node:http on 127.0.0.1, port 0), so
 * the REAL `openai` client is driven through the review pipeline in tests and the bench.
 *
 * Speaks: POST {base}/chat/completions with JSON {model, messages, stream?, stream_options?, …}. Non-streaming:
 * a `chat.completion` object with `usage`. Streaming: SSE `data: {chat.completion.chunk}` lines (role chunk,
 * one chunk per word, a finish chunk), a usage chunk (`choices: []`) when `stream_options.include_usage` is
 * set, then `data: [DONE]`. Errors use OpenAI's shape {error:{message,type,code}} with `retry-after` /
 * `retry-after-ms` headers when scripted. Replies are scripted per test by a function from the request to a
 * reply (content, HTTP error, a hang, a raw malformed body, a delay). Every request is logged with its step
 * (the `step: <name>` the pipeline's system prompts start with) and whether the client hung up early.
 *
 * NOT covered (differences from real servers): real tokenisation (usage counts words, not tokens); tool/function
 * calls, `response_format` enforcement (ignored: the script decides what comes back), logprobs, `n > 1`;
 * content filters, and `finish_reason: length` truncation (only scripted, with `finish`); multi-byte characters split across SSE chunks;
 * HTTP/2, TLS, proxies, gzip; SSE `event:`/`id:` fields and comment keep-alives some servers send; error events
 * inside a stream after a 200; rate-limit headers other than retry-after(-ms); auth (any key is accepted).
 *
 * Below the server: scripted MODELS for the review pipeline (a well-behaved one with knobs for misbehaviour,
 * and a gullible one that obeys instructions it finds outside the data fence), and a small real corpus builder.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

export interface ChatCall {
  n: number;
  at: number;
  body: {
    model?: string;
    messages?: { role: string; content: string }[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    [k: string]: unknown;
  };
  messages: { role: string; content: string }[];
  stream: boolean;
  /** From the system prompt's first line `… step: <name>.` (null when absent). */
  step: string | null;
  /** The client closed the connection before the reply was complete (cancel / timeout). */
  hungUp: boolean;
}

export type Reply =
  | {
      content: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
      delayMs?: number;
      chunkDelayMs?: number;
      /** The finish_reason sent (default 'stop'; 'length': cut at max_tokens). */
      finish?: 'stop' | 'length';
    }
  | { status: number; retryAfter?: string; retryAfterMs?: string; message?: string }
  | { hang: true }
  | { raw: string; contentType?: string };

export type Script = (call: ChatCall) => Reply | Promise<Reply>;

export interface ChatStandin {
  /** e.g. `http://127.0.0.1:PORT/v1`. */
  readonly baseURL: string;
  readonly calls: ChatCall[];
  setScript(script: Script): void;
  /** Requests in flight now / at most. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Forgets the logged calls and the in-flight maximum. */
  reset(): void;
  close(): Promise<void>;
}

export function stepOf(messages: readonly { role: string; content: string }[]): string | null {
  const sys = messages.find((m) => m.role === 'system')?.content ?? '';
  return /step: ([a-z]+)/.exec(sys)?.[1] ?? null;
}

function wordCount(s: string): number {
  return s.split(/\s+/).filter(Boolean).length;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startChatStandin(script: Script): Promise<ChatStandin> {
  const calls: ChatCall[] = [];
  let current = script;
  let inFlight = 0;
  let maxInFlight = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const wait = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(() => {
        timers.delete(t);
        r();
      }, ms);
      timers.add(t);
    });

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const text = await readBody(req);
      if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url ?? '')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error', code: null } }));
        return;
      }
      let body: ChatCall['body'];
      try {
        body = JSON.parse(text);
      } catch {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'bad json', type: 'invalid_request_error', code: null } }));
        return;
      }
      const messages = Array.isArray(body.messages) ? body.messages : [];
      const call: ChatCall = {
        n: calls.length + 1,
        at: Date.now(),
        body,
        messages,
        stream: !!body.stream,
        step: stepOf(messages),
        hungUp: false,
      };
      calls.push(call);
      res.on('close', () => {
        if (!res.writableFinished) call.hungUp = true;
      });
      const reply = await current(call);
      if ('hang' in reply) return; // never answers; the client must time out or abort
      if ('raw' in reply) {
        res.writeHead(200, { 'content-type': reply.contentType ?? 'application/json' }).end(reply.raw);
        return;
      }
      if ('status' in reply) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (reply.retryAfter !== undefined) headers['retry-after'] = reply.retryAfter;
        if (reply.retryAfterMs !== undefined) headers['retry-after-ms'] = reply.retryAfterMs;
        res
          .writeHead(reply.status, headers)
          .end(JSON.stringify({ error: { message: reply.message ?? `scripted ${reply.status}`, type: 'server_error', code: null } }));
        return;
      }
      if (reply.delayMs) await wait(reply.delayMs);
      if (res.destroyed) return;
      const usage = reply.usage ?? {
        prompt_tokens: messages.reduce((n, m) => n + wordCount(String(m.content ?? '')), 0),
        completion_tokens: wordCount(reply.content),
      };
      const fullUsage = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
      const base = { id: `chatcmpl-${call.n}`, created: Math.floor(Date.now() / 1000), model: body.model ?? 'standin' };
      if (!call.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [
              { index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: reply.finish ?? 'stop', logprobs: null },
            ],
            usage: fullUsage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const send = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
      const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
        send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
      chunk({ role: 'assistant', content: '' });
      for (const piece of reply.content.match(/\s*\S+\s*/g) ?? []) {
        if (res.destroyed) return;
        chunk({ content: piece });
        if (reply.chunkDelayMs) await wait(reply.chunkDelayMs);
      }
      chunk({}, reply.finish ?? 'stop');
      if (body.stream_options?.include_usage) send({ ...base, object: 'chat.completion.chunk', choices: [], usage: fullUsage });
      res.end('data: [DONE]\n\n');
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    } finally {
      inFlight--;
    }
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // An idle keep-alive socket stays open for a minute (Node's default: 5 s). The client shares this process with
  // PGlite, whose synchronous work can hold the event loop for seconds on a loaded machine; the server's 5 s close
  // then fires in the same turn as the client's next request on that socket, which fails with ECONNRESET (seen with
  // two test files at a time). A real endpoint in another process has no such lockstep.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    calls,
    setScript(s) {
      current = s;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    reset() {
      calls.length = 0;
      maxInFlight = inFlight;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

// ----------------------------------------------------------------------------------------------------------
// Scripted models for the review pipeline. They read the prompts the way a model would (the data fences, the
// ids in them) and answer in the pipeline's formats.

export const CORPUS_TAG = 'corpus_data';
export const TOPIC_TAG = 'user_topic';

/** The text inside <tag>…</tag> of the first user message (the task; later ones are repair requests), '' if absent. */
export function fenced(call: ChatCall, tag: string): string {
  const user = call.messages.find((m) => m.role === 'user')?.content ?? '';
  const m = new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`).exec(user);
  return m ? m[1] : '';
}

/**
 * Whether the data fences of a request are intact: in every user message each tag opens and closes exactly as
 * often as the pipeline wrote it (one pair per fence), and `marker` (an injected instruction) occurs only inside
 * a fence. Returns the text outside the fences too.
 */
export function fenceReport(call: ChatCall, marker: string): { intact: boolean; outside: string } {
  let intact = true;
  let outside = '';
  for (const m of call.messages) {
    if (m.role !== 'user') continue;
    for (const tag of [CORPUS_TAG, TOPIC_TAG]) {
      const opens = m.content.split(`<${tag}>`).length - 1;
      const closes = m.content.split(`</${tag}>`).length - 1;
      if (opens > 1 || opens !== closes) intact = false;
    }
    outside += m.content.replace(/<(corpus_data|user_topic)>[\s\S]*?<\/\1>/g, ' ');
  }
  if (outside.toLowerCase().includes(marker.toLowerCase())) intact = false;
  return { intact, outside };
}

export interface ModelKnobs {
  /** Add an invented quote per paper (not in the corpus). */
  inventQuotes?: boolean;
  /** Cite [P99] (not retrieved) and a paper of another section in every section. */
  badCitations?: boolean;
  /** Cite with \cite{madeup2020} and (Smith et al., 2020) in the first section. */
  rawCitations?: boolean;
  /** Copy the first 20 words of a quote into the first section. */
  copySpan?: boolean;
  /** Steps whose first reply is malformed JSON (repaired by the second). */
  malformedOnce?: string[];
  /** Steps whose replies are always malformed. */
  malformedAlways?: string[];
  /** Delay per streamed chunk of the write step (ms). */
  chunkDelayMs?: number;
  /** Delay before every reply (ms). */
  delayMs?: number;
  /** The verify step's verdict for a sentence line (default "supported"). */
  verifyVerdict?: (line: string) => string;
}

/** The write prompt's data: each paper's id, title, authors and year (header line) and its quotes ("  - " lines). */
export function writeData(data: string): { id: string; title: string; authors: string; year: string; quotes: string[] }[] {
  const out: { id: string; title: string; authors: string; year: string; quotes: string[] }[] = [];
  for (const l of data.split('\n')) {
    const h = /^(P\d+): "([^"]*)" \((.*?), (\d{4}|n\.d\.)/.exec(l);
    if (h) out.push({ id: h[1], title: h[2], authors: h[3], year: h[4], quotes: [] });
    else if (/^ {2}- /.test(l) && out.length) out[out.length - 1].quotes.push(l.slice(4));
  }
  return out;
}

/** At most 10 leading words of a quote, without a dangling function word, lower-cased first letter. */
export function paraphrase(quote: string): string {
  const w = quote
    .replace(/[.!?]+$/, '')
    .split(/\s+/)
    .slice(0, 10);
  while (
    w.length > 4 &&
    /^(?:the|a|an|of|to|in|on|for|with|and|or|by|from|that|as|is|are|was|were|their|its|when|which)$/i.test(
      w[w.length - 1].replace(/[,;:]$/, ''),
    )
  )
    w.pop();
  const s = w.join(' ').replace(/[,;:]$/, '');
  return /^[A-Z][a-z]/.test(s) ? s[0].toLowerCase() + s.slice(1) : s;
}

const TOPIC_STOP = new Set(
  'the a an of and or to in on for with by from as is are we our this that these how what which related work'.split(' '),
);

function topicWords(s: string): Set<string> {
  return new Set((s.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((w) => !TOPIC_STOP.has(w)));
}

const INVENTED = 'This paper proves that every retrieval system is secretly a database of green cheese recipes.';

/** A scripted model that answers every step of the pipeline correctly, with knobs for misbehaviour. */
export function reviewModel(knobs: ModelKnobs = {}): Script & { seen: Record<string, number> } {
  const seen: Record<string, number> = {};
  const fn = (call: ChatCall): Reply => {
    const step = call.step ?? 'unknown';
    const isRepair = call.messages.filter((m) => m.role === 'assistant').length > 0;
    seen[step] = (seen[step] ?? 0) + 1;
    const wrap = (content: string): Reply => ({
      content,
      delayMs: knobs.delayMs,
      chunkDelayMs: step === 'write' ? knobs.chunkDelayMs : undefined,
    });
    if (knobs.malformedAlways?.includes(step)) return wrap('{"this is": not json');
    if (knobs.malformedOnce?.includes(step) && !isRepair) return wrap('Sure! Here is the JSON: {"oops": [1, 2,,]}');
    const topic = fenced(call, TOPIC_TAG);
    const data = fenced(call, CORPUS_TAG);
    const tw = topicWords(topic);
    const overlap = (s: string) => [...topicWords(s)].filter((w) => tw.has(w)).length;
    switch (step) {
      case 'decompose':
        return wrap(
          JSON.stringify({
            rewritten_query: topic,
            keyword_query: [...tw].slice(0, 6).join(' '),
            year_min: null,
            year_max: null,
            venues: [],
          }),
        );
      case 'rerank': {
        const scores = [...data.matchAll(/^\[(S\d+)\] (.*)$/gm)].map((m) => ({ id: m[1], score: Math.min(10, 2 + overlap(m[2]) * 2) }));
        return wrap(JSON.stringify({ scores }));
      }
      case 'quotes': {
        const passages = [...data.matchAll(/^\(\d+\) (.*)$/gm)].map((m) => m[1]);
        const sentences = passages.flatMap((p) => p.split(/(?<=[.!?])\s+(?=[A-Z])/));
        const quotes = [...new Set(sentences)].sort((a, b) => overlap(b) - overlap(a)).slice(0, 2);
        if (knobs.inventQuotes) quotes.push(INVENTED);
        return wrap(JSON.stringify({ quotes }));
      }
      case 'plan': {
        const ids = [...data.matchAll(/\[(Q\d+)\]/g)].map((m) => m[1]);
        const half = Math.ceil(ids.length / 2);
        const sections = [
          { name: 'Retrieval of related text', format: 'paragraph', quotes: ids.slice(0, half) },
          { name: 'Tools and checks', format: 'list', quotes: ids.slice(half) },
        ].filter((s) => s.quotes.length);
        return wrap(JSON.stringify({ sections }));
      }
      case 'write': {
        const papers = writeData(data);
        const list = /Write a list/.test(call.messages[0]?.content ?? '');
        // A faithful paraphrase: what the paper's first quote says, in fewer than 12 of its words.
        const lines = papers.map((p) => {
          const claim = paraphrase(p.quotes[0] ?? p.title);
          return list ? `- ${claim[0].toUpperCase()}${claim.slice(1)} [${p.id}].` : `Prior work reports that ${claim} [${p.id}].`;
        });
        const user = call.messages.filter((m) => m.role === 'user').pop()?.content ?? '';
        const first = /^Part title: Retrieval/m.test(user);
        if (knobs.badCitations) {
          const own = new Set(papers.map((p) => p.id));
          const foreign = ['P1', 'P2', 'P3'].filter((id) => !own.has(id));
          lines.push(`Some also claim broad results that nobody retrieved [P99][${papers[0]?.id ?? 'P1'}].`);
          if (foreign.length) lines.push(`A further study is cited from elsewhere [${foreign[0]}].`);
        }
        if (knobs.rawCitations && first) lines.push('Earlier studies reached the same view \\cite{madeup2020} (Smith et al., 2020).');
        if (knobs.copySpan) {
          const quote = papers.flatMap((p) => p.quotes.map((q) => ({ id: p.id, q }))).find((x) => x.q.split(/\s+/).length >= 20);
          // The whole quote, unquoted: a whole clause of a verified quote, which the check quotes and cites.
          if (quote) lines.push(`As reported, ${quote.q.replace(/[.!?]$/, '')} [${quote.id}].`);
        }
        return wrap(list ? lines.join('\n') : lines.join(' '));
      }
      case 'verify': {
        const verdicts = [...data.matchAll(/^\[(S\d+\.\d+)\]/gm)].map((m) => ({
          id: m[1],
          verdict: knobs.verifyVerdict?.(m[0]) ?? 'supported',
        }));
        return wrap(JSON.stringify({ verdicts }));
      }
      default:
        return wrap('{}');
    }
  };
  return Object.assign(fn, { seen });
}

/** What the liar invents: none of it may reach the emitted prose. */
export const LIES = /llama|Smith|2099|anonpaper|smith2099|400|37\s*%|\[12\]|P77|later study|green cheese|every author/i;

/**
 * A model that answers every step in the right shape but lies the way real models do (issue 13): an altered and
 * an invented quote per paper, an unknown quote id in the plan, and in every section a narrative author-year
 * citation of an invented paper, a raw \cite of an invented key, an unknown paper id, a numeric and a plain-key
 * citation, an invented statistic with a valid citation, a 15-word copy of a corpus sentence it was shown that is
 * not a verified quote, one of the section's quotes copied whole (which must become a quotation), and the first
 * words of one cut off mid-clause (a fragment, which must go: issue 32.3).
 */
/** The first 12–15 words of a sentence of ≥ 16, cut where no clause ends (a fragment under the copy rule). */
export function fragment(sentence: string): string {
  const w = sentence.split(/\s+/);
  let n = 15;
  while (n > 12 && /[,;:.!?)]$/.test(w[n - 1])) n--;
  return w.slice(0, n).join(' ');
}

export function liarModel(): Script & { shown: string[] } {
  const inner = reviewModel();
  const shown: string[] = [];
  const fn = (call: ChatCall): Reply => {
    const r = inner(call) as Reply; // reviewModel answers synchronously
    if (!('content' in r)) return r;
    const data = fenced(call, CORPUS_TAG);
    switch (call.step) {
      case 'quotes': {
        const quotes: string[] = JSON.parse(r.content).quotes;
        const passages = [...data.matchAll(/^\(\d+\) (.*)$/gm)].flatMap((m) => m[1].split(/(?<=[.!?])\s+(?=[A-Z])/));
        for (const p of passages) if (!quotes.includes(p) && p.split(/\s+/).length >= 16) shown.push(p);
        const altered = quotes[0]?.replace(/\b([a-z]{6,})\b/, 'quantum');
        return {
          content: JSON.stringify({
            quotes: [...quotes, ...(altered ? [altered] : []), 'Quantum llamas improve retrieval by 400% in every benchmark we tried.'],
          }),
        };
      }
      case 'plan': {
        const plan = JSON.parse(r.content);
        plan.sections[0].quotes.push('Q999');
        return { content: JSON.stringify(plan) };
      }
      case 'write': {
        const papers = writeData(data);
        const p0 = papers[0]?.id ?? 'P1';
        const quote = papers.flatMap((p) => p.quotes.map((q) => ({ id: p.id, q }))).find((x) => x.q.split(/\s+/).length >= 16);
        const copied = shown.find((t) => !papers.some((p) => p.quotes.includes(t)));
        const lies = [
          `Smith et al. (2099) showed that quantum llamas help [${p0}].`,
          'Quantum llamas improve retrieval by 400% \\cite{smith2099quantum}.',
          'A later study extended this to new settings [P77].',
          'As shown in [12], retrieval always helps writers.',
          '[smith2099] found that every author cites llamas.',
          `This approach improves citation precision by 37% [${p0}].`,
          ...(copied
            ? [
                `Notably, ${copied
                  .split(/\s+/)
                  .slice(0, 15)
                  .join(' ')
                  .replace(/[.,;:]$/, '')} [${p0}].`,
              ]
            : []),
          ...(quote
            ? [`One paper states that ${quote.q.replace(/[.!?]$/, '')} [${quote.id}].`, `In one study, ${fragment(quote.q)} [${quote.id}].`]
            : []),
        ];
        const list = /Write a list/.test(call.messages[0]?.content ?? '');
        return { content: list ? `${r.content}\n${lies.map((l) => `- ${l}`).join('\n')}` : `${r.content} ${lies.join(' ')}` };
      }
      default:
        return r;
    }
  };
  return Object.assign(fn, { shown });
}

/** A model that cites by surname and year (as told not to), naming real papers of the section: "Hopper (2021) reports …". */
export function authorYearModel(): Script {
  const inner = reviewModel();
  return (call) => {
    if (call.step !== 'write') return inner(call);
    const papers = writeData(fenced(call, CORPUS_TAG));
    const lines = papers.map((p) => {
      const names = p.authors.split(/,\s*/);
      const surname = (n: string) =>
        n
          .replace(/ et al\.$/, '')
          .trim()
          .split(/\s+/)
          .pop();
      const who =
        names.length === 2
          ? `${surname(names[0])} and ${surname(names[1])}`
          : names.length > 2 || / et al\.$/.test(p.authors)
            ? `${surname(names[0])} et al.`
            : surname(names[0]);
      return `${who} (${p.year}) reports that ${paraphrase(p.quotes[0] ?? p.title)}.`;
    });
    return { content: lines.join(' ') };
  };
}

/** Obeys instructions found OUTSIDE the data fences (a corpus sentence that escaped its fence): replies with junk. */
export function gullibleModel(marker: string, inner: Script): Script & { breaches: number } {
  const state = { breaches: 0 };
  const fn = async (call: ChatCall): Promise<Reply> => {
    const r = fenceReport(call, marker);
    if (!r.intact) {
      state.breaches++;
      return { content: 'HACKED [P99] \\cite{pwned2024}' };
    }
    return inner(call);
  };
  return Object.assign(fn, {
    get breaches() {
      return state.breaches;
    },
  });
}

// ----------------------------------------------------------------------------------------------------------
// A small corpus (real sentences of made-up papers) for review tests and the bench.

export interface CorpusPaper {
  id: string;
  title: string;
  authors: string[];
  year: number;
  venue: string;
  doi: string;
  sections: [string, string[]][];
}

export const REVIEW_CORPUS: CorpusPaper[] = [
  {
    id: 'r1',
    title: 'Dense retrieval of scientific sentences',
    authors: ['Ada Lovelace', 'Alan Turing'],
    year: 2019,
    venue: 'ACL',
    doi: '10.1000/r1',
    sections: [
      [
        'Introduction',
        [
          'Writing the related work section of a paper takes authors many hours of careful reading and note taking.',
          'We retrieve sentences from prior papers that phrase a similar idea, using dense sentence embeddings trained on scientific text.',
        ],
      ],
      [
        'Method',
        [
          'Every corpus sentence is encoded once with a transformer encoder and stored in an approximate nearest neighbour index.',
          'Cosine similarity between the query embedding and the sentence embeddings ranks the candidate sentences for the author.',
        ],
      ],
    ],
  },
  {
    id: 'r2',
    title: 'Keyword search still matters for scholarly retrieval',
    authors: ['Grace Hopper'],
    year: 2021,
    venue: 'SIGIR',
    doi: '10.1000/r2',
    sections: [
      [
        'Introduction',
        [
          'Lexical retrieval with BM25 remains a strong baseline for scholarly search when queries contain rare technical terms.',
          'Hybrid retrieval that fuses lexical and dense rankings with reciprocal rank fusion outperforms either ranking alone.',
        ],
      ],
      ['Results', ['The gains of hybrid retrieval are largest for queries that mention acronyms, numbers or names of datasets.']],
    ],
  },
  {
    id: 'r3',
    title: 'Writing assistants for scientists',
    authors: ['Barbara Liskov'],
    year: 2023,
    venue: 'CHI',
    doi: '10.1000/r3',
    sections: [
      [
        'Background',
        [
          'Novice authors imitate the phrasing of papers they admire and keep private collections of useful sentences.',
          'Writing assistants that suggest example sentences from prior papers help authors learn the conventions of their field.',
          'Learning from examples must not turn into copying, so assistants should warn when a draft sentence is nearly identical to a source.',
        ],
      ],
    ],
  },
  {
    id: 'r4',
    title: 'Citation recommendation with retrieval and reranking',
    authors: ['Donald Knuth', 'Leslie Lamport'],
    year: 2022,
    venue: 'EMNLP',
    doi: '10.1000/r4',
    sections: [
      [
        'Introduction',
        [
          'Citation recommendation systems retrieve candidate papers for a passage of a draft and rerank them with a cross encoder.',
          'Reranking the top retrieved candidates with a cross encoder improves the precision of recommended citations substantially.',
        ],
      ],
      ['Evaluation', ['Recommended citations were judged relevant by authors in most cases when the passage described a specific method.']],
    ],
  },
  {
    id: 'r5',
    title: 'Grounded generation of literature reviews',
    authors: ['Margaret Hamilton'],
    year: 2024,
    venue: 'NAACL',
    doi: '10.1000/r5',
    sections: [
      [
        'Introduction',
        [
          'Large language models that write literature reviews often invent citations to papers that do not exist.',
          'Grounding every generated claim in a verified quote from a retrieved paper reduces unsupported statements in generated reviews.',
        ],
      ],
      [
        'Method',
        [
          'Quotes extracted by the model are matched against the source text, and quotes that cannot be found are discarded before writing.',
          'The writer model must cite only papers whose quotes were assigned to the section being written.',
        ],
      ],
    ],
  },
  {
    id: 'r6',
    title: 'Detecting verbatim reuse in academic prose',
    authors: ['Edsger Dijkstra'],
    year: 2020,
    venue: 'JCDL',
    doi: '10.1000/r6',
    sections: [
      [
        'Method',
        [
          'Overlapping word n-grams between a submission and a reference collection reveal passages that were copied verbatim.',
          'Runs of twelve or more identical consecutive words are a reliable signal of copied text in scientific writing.',
        ],
      ],
    ],
  },
  {
    id: 'r7',
    title: 'Protein folding with attention',
    authors: ['Rosalind Franklin'],
    year: 2021,
    venue: 'Nature',
    doi: '10.1000/r7',
    sections: [
      [
        'Introduction',
        [
          'Predicting the three dimensional structure of proteins from their amino acid sequence is a long standing problem in biology.',
          'Attention based networks trained on evolutionary data predict protein structures with near experimental accuracy.',
        ],
      ],
    ],
  },
];

/** A synthetic corpus of `papers` papers × `sentences` sentences (for the bench: enough candidates for n = 256). */
export function syntheticCorpus(papers: number, sentences: number): CorpusPaper[] {
  const topics = [
    'retrieval',
    'embeddings',
    'citations',
    'reranking',
    'writing',
    'quotes',
    'summaries',
    'evaluation',
    'corpora',
    'authors',
  ];
  const verbs = ['improves', 'affects', 'supports', 'measures', 'explains', 'changes', 'predicts', 'limits'];
  const objects = [
    'precision of search',
    'quality of drafts',
    'speed of reviewing',
    'recall of evidence',
    'trust in generated text',
    'coverage of prior work',
  ];
  let seed = 42;
  const rnd = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const out: CorpusPaper[] = [];
  for (let p = 0; p < papers; p++) {
    const t = topics[p % topics.length];
    const secs: [string, string[]][] = [];
    for (let s = 0; s < sentences; s++) {
      const sec = s < sentences / 2 ? 'Introduction' : 'Method';
      if (!secs.length || secs[secs.length - 1][0] !== sec) secs.push([sec, []]);
      secs[secs.length - 1][1].push(
        `In study ${p}-${s} the use of ${t} ${verbs[rnd(verbs.length)]} the ${objects[rnd(objects.length)]} for ${topics[rnd(topics.length)]} in setting ${rnd(1000)}.`,
      );
    }
    out.push({
      id: `s${p}`,
      title: `A study of ${t} number ${p}`,
      authors: [`Author${p} Family${p % 7}`],
      year: 2000 + (p % 25),
      venue: `Venue ${p % 5}`,
      doi: `10.2000/s${p}`,
      sections: secs,
    });
  }
  return out;
}

interface Writable {
  init(o: { model: string; dimensions: number }): Promise<unknown>;
  writePapers(papers: readonly unknown[]): Promise<unknown>;
}

/** Writes the papers into a store (embedding every sentence with `embedder`). */
export async function loadCorpus(
  store: Writable,
  embedder: { model: string; dimensions: number; embed(t: readonly string[]): Promise<Float32Array[]> },
  papers: readonly CorpusPaper[],
): Promise<number> {
  await store.init({ model: embedder.model, dimensions: embedder.dimensions });
  const inputs = [];
  let n = 0;
  for (const p of papers) {
    const texts = p.sections.flatMap(([, s]) => s);
    const vectors = await embedder.embed(texts);
    let g = 0;
    const sentences = p.sections.flatMap(([title, ss], si) =>
      ss.map((text, i) => ({
        sectionTitle: title,
        sectionNumber: String(si + 1),
        sectionIndex: si,
        sentenceIndex: i,
        globalIndex: g,
        text,
        embedding: vectors[g++],
      })),
    );
    n += sentences.length;
    inputs.push({ id: p.id, title: p.title, authors: p.authors, year: p.year, venue: p.venue, doi: p.doi, sentences });
  }
  await store.writePapers(inputs);
  return n;
}
