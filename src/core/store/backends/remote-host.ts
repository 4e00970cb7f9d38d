// The child process behind `openRemoteStore` (remote.ts), bundled as dist/store-host.js: one corpus per process,
// opened with `openStore` on the first request, every later request a method call on it. It exits when the parent
// disconnects (close(), or the parent died: no orphan survives a crashed extension host).
// An embedded corpus is handed over when another opener asks (SIGUSR2, ops/lock.ts): once no request is in flight
// the corpus is closed, and the next request opens it again (asking the new owner in turn), so a reloaded
// code-server tab or a second window gets the corpus instead of "in use by" a window nobody looks at.
import { openStore, type OpenStoreOptions } from '../index.js';
import { HANDOVER_WAIT_MS } from '../ops/lock.js';
import {
  CALLBACK_MARK,
  OPTIONAL_METHODS,
  SIGNAL_MARK,
  STORE_METHODS,
  serializeError,
  type HostReply,
  type HostRequest,
  type OpenedStore,
} from './remote.js';
import { StoreError, type CorpusStore } from '../types.js';

type Method = (...args: unknown[]) => Promise<unknown>;

let store: CorpusStore | undefined;
let opening: Promise<unknown> | undefined;
let closed: Promise<void> | undefined;
let methods = new Map<string, Method>();
const controllers = new Map<number, AbortController>();
/** What `open` was given, to open the corpus again after a handover. */
let target: { path: string; options: OpenStoreOptions } | undefined;
/** Requests being served: a handover waits for them (a write is never cut off by another window). */
let inFlight = 0;
let handoverAsked = false;
let handingOver: Promise<void> | undefined;
let reopening: Promise<void> | undefined;

// Registered before the corpus is opened: the lock advertises the handover only to a process that handles it.
process.on('SIGUSR2', () => {
  handoverAsked = true;
  handOverIfIdle();
});

function handOverIfIdle(): void {
  if (!handoverAsked || inFlight > 0 || !store || handingOver || closed) return;
  handoverAsked = false;
  const s = store;
  store = undefined;
  methods = new Map();
  handingOver = s
    .close()
    .catch(() => undefined)
    .finally(() => (handingOver = undefined));
}

/** Opens the corpus again after a handover: the opener there now is asked to hand it back, and waited for. */
async function ensureOpen(): Promise<void> {
  if (store || !target) return;
  if (handingOver) await handingOver;
  if (store) return;
  const { path, options } = target;
  reopening ??= openStore(path, { ...options, lockWaitMs: Math.max(options.lockWaitMs ?? 0, HANDOVER_WAIT_MS) })
    .then((s) => {
      yieldAfterTransactions(s);
      store = s;
      methods = methodsOf(s);
    })
    .finally(() => (reopening = undefined));
  await reopening;
}

function send(m: HostReply): void {
  if (!process.connected) return;
  try {
    // The parent may disconnect while a reply is on its way (close() during a lookup): the send then fails with
    // EPIPE, which without a callback is an uncaught 'error' that kills this process mid-close.
    process.send!(m, undefined, undefined, () => undefined);
  } catch (err) {
    // A result that cannot be cloned: say so instead of leaving the call pending.
    if (m.type === 'result')
      send({ type: 'error', id: m.id, error: serializeError(new StoreError(`cannot send the result: ${(err as Error).message}`)) });
  }
}

/** The methods the proxy may call: the interface's, and the optional ones this store has. */
function methodsOf(s: CorpusStore): Map<string, Method> {
  const out = new Map<string, Method>();
  const any = s as unknown as Record<string, unknown>;
  for (const name of [...STORE_METHODS, ...OPTIONAL_METHODS]) {
    const f = any[name];
    if (typeof f === 'function') out.set(name, (f as Method).bind(s));
  }
  out.set('close', () => (closed ??= s.close()));
  return out;
}

/**
 * PGlite's work is synchronous WASM behind promises that settle as microtasks: a long write never lets the event
 * loop turn, so an abort message would be read only after the whole write. One turn of the loop after each
 * transaction (a group of ≤ 2,000 sentences) lets it in before writePapers checks its signal for the next group:
 * the write stops at the first group boundary after the abort arrives, as in-process.
 */
function yieldAfterTransactions(s: CorpusStore): void {
  const driver = (s as unknown as { driver?: { transaction?: (fn: unknown) => Promise<unknown> } }).driver;
  if (!driver || typeof driver.transaction !== 'function') return;
  const transaction = driver.transaction.bind(driver);
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  driver.transaction = (fn) => transaction(fn).finally(turn);
}

async function open(path: string, options: OpenStoreOptions): Promise<OpenedStore> {
  if (store || opening) throw new StoreError('this corpus process already has a corpus open');
  // The lock file names this process to other openers: say whose corpus process it is.
  // A long-lived process answering many hybrid lookups (Q&A, related work): worth the keyword index's load.
  const full: OpenStoreOptions = {
    owner: `Corpus Lens corpus process of the VS Code extension host ${process.ppid}`,
    keywordIndex: true,
    handover: true,
    ...options,
  };
  const p = openStore(path, full);
  opening = p;
  target = { path, options: full };
  store = await p;
  yieldAfterTransactions(store);
  methods = methodsOf(store);
  return {
    kind: store.kind,
    schema: store.schema,
    readOnly: store.readOnly,
    methods: OPTIONAL_METHODS.filter((m) => methods.has(m)),
    pid: process.pid,
  };
}

async function call(id: number, method: string, rawArgs: unknown[]): Promise<unknown> {
  if (method === 'open') return open(rawArgs[0] as string, (rawArgs[1] ?? {}) as OpenStoreOptions);
  if (!target) throw new StoreError('no corpus is open in this process');
  // Closing a corpus that was handed over: nothing to close, and no reason to take it back first.
  if (method === 'close' && !store) return handingOver;
  await ensureOpen();
  const f = methods.get(method);
  if (!store) throw new StoreError('no corpus is open in this process');
  if (!f) throw new StoreError(`this corpus has no method ${method}`);
  const signal = () => {
    let c = controllers.get(id);
    if (!c) controllers.set(id, (c = new AbortController()));
    return c.signal;
  };
  const revive = (v: unknown, key: string): unknown => {
    if (v === SIGNAL_MARK) return signal();
    if (v === CALLBACK_MARK) return (...args: unknown[]) => send({ type: 'event', id, name: key, args });
    return v;
  };
  const args = rawArgs.map((a) => {
    if (a === SIGNAL_MARK) return signal();
    if (a === null || typeof a !== 'object' || Array.isArray(a) || ArrayBuffer.isView(a)) return a;
    return Object.fromEntries(Object.entries(a).map(([k, v]) => [k, revive(v, k)]));
  });
  return f(...args);
}

process.on('message', (raw) => {
  const m = raw as HostRequest;
  if (m.type === 'abort') {
    controllers.get(m.id)?.abort();
    return;
  }
  if (m.type !== 'call') return;
  // The controller exists before the first await: an abort sent right after the call finds it.
  if (m.args.some((a) => a === SIGNAL_MARK || (a !== null && typeof a === 'object' && Object.values(a).includes(SIGNAL_MARK)))) {
    const c = new AbortController();
    if (m.aborted) c.abort();
    controllers.set(m.id, c);
  }
  inFlight++;
  call(m.id, m.method, m.args)
    .then(
      (result) => send({ type: 'result', id: m.id, result }),
      (err) => send({ type: 'error', id: m.id, error: serializeError(err) }),
    )
    .finally(() => {
      controllers.delete(m.id);
      inFlight--;
      handOverIfIdle();
    });
});

// close() and a dead parent both end here: close the corpus (PGlite flushes its files), then exit.
process.on('disconnect', () => {
  const closing = store ? (closed ??= store.close()).catch(() => undefined) : (handingOver ?? Promise.resolve());
  const timer = setTimeout(() => process.exit(0), 1500);
  void closing.then(() => {
    clearTimeout(timer);
    process.exit(0);
  });
});

process.on('unhandledRejection', (err) => {
  process.stderr.write(`corpus process: unhandled rejection: ${err instanceof Error ? err.stack : String(err)}\n`);
});

if (!process.send) {
  process.stderr.write('corpus-lens store host: run by openRemoteStore (child_process.fork), not directly\n');
  process.exit(2);
}
