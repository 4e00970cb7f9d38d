// PDF.js's worker, started once per webview from a blob: copy of the extension's own dist/pdf.worker.mjs: a webview
// cannot start a Worker from its resource origin (another origin than the document's), so the file is fetched
// (connect-src: the resource origin only) and started from a blob: URL (worker-src blob: only).
import * as pdfjs from 'pdfjs-dist';

let started: Promise<void> | undefined;

export function startWorker(workerUrl: string): Promise<void> {
  started ??= (async () => {
    const res = await fetch(workerUrl);
    if (!res.ok) throw new Error(`the PDF worker did not load (HTTP ${res.status})`);
    const blob = new Blob([await res.arrayBuffer()], { type: 'text/javascript' });
    pdfjs.GlobalWorkerOptions.workerPort = new Worker(URL.createObjectURL(blob), { type: 'module' });
  })().catch((err: unknown) => {
    started = undefined;
    throw err;
  });
  return started;
}
