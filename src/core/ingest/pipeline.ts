// The ingest pipeline: files and folders (or the items of a library such as Zotero's, src/core/sources/) →
// readers → embeddings → store. Idempotent and resumable: an unchanged source is not read again, a changed one
// replaces its papers, each paper is written whole, and a run killed at any point and restarted ends with the
// same corpus. One bad source never stops the run.
import { readFile, stat } from 'node:fs/promises';
import { extname, relative, resolve } from 'node:path';
import { minimatch } from 'minimatch';
import type { Embedder } from '../embed/types.js';
import { deferIndexesFrom, type CorpusStore, type IndexPrecision, type PaperInput, type SourceCopy } from '../store/types.js';
import { PAPER_EXTENSIONS, readPaperFile, sniffKind } from './index.js';
import { collectBibIndex, elementEmbeddingText, listPaperFiles, toPaperInput, type ParsedBib } from './folder.js';
import { bibPapers } from './bib.js';
import { selectPaperFiles } from './latex.js';
import { initCorpus } from './corpus-embedder.js';
import { sha256Hex } from './paper.js';
import { mergeWork, textRank, WorkIndex, type Work } from './identity.js';
import { fillFromStored, keepStoredTitle, retitled, StoredWorks } from './stored-work.js';
import { proposeMetadata } from './propose-metadata.js';
import type { ChatModel } from '../llm/chat.js';
import { formatBibtexEntry, makeCitationKey } from '../bib/format.js';
import type { BibIndex } from '../bib/bib-index.js';
import type { ParsedPaper, ReadError, ReadResult } from './types.js';

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
  /** Within a source of many papers (a .bib), written batch by batch: its papers written so far, of how many. */
  filePapers?: { done: number; total: number };
}

export interface IngestSummary {
  papers: number;
  sentences: number;
  /** Figures, tables and equations written (stores with elements). */
  elements: number;
  /** Files (or papers of a changed .bib) that needed no work because they are already in the corpus. */
  skipped: number;
  /** Records of a work merged into another record of it (a PDF into its LaTeX source): one paper each. */
  merged?: number;
  /**
   * Stored papers whose made-up title (a LaTeX source without \title) took the real one a record of their work read
   * now brings (its PDF, a .bib entry), their text kept.
   */
  retitled?: number;
  failed: ReadError[];
  /** Problems that lost nothing (e.g. a .bib entry kept with an undefined macro as text): not failures. */
  warnings: ReadError[];
}

export interface IngestOptions {
  embedder: Embedder;
  /** Only files whose path (relative to the folder given) matches, e.g. `**\/*.pdf`. */
  glob?: string;
  signal?: AbortSignal;
  onProgress?: (p: IngestProgress) => void;
  /** Sentences buffered before a write (default 2,000). */
  writeBatch?: number;
  /** How a corpus this run creates holds its vectors in the indexes (the store's default where absent). */
  indexPrecision?: IndexPrecision;
  /**
   * Read every source again, unchanged ones too, and replace the papers stored from it (a fix of the corpus health
   * report: sources re-indexed in one run merge into one paper per work; a .bib given with them lends its metadata).
   */
  reindex?: boolean;
  /** A chat model that proposes title, authors and year for a PDF that has none (propose-metadata.ts); none: offline. */
  chat?: ChatModel | null;
}

/** One source to read: a file, or an item of a library. */
export interface IngestUnit {
  /** Shown in progress and failures: a path, or a library item. */
  label: string;
  /**
   * The source path and content hash the unit's papers will carry, when known before reading (cheaply): a unit the
   * corpus already holds with this hash is skipped unread. Null: read it, and let its papers' hashes decide.
   */
  identity(): Promise<{ sourcePath: string; contentHash: string } | null>;
  /** Problems still to report when the unit is skipped as unchanged (a .bib's malformed entries). */
  problemsWhenSkipped?(): { errors: ReadError[]; warnings: ReadError[] };
  /** Sentences the unit is expected to add, known cheaply before reading (the embedded corpus's size check). */
  estimate?(): Promise<number>;
  read(signal?: AbortSignal): Promise<ReadResult>;
}

export async function ingest(store: CorpusStore, inputs: readonly string[], options: IngestOptions): Promise<IngestSummary> {
  const { units, unreadable } = await fileUnits(inputs, options.glob);
  const summary = await ingestUnits(store, units, options);
  // Folders the walk could not read are failures too: their papers are missing.
  summary.failed.unshift(...unreadable);
  return summary;
}

/** A unit for each paper file under the inputs (folders walked), and the folders the walk could not read. */
export async function fileUnits(inputs: readonly string[], glob?: string): Promise<{ units: IngestUnit[]; unreadable: ReadError[] }> {
  const unreadable: ReadError[] = [];
  const files = await collectFiles(inputs, glob, unreadable);
  const {
    index: bib,
    errors: bibErrors,
    warnings: bibWarnings,
    parsed,
  } = await collectBibIndex(files.filter((f) => extname(f).toLowerCase() === '.bib'));
  const units = files.map((f) => fileUnit(f, bib, { errors: bibErrors, warnings: bibWarnings }, parsed.get(f)));
  return { units, unreadable };
}

/** A paper file; a LaTeX project's hash covers its includes, so it is always read (its papers' hashes decide). */
function fileUnit(
  file: string,
  bib: BibIndex,
  bibProblems: { errors: ReadError[]; warnings: ReadError[] },
  parsedBib?: ParsedBib,
): IngestUnit {
  let kind: ReturnType<typeof sniffKind> = null;
  let hash = '';
  return {
    label: file,
    identity: async () => {
      const bytes = await readFile(file);
      kind = sniffKind(file, bytes);
      hash = sha256Hex(bytes);
      return kind === 'latex' ? null : { sourcePath: file, contentHash: hash };
    },
    // A .bib's problems are reported once: by its own read, or from the BibIndex's read when it is skipped as unchanged.
    problemsWhenSkipped: () =>
      kind === 'bibtex'
        ? { errors: bibProblems.errors.filter((e) => e.file === file), warnings: bibProblems.warnings.filter((e) => e.file === file) }
        : { errors: [], warnings: [] },
    // A .bib the BibIndex has parsed (and that has not changed since): its papers from that parse.
    read: async (signal) =>
      kind === 'bibtex' && parsedBib?.contentHash === hash
        ? {
            papers: bibPapers(parsedBib.records, file, hash),
            errors: parsedBib.errors,
            warnings: [...parsedBib.decodeWarnings.map((reason) => ({ file, reason })), ...parsedBib.warnings],
          }
        : readPaperFile(file, { bib, signal }),
  };
}

/** A paper without a title gets the model's proposal (checked against its page 1), marked as proposed; real fields stay. */
async function fillProposed(paper: ParsedPaper, chat: ChatModel, signal?: AbortSignal): Promise<void> {
  if (paper.title || !paper.firstPage) return;
  const proposed = await proposeMetadata(chat, paper.firstPage, signal);
  if (!proposed) return;
  paper.title = proposed.title;
  if (!paper.authors.length) paper.authors = proposed.authors;
  paper.year ??= proposed.year;
  paper.metadataProposedBy = proposed.model;
  if (!paper.ownKey) paper.citationKey = makeCitationKey(paper, new Set());
  paper.bibtex = formatBibtexEntry(paper, paper.citationKey!);
}

/** The writing path every source shares: skip what is unchanged, read, embed, write in batches. */
export async function ingestUnits(store: CorpusStore, units: readonly IngestUnit[], options: IngestOptions): Promise<IngestSummary> {
  const { embedder, signal } = options;
  const summary: IngestSummary = { papers: 0, sentences: 0, elements: 0, skipped: 0, failed: [], warnings: [] };
  await initCorpus(store, embedder, { indexPrecision: options.indexPrecision, signal });
  const known = new Map((await store.sources()).map((s) => [s.id, s]));
  const knownHashes = new Set([...known.values()].map((s) => `${s.sourcePath}\u0000${s.contentHash}`));
  // A file that is a worse copy of a stored paper's work (the PDF compiled from its LaTeX source) is skipped unread
  // like an unchanged source, while its paper is stored (a user who deletes that paper gets the file read again).
  const copies = new Map(((await store.sourceCopies?.()) ?? []).map((c) => [c.sourcePath, c]));
  const unchanged = (id: { sourcePath: string; contentHash: string }) => {
    const copy = copies.get(id.sourcePath);
    return knownHashes.has(`${id.sourcePath}\u0000${id.contentHash}`) || (copy?.contentHash === id.contentHash && known.has(copy.paperId));
  };
  /** Files read by this run that are copies of a paper's work, none of their own text stored: recorded at its end. */
  const copiesFound = new Map<string, SourceCopy>();
  /** Files read by this run: what was recorded of them as copies is replaced. */
  const filesReadNow = new Set<string>();
  /** Records of this run written as the one paper of their file (by id): the file, should the record be merged away. */
  const ownFile = new Map<string, { sourcePath: string; contentHash: string }>();
  // One paper per work: each record read is matched against the works of the run (and the stored papers' DOIs and
  // arXiv ids); a second record of a work is merged into the first (identity.ts), never written beside it.
  const works = new WorkIndex();
  for (const id of known.keys()) works.addStored(id);
  const storedBySource = new Map<string, string[]>();
  for (const s of known.values()) if (s.sourcePath) storedBySource.set(s.sourcePath, [...(storedBySource.get(s.sourcePath) ?? []), s.id]);
  /** Papers stored before this run, still there and not taken by a record of it: what a record's text may match. */
  const storedAtStart = new Set(known.keys());
  const taken = new Set<string>();
  const eligible = (id: string) => storedAtStart.has(id) && known.has(id) && !taken.has(id);
  const storedWorks = new StoredWorks(store, storedAtStart);
  /** Papers of this run written to the store already (a replaced one is deleted from it). */
  const written = new Set<string>();
  /** Every paper this run produced (written or waiting): a re-index never deletes those. */
  const produced = new Set<string>();
  const started = Date.now();
  const indexes = searchIndexes(store);
  const existing = indexes ? (await store.counts()).sentences : 0;
  let pending: PaperInput[] = [];
  let pendingSentences = 0;
  let filesRead = 0;
  const flush = async () => {
    if (!pending.length) return;
    // A large load is faster into a table without its HNSW and full-text indexes, built once at the end.
    const expected = summary.sentences + (pendingSentences / Math.max(1, filesRead)) * (units.length - summary.skipped);
    if (indexes && !indexes.dropped && expected >= deferIndexesFrom(existing)) await indexes.drop();
    const batch = pending;
    pending = [];
    pendingSentences = 0;
    const result = await store.writePapers(batch, { signal });
    for (const p of batch) written.add(p.id);
    summary.papers += result.papers;
    summary.sentences += result.sentences;
    summary.elements += result.elements ?? 0;
  };
  /** Takes a record of this run out (it was merged into a better one): from the pending batch, else the store. */
  const retract = async (work: Work) => {
    if (pending.some((p) => p.id === work.id)) {
      pending = pending.filter((p) => p.id !== work.id);
      pendingSentences = pending.reduce((n, p) => n + p.sentences.length, 0);
      known.delete(work.id);
    } else if (written.has(work.id)) {
      await store.deletePapers([work.id]);
      written.delete(work.id);
      summary.papers--;
      summary.sentences -= work.paper?.sentences.length ?? 0;
      known.delete(work.id);
    }
    // Else the record was its stored paper, unchanged: it stays known, so the merged record (same text) is skipped.
    summary.merged = (summary.merged ?? 0) + 1;
  };
  /** The records of a unit with every second record of a work merged into its first. */
  const oneRecordPerWork = async (papers: readonly ParsedPaper[]): Promise<ParsedPaper[]> => {
    const out: ParsedPaper[] = [];
    for (let paper of papers) {
      const match = works.find(paper);
      // Not a work of this run nor a stored DOI / arXiv id, and not a re-read of its own stored paper: a stored paper
      // with the same text (its LaTeX source indexed by an earlier run, a PDF indexed before) takes it in.
      const stored = !match && storedAtStart.size && !known.has(paper.id) ? await storedWorks.find(paper, eligible, signal) : undefined;
      if (stored) {
        // Counted as merged when its text replaces the stored one; a worse text is skipped as unchanged (freshPapers).
        const old = known.get(stored.id);
        if (old && textRank(paper) > textRank(old)) summary.merged = (summary.merged ?? 0) + 1;
        paper = fillFromStored(paper, stored);
        // A stored title the reader made up takes this record's real one, though its worse text is skipped (retitled).
        const metadata = retitled(stored, paper);
        if (metadata && (await store.updatePaperMetadata?.(stored.id, metadata))) summary.retitled = (summary.retitled ?? 0) + 1;
        works.add(paper);
      } else if (!match) works.add(paper);
      else if (!match.paper) {
        // A stored paper with this DOI / arXiv id: the record takes its id (freshPapers decides which text stays).
        paper = { ...paper, id: match.id };
        works.add(paper);
      } else {
        const merged = mergeWork(match.paper, paper);
        // The earlier record was a stored paper read again: the work keeps that paper's id (freshPapers compares texts).
        if (storedAtStart.has(match.id) && known.has(match.id)) merged.id = match.id;
        await retract(match);
        // The earlier record's file (a PDF read before its LaTeX source) is now a copy of the merged paper's work.
        const file = ownFile.get(match.id);
        if (file) copiesFound.set(file.sourcePath, { ...file, paperId: merged.id });
        works.add(merged, match);
        paper = merged;
      }
      if (storedAtStart.has(paper.id)) taken.add(paper.id);
      out.push(paper);
    }
    return out;
  };

  try {
    for (const [i, unit] of units.entries()) {
      signal?.throwIfAborted();
      try {
        const id = await unit.identity();
        if (id && !options.reindex && unchanged(id)) {
          summary.skipped++;
          const problems = unit.problemsWhenSkipped?.();
          summary.failed.push(...(problems?.errors ?? []));
          summary.warnings.push(...(problems?.warnings ?? []));
        } else {
          filesRead++;
          if (id) filesReadNow.add(id.sourcePath);
          const result = await unit.read(signal);
          if (options.chat) for (const p of result.papers) await fillProposed(p, options.chat, signal);
          summary.failed.push(...result.errors);
          summary.warnings.push(...(result.warnings ?? []));
          let records = await oneRecordPerWork(result.papers);
          // A made-up title (no \title) read again keeps the real one a later run brought its stored paper (retitled),
          // wherever the record is written over that paper: a re-index, or an edit that changed no sentence (its id
          // stays) on a plain run. Only then is the corpus's metadata read.
          const rewrites = (p: ParsedPaper) =>
            !!p.titleFallback &&
            known.has(p.id) &&
            !produced.has(p.id) &&
            (!!options.reindex || known.get(p.id)!.contentHash !== p.contentHash);
          if (store.listPapers && records.some(rewrites)) {
            const stored = new Map((await store.listPapers()).map((r) => [r.id, r]));
            records = records.map((p) => (rewrites(p) ? keepStoredTitle(p, stored.get(p.id)) : p));
          }
          if (options.reindex) {
            // Read well: what was stored from this source before the run goes, and its records are written afresh.
            const before = [...new Set([unit.label, ...records.map((p) => p.sourcePath)])]
              .flatMap((s) => (s ? (storedBySource.get(s) ?? []) : []))
              .filter((id) => known.has(id) && !produced.has(id));
            if (before.length) {
              await store.deletePapers(before);
              before.forEach((id) => known.delete(id));
            }
          }
          // A stored paper its source no longer yields (an edited draft's previous version, an entry since removed).
          const yielded = new Set(records.map((p) => p.id));
          const gone = [...new Set(records.map((p) => p.sourcePath))]
            .flatMap((s) => (s ? (storedBySource.get(s) ?? []) : []))
            .filter((id) => !yielded.has(id) && known.has(id) && !written.has(id));
          if (gone.length) {
            await store.deletePapers(gone);
            gone.forEach((id) => known.delete(id));
          }
          const storedBefore = new Map(records.map((p) => [p.id, known.get(p.id)]));
          const fresh = await freshPapers(store, records, known, summary);
          // A file of one paper is a copy when its record was skipped (a stored paper of its work has the better text)
          // or took another's better text (merged with a record read before it); so is the file a stored paper was read
          // from when this record's better text replaces it (a PDF indexed before its LaTeX source).
          const [only] = id && result.papers.length === 1 && records.length === 1 ? records : [];
          if (only && fresh.includes(only) && only.sourcePath === id!.sourcePath) ownFile.set(only.id, id!);
          else if (only) copiesFound.set(id!.sourcePath, { ...id!, paperId: only.id });
          for (const p of fresh) {
            const old = storedBefore.get(p.id);
            // Only a file that had no other paper stored (not a .bib of several entries, which any of them could need again).
            const from = old?.sourcePath;
            if (from && old.contentHash && from !== p.sourcePath && storedBySource.get(from)?.length === 1) {
              copiesFound.set(from, { sourcePath: from, contentHash: old.contentHash, paperId: p.id });
            }
          }
          // A paper read again in this run (a .bib entry, then its full text) replaces the one still waiting to be written.
          const replaced = new Set(fresh.map((p) => p.id));
          if (pending.some((p) => replaced.has(p.id))) {
            pending = pending.filter((p) => !replaced.has(p.id));
            pendingSentences = pending.reduce((n, p) => n + p.sentences.length, 0);
          }
          // Written batch by batch as it is embedded, also within one source: a .bib of 100,000 entries is one file, and
          // held whole (vectors included) until its end it took gigabytes and said nothing for minutes.
          for (const [k, paper] of fresh.entries()) {
            signal?.throwIfAborted();
            produced.add(paper.id);
            pending.push(await embedPaper(paper, embedder, signal));
            pendingSentences += paper.sentences.length;
            if (pendingSentences >= (options.writeBatch ?? 2000)) {
              await flush();
              if (k < fresh.length - 1) {
                options.onProgress?.({
                  ...progress(i, units.length, summary, 0, started, unit.label),
                  filePapers: { done: k + 1, total: fresh.length },
                });
              }
            }
          }
        }
      } catch (err) {
        if (signal?.aborted) throw err;
        summary.failed.push({ file: unit.label, reason: err instanceof Error ? err.message.split('\n')[0] : String(err) });
      }
      options.onProgress?.(progress(i + 1, units.length, summary, pendingSentences, started, unit.label));
    }
    await flush();
    await recordCopies(store, copiesFound, filesReadNow, copies, known);
  } finally {
    // Also after a run that was stopped with its indexes dropped: CREATE INDEX IF NOT EXISTS.
    await indexes?.create();
  }
  return summary;
}

/**
 * Records the copies a run found whose paper is stored and holds another file's text, each file none of whose own
 * text is stored (a file of several papers, a .bib, stays known by the others); forgets what was recorded of the other
 * files the run read.
 */
async function recordCopies(
  store: CorpusStore,
  found: ReadonlyMap<string, SourceCopy>,
  filesRead: ReadonlySet<string>,
  recorded: ReadonlyMap<string, SourceCopy>,
  known: ReadonlyMap<string, { sourcePath?: string | null }>,
): Promise<void> {
  if (!store.updateSourceCopies) return;
  const stored = new Set([...known.values()].map((p) => p.sourcePath));
  const record = [...found.values()].filter((c) => known.has(c.paperId) && !stored.has(c.sourcePath));
  const copied = new Set(record.map((c) => c.sourcePath));
  const forget = [...filesRead].filter((f) => recorded.has(f) && !copied.has(f));
  if (record.length || forget.length) await store.updateSourceCopies(record, forget);
}

/** The store's index controls, where it has them (the SQL backends; Supabase manages its own). */
function searchIndexes(store: CorpusStore): { dropped: boolean; drop(): Promise<void>; create(): Promise<void> } | undefined {
  const { dropSearchIndexes, createSearchIndexes } = store;
  if (!dropSearchIndexes || !createSearchIndexes) return undefined;
  const control = {
    dropped: false,
    drop: async () => {
      await dropSearchIndexes.call(store);
      control.dropped = true;
    },
    create: () => createSearchIndexes.call(store),
  };
  return control;
}

/** Papers that are new or changed; a changed paper's old rows are deleted first so it is replaced whole. */
async function freshPapers(
  store: CorpusStore,
  papers: readonly ParsedPaper[],
  known: Map<string, { contentHash: string | null; sourcePath?: string | null }>,
  summary: IngestSummary,
): Promise<ParsedPaper[]> {
  const fresh: ParsedPaper[] = [];
  const stale: string[] = [];
  for (const p of papers) {
    const old = known.get(p.id);
    // A worse text never replaces a better one of the same paper (a .bib entry or a PDF the LaTeX source, identity.ts):
    // the two used to take turns on every rerun (each run "changed" the paper back), so a rerun was never a no-op.
    if ((old && old.contentHash === p.contentHash) || (old && textRank(p) < textRank(old))) summary.skipped++;
    else {
      if (old) stale.push(p.id);
      fresh.push(p);
      known.set(p.id, { contentHash: p.contentHash, sourcePath: p.sourcePath });
    }
  }
  if (stale.length) await store.deletePapers(stale);
  return fresh;
}

async function embedPaper(paper: ParsedPaper, embedder: Embedder, signal?: AbortSignal): Promise<PaperInput> {
  // One call for the sentences and the elements (same model and dimension, as the store requires).
  const texts = [...paper.sentences.map((s) => s.text), ...(paper.elements ?? []).map((e) => elementEmbeddingText(paper, e))];
  const vectors = texts.length ? await embedder.embed(texts, { signal }) : [];
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
export async function collectFiles(inputs: readonly string[], glob?: string, unreadable: ReadError[] = []): Promise<string[]> {
  const out = new Set<string>();
  for (const input of inputs) {
    const root = resolve(input);
    const info = await stat(root).catch(() => null);
    if (!info) throw new Error(`${input}: no such file or folder`);
    if (info.isFile()) out.add(root);
    else {
      for (const f of await listPaperFiles(root, PAPER_EXTENSIONS, unreadable)) {
        if (!glob || minimatch(relative(root, f), glob, { matchBase: !glob.includes('/') })) out.add(f);
      }
    }
  }
  return selectPaperFiles([...out].sort());
}

/**
 * Papers a source has already read (the web sources): written like a file's papers, so an unchanged paper (same
 * id and content hash) is skipped and a changed one is replaced whole. Each call is one write.
 */
export async function ingestPapers(
  store: CorpusStore,
  papers: readonly ParsedPaper[],
  options: Pick<IngestOptions, 'embedder' | 'signal'>,
): Promise<IngestSummary> {
  const { embedder, signal } = options;
  const summary: IngestSummary = { papers: 0, sentences: 0, elements: 0, skipped: 0, failed: [], warnings: [] };
  await initCorpus(store, embedder, { signal });
  const known = new Map((await store.sources()).map((s) => [s.id, s]));
  const inputs: PaperInput[] = [];
  for (const paper of await freshPapers(store, papers, known, summary)) inputs.push(await embedPaper(paper, embedder, signal));
  if (inputs.length) {
    const written = await store.writePapers(inputs, { signal });
    summary.papers += written.papers;
    summary.sentences += written.sentences;
    summary.elements += written.elements ?? 0;
  }
  return summary;
}
