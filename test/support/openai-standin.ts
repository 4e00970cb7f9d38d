/**
 * A local stand-in for an OpenAI-compatible `/v1/embeddings` endpoint (node:http on 127.0.0.1, port 0), so
 * the real `openai` client can be driven through our provider in tests.
 *
 * Speaks: POST {base}/embeddings with JSON {model, input: string | string[], dimensions?, encoding_format?};
 * answers {object:'list', data:[{object:'embedding', index, embedding:number[]}], model, usage}. Vectors are
 * deterministic, derived from the text (a seeded hash), of length `dimensions` if sent, else the model's own size
 * (`modelDims`, as Ollama answers 768 for nomic-embed-text and 1024 for bge-m3) or `defaultDim`.
 * `encoding_format: 'base64'` is answered in base64 (little-endian float32), as OpenAI does.
 * Errors use OpenAI's shape {error:{message,type,code}}. Faults are scripted per test as a queue consumed one
 * per request (`script(...)`), or permanently (`failAlways`). Every request is logged (batch sizes, headers).
 *
 * NOT covered (differences from real servers): token limits / input-too-long errors (8191 tokens) and
 * token-array inputs (number[] / number[][]); real usage token counts (we count words); HTTP/2, TLS,
 * keep-alive behaviour and proxies; gzip'd responses; streaming/partial bodies cut mid-way (we only send
 * complete malformed bodies); per-model `dimensions` support rules (OpenAI rejects `dimensions` for
 * ada-002, Ollama ignores it); Voyage's `input_type` and its own `output_dimension` field; Ollama's
 * native `/api/embed` route; rate-limit headers other than retry-after / retry-after-ms (x-ratelimit-*);
 * organisation/project headers; vectors with semantic meaning (ours are hash noise, unless `vectors` serves a
 * model: see neural-standin.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string; retryAfterMs?: string; message?: string }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'malformed'; body?: string; contentType?: string }
  | { kind: 'wrong-length'; length: number; at?: number }
  | { kind: 'shuffle' }
  | { kind: 'missing-data' }
  | { kind: 'hang' };

export interface LoggedRequest {
  at: number;
  method: string;
  url: string;
  authorization: string | undefined;
  body: { model?: string; input?: string | string[]; dimensions?: number; encoding_format?: string } | undefined;
  batchSize: number;
  /** What the stand-in did: 'ok' or the fault kind/status. */
  outcome: string;
}

export interface StandinOptions {
  /** If set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  /** Vector length when the request does not send `dimensions` (default 8). */
  defaultDim?: number;
  /**
   * Each model's own vector length (when the request does not send `dimensions`), as a real server answers:
   * e.g. {'nomic-embed-text': 768, 'bge-m3': 1024}. A model not named gets `defaultDim`.
   */
  modelDims?: Record<string, number>;
  /** Models that refuse the `dimensions` parameter (400), as OpenAI does for ada-002 and many local servers do. */
  rejectDimensions?: string[];
  /** Models that exist; others get 404 (default: any). */
  models?: string[];
  /** Answer 422 when the request's encoding_format is this value (Voyage rejects 'float'). */
  rejectEncoding?: string;
  /** Delay added to every response (ms). */
  latencyMs?: number;
  /** Vectors for the inputs instead of the hash noise (neural-standin.ts serves a real model through it). */
  vectors?: (inputs: string[], model: string, dimensions: number | undefined) => Promise<number[][]>;
}

export interface Standin {
  /** Base URL to give the client, e.g. `http://127.0.0.1:PORT/v1`. */
  readonly baseURL: string;
  readonly requests: LoggedRequest[];
  /** Queue faults; each request takes the next one (a request with an empty queue is served normally). */
  script(...faults: Fault[]): void;
  /** Answer every request with this fault until cleared (undefined). */
  failAlways(fault: Fault | undefined): void;
  /** Requests currently being handled (for concurrency checks). */
  readonly inFlight: number;
  readonly maxInFlight: number;
  reset(): void;
  close(): Promise<void>;
}

/** The deterministic raw (unnormalised) vector the stand-in returns for `text`. Exported so tests can compare. */
export function standinVector(text: string, dim: number): number[] {
  // FNV-1a seed, then a xorshift stream.
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  let s = h || 1;
  const v = new Array<number>(dim);
  for (let i = 0; i < dim; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    v[i] = (s / 0xffffffff) * 2 - 1;
  }
  return v;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function apiError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', code: null } }, headers);
}

export async function startStandin(options: StandinOptions = {}): Promise<Standin> {
  const requests: LoggedRequest[] = [];
  let queue: Fault[] = [];
  let always: Fault | undefined;
  let inFlight = 0;
  let maxInFlight = 0;
  const sockets = new Set<import('node:net').Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const wait = (ms: number): Promise<void> =>
    new Promise((r) => {
      const t = setTimeout(() => {
        timers.delete(t);
        r();
      }, ms);
      timers.add(t);
    });

  const server: Server = createServer(async (req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const entry: LoggedRequest = {
      at: Date.now(),
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      body: undefined,
      batchSize: 0,
      outcome: 'ok',
    };
    requests.push(entry);
    try {
      const raw = await readBody(req);
      if (req.method !== 'POST' || !/\/v1\/embeddings$/.test((req.url ?? '').split('?')[0])) {
        entry.outcome = '404';
        return apiError(res, 404, `Unknown route ${req.method} ${req.url}`);
      }
      let body: LoggedRequest['body'];
      try {
        body = JSON.parse(raw) as LoggedRequest['body'];
      } catch {
        entry.outcome = '400';
        return apiError(res, 400, 'Request body is not JSON');
      }
      entry.body = body;
      const input = body?.input;
      const inputs = typeof input === 'string' ? [input] : Array.isArray(input) ? input : undefined;
      entry.batchSize = inputs?.length ?? 0;
      if (options.latencyMs) await wait(options.latencyMs);
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        entry.outcome = '401';
        return apiError(res, 401, 'Incorrect API key provided.');
      }
      if (!inputs || inputs.some((x) => typeof x !== 'string')) {
        entry.outcome = '400';
        return apiError(res, 400, "'input' must be a string or an array of strings");
      }
      if (options.models && !options.models.includes(body?.model ?? '')) {
        entry.outcome = '404';
        return apiError(res, 404, `The model \`${body?.model}\` does not exist`);
      }
      if (options.rejectEncoding !== undefined && body?.encoding_format === options.rejectEncoding) {
        entry.outcome = '422';
        return apiError(res, 422, `Value error, encoding_format must be one of [None, 'base64']`);
      }
      const fault = queue.shift() ?? always;
      if (body?.dimensions !== undefined && options.rejectDimensions?.includes(body?.model ?? '')) {
        entry.outcome = '400';
        return apiError(res, 400, `This model does not support specifying dimensions.`);
      }
      const dim =
        typeof body?.dimensions === 'number' ? body.dimensions : (options.modelDims?.[body?.model ?? ''] ?? options.defaultDim ?? 8);
      const vectors = options.vectors
        ? await options.vectors(inputs, body?.model ?? '', body?.dimensions)
        : inputs.map((text) => standinVector(text, dim));
      let data = inputs.map((_, index) => ({ object: 'embedding', index, embedding: vectors[index] as number[] | string }));
      if (fault) {
        entry.outcome = fault.kind === 'status' ? String(fault.status) : fault.kind;
        switch (fault.kind) {
          case 'status': {
            const h: Record<string, string> = {};
            if (fault.retryAfter !== undefined) h['retry-after'] = fault.retryAfter;
            if (fault.retryAfterMs !== undefined) h['retry-after-ms'] = fault.retryAfterMs;
            return apiError(res, fault.status, fault.message ?? `Scripted ${fault.status}`, h);
          }
          case 'slow':
            await wait(fault.delayMs);
            break;
          case 'hang':
            return; // never answers; the client must time out or abort
          case 'malformed': {
            const text = fault.body ?? '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,';
            res.writeHead(200, { 'content-type': fault.contentType ?? 'application/json', 'content-length': Buffer.byteLength(text) });
            return res.end(text);
          }
          case 'wrong-length': {
            const at = fault.at ?? 0;
            if (data[at]) data[at].embedding = standinVector(inputs[at], fault.length);
            break;
          }
          case 'shuffle':
            data = data.slice().reverse();
            break;
          case 'missing-data':
            return sendJson(res, 200, { object: 'list', model: body?.model, usage: { prompt_tokens: 0, total_tokens: 0 } });
        }
      }
      if (body?.encoding_format === 'base64') {
        for (const d of data) {
          const arr = d.embedding as number[];
          const buf = Buffer.alloc(arr.length * 4);
          arr.forEach((x, i) => buf.writeFloatLE(x, i * 4));
          d.embedding = buf.toString('base64');
        }
      }
      const tokens = inputs.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);
      if (res.destroyed) return;
      sendJson(res, 200, { object: 'list', data, model: body?.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
    } finally {
      inFlight--;
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // An idle keep-alive socket stays open for a minute (Node's default: 5 s). The client shares this process with
  // PGlite, whose synchronous work can hold the event loop for seconds on a loaded machine; the server's 5 s close
  // then fires in the same turn as the client's next request on that socket, which fails with ECONNRESET (seen with
  // two test files at a time). A real endpoint in another process has no such lockstep.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...faults) => {
      queue.push(...faults);
    },
    failAlways: (f) => {
      always = f;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    reset: () => {
      requests.length = 0;
      queue = [];
      always = undefined;
      maxInFlight = inFlight;
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
