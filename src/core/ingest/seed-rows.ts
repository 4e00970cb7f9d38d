// The seed's (CorpusStudio's) row format, as JSONL: Document rows (one sentence each) and Source rows (one paper
// each). Parsing reports bad lines with their line numbers and keeps the good ones; importing groups the rows
// into papers, derives the section ordinal, embeds rows without an embedding and writes one paper per transaction.
import { contextDescriptor, contextualize, DEFAULT_CONTEXT_WEIGHT, type ContextOptions } from '../embed/context.js';
import type { Embedder } from '../embed/types.js';
import { deferIndexesFrom, StoreError, type CorpusStore, type PaperInput, type WriteResult } from '../store/types.js';
import { initCorpus } from './corpus-embedder.js';

export interface DocumentRow {
  doc_id: string;
  text: string;
  section_title: string | null;
  section_number: string | null;
  sentence_index: number;
  global_index: number;
  embedding?: number[] | null;
  page?: number | null;
}

export interface SourceRow {
  doc_id: string;
  title: string | null;
  abstract: string | null;
  authors: string[];
  doi_link: string | null;
  venue_name: string | null;
  year: number | null;
}

export interface LineError {
  file: string;
  line: number;
  message: string;
}

export interface Lined<T> {
  line: number;
  row: T;
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

function optString(o: Record<string, unknown>, key: string): string | null {
  const v = o[key];
  if (v == null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new Error(`${key} must be a string`);
}

function parseEmbedding(v: unknown): number[] | null {
  if (v == null) return null;
  let arr = v;
  if (typeof v === 'string') arr = JSON.parse(v); // PostgREST/pgvector text form "[1,2,3]"
  if (!Array.isArray(arr) || arr.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
    throw new Error('embedding must be an array of finite numbers');
  }
  return arr as number[];
}

export function documentRow(o: unknown): DocumentRow {
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error('not a JSON object');
  const r = o as Record<string, unknown>;
  const docId = r.doc_id;
  if (typeof docId !== 'string' && typeof docId !== 'number') throw new Error('doc_id is missing');
  if (typeof r.text !== 'string' || !r.text.trim()) throw new Error('text is missing');
  if (!isInt(r.sentence_index)) throw new Error('sentence_index must be an integer');
  if (!isInt(r.global_index)) throw new Error('global_index must be an integer');
  return {
    doc_id: String(docId),
    text: r.text,
    section_title: optString(r, 'section_title'),
    section_number: optString(r, 'section_number'),
    sentence_index: r.sentence_index,
    global_index: r.global_index,
    embedding: parseEmbedding(r.embedding),
    page: isInt(r.page) ? r.page : null,
  };
}

function parseAuthors(v: unknown): string[] {
  if (v == null) return [];
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string') {
    const s = v.trim();
    if (s.startsWith('[')) {
      try {
        return parseAuthors(JSON.parse(s));
      } catch {
        /* a plain string */
      }
    }
    return s ? s.split(/\s*(?:;|,| and )\s*/).filter(Boolean) : [];
  }
  throw new Error('authors must be a string or an array');
}

export function sourceRow(o: unknown): SourceRow {
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error('not a JSON object');
  const r = o as Record<string, unknown>;
  const docId = r.doc_id;
  if (typeof docId !== 'string' && typeof docId !== 'number') throw new Error('doc_id is missing');
  let year: number | null = null;
  if (r.year != null) {
    year = typeof r.year === 'string' ? Number(r.year) : (r.year as number);
    if (!isInt(year)) throw new Error('year must be an integer');
  }
  return {
    doc_id: String(docId),
    title: optString(r, 'title'),
    abstract: optString(r, 'abstract'),
    authors: parseAuthors(r.authors),
    doi_link: optString(r, 'doi_link'),
    venue_name: optString(r, 'venue_name'),
    year,
  };
}

/** Parses JSONL text; a bad line becomes an error with its (1-based) line number; blank lines are skipped. */
export function parseJsonl<T>(text: string, file: string, validate: (o: unknown) => T): { rows: Lined<T>[]; errors: LineError[] } {
  const rows: Lined<T>[] = [];
  const errors: LineError[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      rows.push({ line: i + 1, row: validate(JSON.parse(raw)) });
    } catch (err) {
      errors.push({ file, line: i + 1, message: err instanceof Error ? err.message.split('\n')[0] : String(err) });
    }
  });
  return { rows, errors };
}

/** A DOI from a doi_link (`https://doi.org/10.x/y` → `10.x/y`). */
function doiOf(link: string | null): string | null {
  if (!link) return null;
  const m = /(10\.\d{4,9}\/\S+)/.exec(link);
  return m ? m[1] : link;
}

export interface PendingPaper extends Omit<PaperInput, 'sentences'> {
  sentences: (Omit<PaperInput['sentences'][number], 'embedding'> & { embedding: Float32Array | null; line: number })[];
}

/**
 * Groups Document rows by doc_id into papers with their Source metadata. The section ordinal is the order of
 * each distinct (section_number, section_title) by its first global_index, so context never crosses sections.
 */
export function papersFromRows(documents: readonly Lined<DocumentRow>[], sources: readonly Lined<SourceRow>[]): PendingPaper[] {
  const meta = new Map(sources.map((s) => [s.row.doc_id, s.row]));
  const byDoc = new Map<string, Lined<DocumentRow>[]>();
  for (const d of documents) {
    const list = byDoc.get(d.row.doc_id) ?? [];
    list.push(d);
    byDoc.set(d.row.doc_id, list);
  }
  const papers: PendingPaper[] = [];
  for (const [id, rows] of byDoc) {
    rows.sort((a, b) => a.row.global_index - b.row.global_index);
    const sectionOf = new Map<string, number>();
    for (const { row } of rows) {
      const key = JSON.stringify([row.section_number, row.section_title]);
      if (!sectionOf.has(key)) sectionOf.set(key, sectionOf.size);
    }
    const s = meta.get(id);
    papers.push({
      id,
      title: s?.title ?? null,
      authors: s?.authors ?? [],
      year: s?.year ?? null,
      venue: s?.venue_name ?? null,
      doi: doiOf(s?.doi_link ?? null),
      url: s?.doi_link ?? null,
      abstract: s?.abstract ?? null,
      sentences: rows.map(({ row, line }) => ({
        sectionTitle: row.section_title,
        sectionNumber: row.section_number,
        sectionIndex: sectionOf.get(JSON.stringify([row.section_number, row.section_title]))!,
        sentenceIndex: row.sentence_index,
        globalIndex: row.global_index,
        page: row.page ?? null,
        text: row.text,
        embedding: row.embedding ? Float32Array.from(row.embedding) : null,
        line,
      })),
    });
  }
  return papers;
}

export interface ImportResult extends WriteResult {
  /** Sentences embedded during the import (rows that had no embedding). */
  embedded: number;
  /** Rows refused (wrong embedding length), reported with their line numbers. */
  errors: LineError[];
}

/**
 * The section context of `--context section`: each stored sentence vector is blended with the rest of its
 * (paper, section), weight 1. Measured through the store (k = 25 sentence hits, all 2,138 train claims, vector
 * mode): paper recall@10 0.745 with weight 1 vs 0.624 with weight 2 — at weight 2 a paper's sentences become
 * near-duplicates and fill the 25 hits with few papers (bench/retrieval.bench.ts). Not contextualize's own default.
 */
export const DEFAULT_IMPORT_CONTEXT: ContextOptions = { weight: 1, window: 'all' };

/** `'none'` (or weight 0) = plain vectors; otherwise the contextualize options. */
export type ImportContext = ContextOptions | 'none';

/**
 * Plain vectors unless asked: section context lifts paper recall for citation retrieval, but a sentence then no
 * longer finds its own wording at similarity ≈ 1, which the panel's phrasing view and the originality guard need.
 */
function contextOptions(context: ImportContext | undefined): ContextOptions {
  if (context === undefined || context === 'none') return { weight: 0 };
  return { ...DEFAULT_IMPORT_CONTEXT, ...context };
}

/**
 * Blends every sentence vector of each (paper, section) group with the rest of the group (`contextualize`), in
 * sentence order, in place. Vectors of another length than `dimensions` are left alone (they are refused later).
 * Anything that writes sentences (import, the ingest pipeline) should call this on whole sections before
 * writing, and record `contextDescriptor(options)` at `store.init({ …, vectorContext })`.
 */
export function contextualizeSections<S extends { sectionIndex: number; sentenceIndex: number; embedding: Float32Array | null }>(
  sentences: readonly S[],
  options: ContextOptions,
  dimensions?: number,
): void {
  if ((options.weight ?? DEFAULT_CONTEXT_WEIGHT) === 0) return;
  const groups = new Map<number, S[]>();
  for (const s of sentences) {
    if (!s.embedding || (dimensions !== undefined && s.embedding.length !== dimensions)) continue;
    const g = groups.get(s.sectionIndex) ?? [];
    g.push(s);
    groups.set(s.sectionIndex, g);
  }
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    g.sort((a, b) => a.sentenceIndex - b.sentenceIndex);
    const out = contextualize(
      g.map((s) => s.embedding!),
      options,
    );
    g.forEach((s, i) => (s.embedding = out[i]));
  }
}

/**
 * Writes pending papers to the store: initialises the corpus for the embedder's model and dimension (or checks
 * them), embeds rows without an embedding in batches, blends each sentence vector with its section
 * (`context`, default {@link DEFAULT_IMPORT_CONTEXT}; recorded in corpus_meta as `vector_context`), writes one
 * paper per transaction. Papers must be whole (all sentences of a section in one call) for the context to be
 * the section's. Importing with another context than the one a corpus records is refused.
 */
export async function importPapers(
  store: CorpusStore,
  embedder: Embedder,
  papers: readonly PendingPaper[],
  options: {
    documentsFile?: string;
    batchSize?: number;
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => void;
    /** Defer index builds for an import of at least this many sentences and a quarter of the corpus (default 2,000). */
    deferIndexesFrom?: number;
    /** Section context of the stored vectors (e.g. {@link DEFAULT_IMPORT_CONTEXT}); default 'none' = plain vectors. */
    context?: ImportContext;
  } = {},
): Promise<ImportResult> {
  const ctx = contextOptions(options.context);
  const vectorContext = contextDescriptor(ctx);
  // Rows that all bring their vectors need no embedder: the corpus takes their size. Otherwise the embedder's size
  // is learned (an OpenAI-compatible model of unknown size) and checked against the corpus before anything is written.
  const sentences = papers.flatMap((p) => p.sentences);
  const given = sentences.find((s) => s.embedding)?.embedding;
  const meta =
    given && sentences.every((s) => s.embedding)
      ? await store.init({ model: embedder.model, dimensions: embedder.dimensions || given.length, vectorContext })
      : await initCorpus(store, embedder, { vectorContext, signal: options.signal, sample: sentences.find((s) => !s.embedding)?.text });
  const dimensions = meta.dimensions;
  if (meta.vectorContext && meta.vectorContext !== vectorContext) {
    throw new StoreError(
      `the corpus stores sentence vectors as ${meta.vectorContext}; this import would add ${vectorContext} (use the same context setting)`,
    );
  }
  const result: ImportResult = { papers: 0, sentences: 0, skipped: 0, embedded: 0, errors: [] };
  // A large import into an SQL corpus: build the HNSW/full-text indexes once at the end instead of inserting every
  // row into them (see deferIndexesFrom).
  const total0 = papers.reduce((a, p) => a + p.sentences.length, 0);
  const defer =
    !!store.dropSearchIndexes &&
    !!store.createSearchIndexes &&
    total0 >= deferIndexesFrom((await store.counts()).sentences, options.deferIndexesFrom);
  if (defer) await store.dropSearchIndexes!();
  try {
    await writeAll();
  } finally {
    if (defer) await store.createSearchIndexes!();
  }
  return result;

  async function writeAll(): Promise<void> {
    const batchSize = options.batchSize ?? 256;
    const total = papers.reduce((a, p) => a + p.sentences.length, 0);
    let done = 0;
    let chunk: PendingPaper[] = [];
    let chunkSentences = 0;
    const flush = async () => {
      if (!chunk.length) return;
      const missing = chunk.flatMap((p) => p.sentences.filter((s) => !s.embedding));
      for (let i = 0; i < missing.length; i += batchSize) {
        const part = missing.slice(i, i + batchSize);
        const vectors = await embedder.embed(
          part.map((s) => s.text),
          { signal: options.signal },
        );
        part.forEach((s, j) => (s.embedding = vectors[j]));
        result.embedded += part.length;
      }
      for (const p of chunk) contextualizeSections(p.sentences, ctx, dimensions);
      const ready: PaperInput[] = chunk.map((p) => ({
        ...p,
        sentences: p.sentences.filter((s) => {
          if (s.embedding!.length === dimensions) return true;
          result.errors.push({
            file: options.documentsFile ?? 'documents',
            line: s.line,
            message: `embedding has ${s.embedding!.length} dimensions; the corpus has ${dimensions}`,
          });
          return false;
        }) as PaperInput['sentences'],
      }));
      const w = await store.writePapers(ready, { signal: options.signal });
      result.papers += w.papers;
      result.sentences += w.sentences;
      result.skipped += w.skipped;
      done += chunkSentences;
      options.onProgress?.(done, total);
      chunk = [];
      chunkSentences = 0;
    };
    for (const p of papers) {
      chunk.push(p);
      chunkSentences += p.sentences.length;
      if (chunkSentences >= batchSize * 4) await flush();
    }
    await flush();
  }
}
