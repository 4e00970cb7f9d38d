// A corpus store in a child process. In VS Code the embedded corpus (PGlite: PostgreSQL compiled to WASM) would
// otherwise put its 150–300 MB and its long WASM work (an HNSW build takes 10–80 s; every lookup) into the
// extension host, whose one thread all extensions share. `openRemoteStore` forks `remote-host.ts` (bundled as
// dist/store-host.js), which opens the corpus with `openStore`, and returns a CorpusStore whose every method is a
// request `{id, method, args}` answered by `{id, result}` or `{id, error: {name, message, ...fields}}`.
// Errors keep their class (StoreError, CorpusMismatchError with its fields, AbortError); a `signal` in the
// arguments is forwarded as an abort message, an `onProgress` callback as events; if the child dies, every pending
// and later call rejects at once with one StoreError line.
import { fork, type ChildProcess } from 'node:child_process';
import type { OpenStoreOptions } from '../index.js';
import { CorpusMismatchError, StoreError, type CorpusMeta, type CorpusStore, type SchemaFlavor, type StoreKind } from '../types.js';

/** The CorpusStore methods every store has, forwarded as they are. */
export const STORE_METHODS = [
  'meta',
  'init',
  'writePapers',
  'matchVector',
  'matchKeyword',
  'matchHybrid',
  'matchPapers',
  'context',
  'counts',
  'sources',
  'deletePapers',
  'sectionTitles',
  'close',
] as const;

/** The optional CorpusStore methods: the proxy has one only when the child's store does. */
export const OPTIONAL_METHODS = [
  'dropSearchIndexes',
  'createSearchIndexes',
  'loadKeywordIndex',
  'vectorSearch',
  'paperSentences',
  'sentencePages',
  'paperBibtex',
  'citedWorks',
  'paperRows',
  'listPapers',
  'findPapers',
  'venues',
  'paperStats',
  'updatePaperMetadata',
  'sourceCopies',
  'updateSourceCopies',
  'matchElements',
  'linkedElements',
  'listElements',
  'describeElements',
] as const;

type Forwarded = (typeof STORE_METHODS)[number] | (typeof OPTIONAL_METHODS)[number];
type MethodOf<T> = { [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T];
// A method added to CorpusStore and not forwarded here fails the typecheck (instead of a proxy without it).
const everyMethodForwarded: [Exclude<MethodOf<CorpusStore>, Forwarded>] extends [never] ? true : never = true;
void everyMethodForwarded;

/** Messages from the parent. `open` is the first request (method 'open', args [target, options]). */
export type HostRequest = { type: 'call'; id: number; method: string; args: unknown[]; aborted?: boolean } | { type: 'abort'; id: number };

/** Messages from the child. */
export type HostReply =
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; error: SerializedError }
  | { type: 'event'; id: number; name: string; args: unknown[] };

/** What `open` answers. */
export interface OpenedStore {
  kind: StoreKind;
  schema: SchemaFlavor;
  readOnly: boolean;
  /** The OPTIONAL_METHODS the child's store has. */
  methods: string[];
  pid: number;
}

export interface SerializedError {
  name: string;
  message: string;
  [field: string]: unknown;
}

/** Markers that stand for what cannot be cloned: an AbortSignal, a callback. */
export const SIGNAL_MARK = '\u0000signal';
export const CALLBACK_MARK = '\u0000callback';

export interface RemoteHost {
  /** The child's entry: dist/store-host.js, or src/core/store/backends/remote-host.ts with execArgv ['--import', 'tsx']. */
  script: string;
  execArgv?: string[];
  /** Called once when the child exits without `close()` (crash, kill): the caller drops the connection. */
  onExit?: (error: StoreError) => void;
  /** Called for every request sent (tests and benches count round trips with it). */
  onRequest?: (method: string) => void;
}

/** A remote store also says which process serves it. */
export interface RemoteCorpusStore extends CorpusStore {
  readonly pid: number;
}

interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  signal?: AbortSignal;
  callbacks: Map<string, (...args: unknown[]) => void>;
  cleanup(): void;
}

/** Opens `target` with `openStore(target, options)` in a child process running `host.script`. */
export async function openRemoteStore(target: string, options: OpenStoreOptions, host: RemoteHost): Promise<RemoteCorpusStore> {
  const child = fork(host.script, [], {
    serialization: 'advanced',
    execArgv: host.execArgv ?? [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // In desktop VS Code process.execPath is Electron: run it as plain node (as vscode-languageclient does).
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
  const client = new RemoteClient(child, host);
  let opened: OpenedStore;
  try {
    opened = (await client.call('open', [target, options])) as OpenedStore;
  } catch (err) {
    await client.shutdown();
    throw err;
  }
  return client.store(opened);
}

class RemoteClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Set once the child is gone (or closing): every call rejects with it. */
  private dead: StoreError | undefined;
  private closing = false;
  private readonly exited: Promise<void>;

  constructor(
    private readonly child: ChildProcess,
    private readonly host: RemoteHost,
  ) {
    child.on('message', (m) => this.receive(m as HostReply));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        const err = new StoreError(`the corpus process exited (code ${code}, signal ${signal})`);
        const unexpected = !this.closing;
        this.fail(err);
        resolve();
        if (unexpected) host.onExit?.(err);
      });
    });
    // Spawn failure (no such script, no node) or a broken channel: fail everything now; 'exit' may follow.
    child.on('error', (e) => this.fail(new StoreError(`the corpus process failed: ${e.message}`, { cause: e })));
  }

  private fail(err: StoreError): void {
    this.dead ??= err;
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) {
      p.cleanup();
      p.reject(this.dead);
    }
  }

  call(method: string, rawArgs: readonly unknown[]): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    const callbacks = new Map<string, (...args: unknown[]) => void>();
    let signal: AbortSignal | undefined;
    const args = rawArgs.map((a) => {
      if (a instanceof AbortSignal) {
        signal = a;
        return SIGNAL_MARK;
      }
      if (!isPlainObject(a)) return a;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(a)) {
        if (v instanceof AbortSignal) {
          signal = v;
          out[k] = SIGNAL_MARK;
        } else if (typeof v === 'function') {
          callbacks.set(k, v as (...args: unknown[]) => void);
          out[k] = CALLBACK_MARK;
        } else out[k] = v;
      }
      return out;
    });
    return new Promise((resolve, reject) => {
      const onAbort = () => this.post({ type: 'abort', id });
      const p: Pending = {
        method,
        resolve,
        reject,
        signal,
        callbacks,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      this.pending.set(id, p);
      this.host.onRequest?.(method);
      // An already aborted signal travels with the call: the child's signal is aborted before the method starts.
      const sent = this.post({ type: 'call', id, method, args, ...(signal?.aborted ? { aborted: true } : {}) });
      if (sent && signal && !signal.aborted) signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Sends a message; a channel that is gone or a value that cannot be cloned fails the call, never throws. */
  private post(m: HostRequest): boolean {
    try {
      this.child.send(m, (err) => {
        if (!err || m.type !== 'call') return;
        // A broken channel (EPIPE) mostly means the child is dying: its 'exit' rejects the call with the code and
        // signal, which say why; if no exit comes within a second, the call fails as unreachable.
        const unreachable = new StoreError(`the corpus process is unreachable: ${err.message}`, { cause: err });
        const timer = setTimeout(() => this.settle(m.id, (p) => p.reject(this.dead ?? unreachable)), 1000);
        void this.exited.then(() => clearTimeout(timer));
      });
      return true;
    } catch (err) {
      if (m.type === 'call') this.settle(m.id, (p) => p.reject(err));
      return false;
    }
  }

  private settle(id: number, fn: (p: Pending) => void): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.cleanup();
    fn(p);
  }

  private receive(m: HostReply): void {
    if (m.type === 'event') {
      const cb = this.pending.get(m.id)?.callbacks.get(m.name);
      try {
        cb?.(...m.args);
      } catch {
        // a throwing progress callback must not break the protocol
      }
    } else if (m.type === 'result') this.settle(m.id, (p) => p.resolve(m.result));
    else if (m.type === 'error') this.settle(m.id, (p) => p.reject(reviveError(m.error, p.signal)));
  }

  /** Ends the child: asks it to exit (disconnect), kills it if it has not within `graceMs`. */
  async shutdown(graceMs = 2000): Promise<void> {
    this.closing = true;
    if (this.child.pid === undefined || this.child.exitCode !== null || this.child.signalCode !== null) return; // never started, or gone
    if (this.child.connected) this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  store(opened: OpenedStore): RemoteCorpusStore {
    let meta: Promise<CorpusMeta | null> | undefined;
    let closed: Promise<void> | undefined;
    const call =
      (method: string) =>
      (...args: unknown[]) =>
        this.call(method, args);
    const store: Record<string, unknown> = {
      kind: opened.kind,
      schema: opened.schema,
      readOnly: opened.readOnly,
      pid: opened.pid,
    };
    for (const m of STORE_METHODS) store[m] = call(m);
    for (const m of OPTIONAL_METHODS) if (opened.methods.includes(m)) store[m] = call(m);
    // meta() is cached after the first call, as every store caches it: a lookup stays one request.
    store.meta = () => {
      if (this.dead) return Promise.reject(this.dead);
      meta ??= (this.call('meta', []) as Promise<CorpusMeta | null>).catch((err) => {
        meta = undefined;
        throw err;
      });
      return meta;
    };
    store.init = async (o: unknown) => {
      const m = (await this.call('init', [o])) as CorpusMeta;
      meta = Promise.resolve(m);
      return m;
    };
    store.close = () => {
      closed ??= (async () => {
        try {
          // A child that never answers (wedged WASM) must not hold every later reopen of the corpus: after
          // CLOSE_ANSWER_MS it is ended as a crashed one is, and PGlite replays its WAL on the next open.
          if (!this.dead) await withDeadline(this.call('close', []), CLOSE_ANSWER_MS);
        } finally {
          this.closing = true;
          this.dead ??= new StoreError('the corpus is closed');
          await this.shutdown();
        }
      })();
      return closed;
    };
    return store as unknown as RemoteCorpusStore;
  }
}

/** How long close() waits for the child to close its corpus before ending the process. */
const CLOSE_ANSWER_MS = 30_000;

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** An error as sent from the child: its name, message and own enumerable fields that can be cloned. */
export function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const out: SerializedError = { name: err.name, message: err.message };
  for (const [k, v] of Object.entries(err)) {
    if (k === 'name' || k === 'message' || k === 'cause' || typeof v === 'function') continue;
    out[k] = v;
  }
  if (err.stack) out.remoteStack = err.stack;
  return out;
}

/** The child's error with its class back: StoreError, CorpusMismatchError (with its fields), AbortError. */
export function reviveError(e: SerializedError, signal?: AbortSignal): Error {
  const { name, message, remoteStack, ...fields } = e;
  let err: Error;
  if (name === 'AbortError') {
    // The caller aborted: reject with its own reason, as the in-process store's signal.throwIfAborted() does.
    if (signal?.aborted && signal.reason instanceof Error) return signal.reason;
    err = new DOMException(message, 'AbortError');
    return err;
  }
  if (name === 'CorpusMismatchError' && isModel(fields.corpus) && isModel(fields.query)) {
    err = new CorpusMismatchError(fields.corpus, fields.query);
    Object.defineProperty(err, 'message', { value: message, writable: true, configurable: true });
    return err;
  }
  if (name === 'StoreError') err = new StoreError(message);
  else {
    err = new Error(message);
    err.name = name;
    Object.assign(err, fields);
  }
  if (typeof remoteStack === 'string') Object.defineProperty(err, 'remoteStack', { value: remoteStack, enumerable: false });
  return err;
}

function isModel(v: unknown): v is { model: string; dimensions: number } {
  return isPlainObject(v) && typeof v.model === 'string' && typeof v.dimensions === 'number';
}
