// The ingest pipeline: files and folders → readers → embeddings → store. Idempotent and resumable: an
// unchanged file is not read again, a changed one replaces its papers, each paper is written whole, and a run
// killed at any point and restarted ends with the same corpus. One bad file never stops the run.
import { readFile, stat } from 'node:fs/promises';
import { extname, relative, resolve } from 'node:path';
import { minimatch } from 'minimatch';
import type { Embedder } from '../embed/types.js';
import { deferIndexesFrom, type CorpusStore, type PaperInput } from '../store/types.js';
import { PAPER_EXTENSIONS, readPaperFile, sniffKind } from './index.js';
import { collectBibIndex, listPaperFiles, toPaperInput } from './folder.js';
import { selectPaperFiles } from './latex.js';
import { sha256Hex } from './paper.js';
import type { ParsedPaper, ReadError } from './types.js';

export interface IngestProgress {
  filesDone: number;
  filesTotal: number;
  papers: number;
  sentences: number;
  /** Sentences embedded and written per second so far (unchanged files excluded). */
  sentencesPerSecond: number;
  /** Estimated seconds left, once a few files are done. */
  etaSeconds: number | null;
  file?: string;
}

export interface IngestSummary {
  papers: number;
  sentences: number;
  /** Files (or papers of a changed .bib) that needed no work because they are already in the corpus. */
  skipped: number;
  failed: ReadError[];
}

export interface IngestOptions {
  embedder: Embedder;
  /** Only files whose path (relative to the folder given) matches, e.g. `**\/*.pdf`. */
  glob?: string;
  signal?: AbortSignal;
  onProgress?: (p: IngestProgress) => void;
  /** Sentences buffered before a write (default 2,000). */
  writeBatch?: number;
}

export async function ingest(store: CorpusStore, inputs: readonly string[], options: IngestOptions): Promise<IngestSummary> {
  const { embedder, signal } = options;
  const files = await collectFiles(inputs, options.glob);
  const summary: IngestSummary = { papers: 0, sentences: 0, skipped: 0, failed: [] };
  await store.init({ model: embedder.model, dimensions: embedder.dimensions });
  const known = new Map((await store.sources()).map((s) => [s.id, s]));
  const knownHashes = new Set([...known.values()].map((s) => `${s.sourcePath}\u0000${s.contentHash}`));
  const { index: bib, errors: bibErrors } = await collectBibIndex(files.filter((f) => extname(f).toLowerCase() === '.bib'));
  summary.failed.push(...bibErrors);
  const started = Date.now();
  const indexes = searchIndexes(store);
  const existing = indexes ? (await store.counts()).sentences : 0;
  let pending: PaperInput[] = [];
  let pendingSentences = 0;
  let filesRead = 0;
  const flush = async () => {
    if (!pending.length) return;
    // A large load is faster into a table without its HNSW and full-text indexes, built once at the end.
    const expected = summary.sentences + (pendingSentences / Math.max(1, filesRead)) * (files.length - summary.skipped);
    if (indexes && !indexes.dropped && expected >= deferIndexesFrom(existing)) await indexes.drop();
    const batch = pending;
    pending = [];
    pendingSentences = 0;
    const written = await store.writePapers(batch, { signal });
    summary.papers += written.papers;
    summary.sentences += written.sentences;
  };

  try {
    for (const [i, file] of files.entries()) {
      signal?.throwIfAborted();
      try {
        const bytes = await readFile(file);
        const kind = sniffKind(file, bytes);
        // Unchanged single-file sources are skipped before parsing; a LaTeX project's hash covers its includes.
        if (kind !== 'latex' && knownHashes.has(`${file}\u0000${sha256Hex(bytes)}`)) {
          summary.skipped++;
        } else {
          filesRead++;
          const result = await readPaperFile(file, { bib, signal });
          summary.failed.push(...result.errors);
          const fresh = await freshPapers(store, result.papers, known, summary);
          for (const paper of fresh) {
            pending.push(await embedPaper(paper, embedder, signal));
            pendingSentences += paper.sentences.length;
          }
          if (pendingSentences >= (options.writeBatch ?? 2000)) await flush();
        }
      } catch (err) {
        if (signal?.aborted) throw err;
        summary.failed.push({ file, reason: err instanceof Error ? err.message.split('\n')[0] : String(err) });
      }
      options.onProgress?.(progress(i + 1, files.length, summary, pendingSentences, started, file));
    }
    await flush();
  } finally {
    // Also after a run that was stopped with its indexes dropped: CREATE INDEX IF NOT EXISTS.
    await indexes?.create();
  }
  return summary;
}

/** The store's index controls, where it has them (the SQL backends; Supabase manages its own). */
function searchIndexes(store: CorpusStore): { dropped: boolean; drop(): Promise<void>; create(): Promise<void> } | undefined {
  const s = store as Partial<{ dropSearchIndexes(): Promise<void>; createSearchIndexes(): Promise<void> }>;
  if (typeof s.dropSearchIndexes !== 'function' || typeof s.createSearchIndexes !== 'function') return undefined;
  const control = {
    dropped: false,
    drop: async () => {
      await s.dropSearchIndexes!();
      control.dropped = true;
    },
    create: () => s.createSearchIndexes!(),
  };
  return control;
}

/** Papers that are new or changed; a changed paper's old rows are deleted first so it is replaced whole. */
async function freshPapers(
  store: CorpusStore,
  papers: readonly ParsedPaper[],
  known: Map<string, { contentHash: string | null }>,
  summary: IngestSummary,
): Promise<ParsedPaper[]> {
  const fresh: ParsedPaper[] = [];
  const stale: string[] = [];
  for (const p of papers) {
    const old = known.get(p.id);
    if (old && old.contentHash === p.contentHash) summary.skipped++;
    else {
      if (old) stale.push(p.id);
      fresh.push(p);
      known.set(p.id, { contentHash: p.contentHash });
    }
  }
  if (stale.length) await store.deletePapers(stale);
  return fresh;
}

async function embedPaper(paper: ParsedPaper, embedder: Embedder, signal?: AbortSignal): Promise<PaperInput> {
  const vectors = paper.sentences.length ? await embedder.embed(paper.sentences.map((s) => s.text), { signal }) : [];
  return toPaperInput(paper, vectors);
}

function progress(done: number, total: number, s: IngestSummary, pendingSentences: number, started: number, file: string): IngestProgress {
  const seconds = (Date.now() - started) / 1000;
  const sentences = s.sentences + pendingSentences;
  return {
    filesDone: done,
    filesTotal: total,
    papers: s.papers,
    sentences,
    sentencesPerSecond: seconds > 0 ? sentences / seconds : 0,
    etaSeconds: done >= 3 && seconds > 0 ? ((total - done) * seconds) / done : null,
    file,
  };
}

/** The paper files under the inputs (folders walked; files included by a LaTeX main file left to it), sorted. */
export async function collectFiles(inputs: readonly string[], glob?: string): Promise<string[]> {
  const out = new Set<string>();
  for (const input of inputs) {
    const root = resolve(input);
    const info = await stat(root).catch(() => null);
    if (!info) throw new Error(`${input}: no such file or folder`);
    if (info.isFile()) out.add(root);
    else {
      for (const f of await listPaperFiles(root, PAPER_EXTENSIONS)) {
        if (!glob || minimatch(relative(root, f), glob, { matchBase: !glob.includes('/') })) out.add(f);
      }
    }
  }
  return selectPaperFiles([...out].sort());
}
