// Copies a Corpus Lens corpus from one SQL store to another (embedded PGlite → a lab's PostgreSQL, or between
// servers): papers, sentences, elements (figures, tables, equations) and their vectors. The source is read in batches of papers (bounded memory for a
// PGlite source); a `pg` target receives each batch's sentences by binary COPY on its writer connection, in one
// transaction with the batch's papers, so an interrupted copy leaves whole papers and a rerun resumes: a paper
// already in the target with the same content hash, sentence and element counts is skipped, one that differs is
// replaced.
// Then the source-copy records (schema v17: files ingest skipped as worse copies of a stored paper's work), so that
// ingest over the target skips those files unread as it did over the source. At the end both sides are counted and
// checksummed over the source's papers.
import { copyIn, sentenceTuple, SENTENCE_COPY_COLUMNS, type CopyField } from './pg-copy.js';
import { parseVectorText } from '../rows.js';
import type { Row } from '../driver.js';
import { insertElements, type SqlCorpusStore } from '../sql/store.js';
import { deferIndexesFrom, StoreError, type ElementInput, type ElementType, type PaperInput, type SourceCopy } from '../types.js';

export interface CopyOptions {
  /** Sentences per batch (one source read, one target transaction); default 5,000. */
  batchSentences?: number;
  signal?: AbortSignal;
  onProgress?: (papersDone: number, papersTotal: number) => void;
}

export interface CopySummary {
  papers: { source: number; copied: number; skipped: number; replaced: number; target: number };
  sentences: { source: number; copied: number; target: number };
  elements: { source: number; copied: number; target: number };
  /**
   * The source's records of files that are worse copies of a paper's work (`source_copies`): how many it holds, how
   * many were new or different in the target and written, and how many of them the target holds alike after.
   */
  sourceCopies: { source: number; copied: number; target: number };
  /** md5 over the source papers' rows (metadata, every sentence's and element's fields and vector) on each side. */
  checksum: { source: string; target: string; match: boolean };
  /** Binary COPY into PostgreSQL, or the store's own bulk writer. */
  method: 'binary-copy' | 'store-write';
  seconds: number;
}

interface SourcePaper {
  id: string;
  hash: string | null;
  n: number;
  /** Its element count. */
  e: number;
  row: Row;
}

/** Anything with the `pg` driver's writer connection: binary COPY goes there, inside the store's transaction. */
interface CopyClient {
  query(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  query<T>(stream: T): T;
}

const ELEMENT_COLUMNS =
  'paper_id, element_index, type, label, label_key, caption, content, description, section_title, section_index, after_sentence, page, bbox';
const SENTENCE_COLUMNS = SENTENCE_COPY_COLUMNS;

export async function copyCorpus(from: SqlCorpusStore, to: SqlCorpusStore, options: CopyOptions = {}): Promise<CopySummary> {
  const t0 = performance.now();
  const meta = await from.meta();
  if (!meta) throw new StoreError('the source has no Corpus Lens corpus to copy');
  await to.init({ model: meta.model, dimensions: meta.dimensions, vectorContext: meta.vectorContext });
  const papers = await sourcePapers(from);
  const existing = await targetPapers(
    to,
    papers.map((p) => p.id),
  );
  const todo: SourcePaper[] = [];
  const replace: string[] = [];
  let skipped = 0;
  for (const p of papers) {
    const t = existing.get(p.id);
    if (t && t.n === p.n && t.e === p.e && t.hash === p.hash) skipped++;
    else {
      if (t) replace.push(p.id);
      todo.push(p);
    }
  }
  const client = writerClient(to);
  const total = todo.reduce((s, p) => s + p.n, 0);
  const before = (await to.counts()).sentences;
  const defer = total >= deferIndexesFrom(before);
  let copied = 0;
  let copiedElements = 0;
  let done = skipped;
  options.onProgress?.(done, papers.length);
  if (defer) await to.dropSearchIndexes();
  try {
    for (const batch of batches(todo, options.batchSentences ?? 5_000)) {
      options.signal?.throwIfAborted();
      const ids = batch.map((p) => p.id);
      const rows = (
        await from.driver.query(
          `SELECT ${SENTENCE_COLUMNS.replace('embedding', 'embedding::text AS embedding')} FROM sentences
           WHERE paper_id = ANY ($1::text[]) ORDER BY paper_id, global_index`,
          [ids],
        )
      ).rows;
      const elements = (
        await from.driver.query(
          `SELECT ${ELEMENT_COLUMNS}, embedding::text AS embedding FROM elements
           WHERE paper_id = ANY ($1::text[]) ORDER BY paper_id, element_index`,
          [ids],
        )
      ).rows;
      const stale = ids.filter((id) => replace.includes(id));
      const r = client ? await copyBinary(to, client, batch, rows, elements, stale) : await copyByStore(to, batch, rows, elements, stale);
      copied += r.sentences;
      copiedElements += r.elements;
      done += batch.length;
      options.onProgress?.(done, papers.length);
    }
  } finally {
    if (defer) await to.createSearchIndexes();
  }
  options.signal?.throwIfAborted();
  const copies = await copySourceCopies(from, to);
  const ids = papers.map((p) => p.id);
  const [src, dst] = await Promise.all([checksum(from, ids), checksum(to, ids)]);
  return {
    papers: { source: papers.length, copied: todo.length, skipped, replaced: replace.length, target: dst.papers },
    sentences: { source: src.sentences, copied, target: dst.sentences },
    elements: { source: src.elements, copied: copiedElements, target: dst.elements },
    sourceCopies: copies,
    checksum: {
      source: src.sum,
      target: dst.sum,
      match: src.sum === dst.sum && src.papers === dst.papers && src.sentences === dst.sentences && src.elements === dst.elements,
    },
    method: client ? 'binary-copy' : 'store-write',
    seconds: (performance.now() - t0) / 1000,
  };
}

/**
 * Every source-copy record of the source, written to the target where it lacks it or records it differently (by path,
 * as ingest does); the target's records of other paths stay, as its other papers do. After the papers: a record whose
 * paper is not in the target is ignored by ingest. A source from before v17 had none (opening it created the table).
 */
async function copySourceCopies(from: SqlCorpusStore, to: SqlCorpusStore): Promise<CopySummary['sourceCopies']> {
  const records = await from.sourceCopies();
  const alike = (held: Map<string, SourceCopy>) =>
    records.filter((c) => {
      const t = held.get(c.sourcePath);
      return t?.contentHash === c.contentHash && t.paperId === c.paperId;
    });
  const held = async () => new Map((await to.sourceCopies()).map((c) => [c.sourcePath, c]));
  const before = new Set(alike(await held()));
  const write = records.filter((c) => !before.has(c));
  if (write.length) await to.updateSourceCopies(write, []);
  return { source: records.length, copied: write.length, target: write.length ? alike(await held()).length : before.size };
}

async function sourcePapers(from: SqlCorpusStore): Promise<SourcePaper[]> {
  const { rows } = await from.driver.query(
    `SELECT p.id, p.title, p.authors, p.year, p.venue, p.doi, p.url, p.abstract, p.citation_key, p.bibtex, p.source_path,
       p.content_hash, p.source, p.license, (SELECT count(*) FROM sentences s WHERE s.paper_id = p.id)::int AS n,
       (SELECT count(*) FROM elements e WHERE e.paper_id = p.id)::int AS e
     FROM papers p ORDER BY p.id`,
  );
  return rows.map((r) => ({ id: String(r.id), hash: (r.content_hash as string | null) ?? null, n: Number(r.n), e: Number(r.e), row: r }));
}

async function targetPapers(to: SqlCorpusStore, ids: string[]): Promise<Map<string, { hash: string | null; n: number; e: number }>> {
  const { rows } = await to.driver.query(
    `SELECT p.id, p.content_hash, (SELECT count(*) FROM sentences s WHERE s.paper_id = p.id)::int AS n,
       (SELECT count(*) FROM elements e WHERE e.paper_id = p.id)::int AS e
     FROM papers p WHERE p.id = ANY ($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [String(r.id), { hash: (r.content_hash as string | null) ?? null, n: Number(r.n), e: Number(r.e) }]));
}

function* batches(papers: SourcePaper[], maxSentences: number): Generator<SourcePaper[]> {
  let batch: SourcePaper[] = [];
  let size = 0;
  for (const p of papers) {
    if (batch.length && size + p.n > maxSentences) {
      yield batch;
      batch = [];
      size = 0;
    }
    batch.push(p);
    size += p.n;
  }
  if (batch.length) yield batch;
}

/** The `pg` store's writer connection, where binary COPY can run; null for other stores. */
function writerClient(to: SqlCorpusStore): (() => Promise<CopyClient>) | null {
  const d = to.driver as unknown as { writerConnection?: () => Promise<CopyClient> };
  return to.kind === 'postgres' && typeof d.writerConnection === 'function' ? () => d.writerConnection!() : null;
}

function elementInput(r: Row): ElementInput {
  const bbox = r.bbox as number[] | null;
  return {
    elementIndex: Number(r.element_index),
    type: String(r.type) as ElementType,
    label: (r.label as string | null) ?? null,
    labelKey: (r.label_key as string | null) ?? null,
    caption: (r.caption as string | null) ?? null,
    content: (r.content as string | null) ?? null,
    description: (r.description as string | null) ?? null,
    sectionTitle: (r.section_title as string | null) ?? null,
    sectionIndex: r.section_index == null ? null : Number(r.section_index),
    afterSentence: Number(r.after_sentence),
    page: r.page == null ? null : Number(r.page),
    bbox: Array.isArray(bbox) && bbox.length === 4 ? (bbox.map(Number) as [number, number, number, number]) : null,
    embedding: parseVectorText(String(r.embedding)),
  };
}

function paperInput(p: SourcePaper, rows: Row[], elements: Row[]): PaperInput {
  const r = p.row;
  return {
    id: p.id,
    title: r.title as string | null,
    authors: (r.authors as string[] | null) ?? [],
    year: r.year == null ? null : Number(r.year),
    venue: r.venue as string | null,
    doi: r.doi as string | null,
    url: r.url as string | null,
    abstract: r.abstract as string | null,
    citationKey: r.citation_key as string | null,
    bibtex: r.bibtex as string | null,
    sourcePath: r.source_path as string | null,
    contentHash: p.hash,
    source: r.source as string | null,
    license: r.license as string | null,
    sentences: rows.map((s) => ({
      sectionTitle: s.section_title as string | null,
      sectionNumber: s.section_number as string | null,
      sectionIndex: Number(s.section_index),
      sentenceIndex: Number(s.sentence_index),
      globalIndex: Number(s.global_index),
      page: s.page == null ? null : Number(s.page),
      lineStart: s.line_start == null ? null : Number(s.line_start),
      lineEnd: s.line_end == null ? null : Number(s.line_end),
      pageEnd: s.page_end == null ? null : Number(s.page_end),
      text: String(s.text),
      embedding: parseVectorText(String(s.embedding)),
    })),
    elements: elements.map(elementInput),
  };
}

/** Any other target: its own bulk writer (PGlite's is a binary COPY too), stale papers deleted first. */
async function copyByStore(
  to: SqlCorpusStore,
  batch: SourcePaper[],
  rows: Row[],
  elements: Row[],
  stale: string[],
): Promise<{ sentences: number; elements: number }> {
  if (stale.length) await to.deletePapers(stale);
  const byPaper = groupRows(rows);
  const elementsByPaper = groupRows(elements);
  const r = await to.writePapers(batch.map((p) => paperInput(p, byPaper.get(p.id) ?? [], elementsByPaper.get(p.id) ?? [])));
  return { sentences: r.sentences, elements: r.elements ?? 0 };
}

function groupRows(rows: Row[]): Map<string, Row[]> {
  const m = new Map<string, Row[]>();
  for (const r of rows) {
    const id = String(r.paper_id);
    let list = m.get(id);
    if (!list) m.set(id, (list = []));
    list.push(r);
  }
  return m;
}

/** One transaction on the writer connection: stale papers deleted, papers inserted, sentences by binary COPY, elements. */
async function copyBinary(
  to: SqlCorpusStore,
  client: () => Promise<CopyClient>,
  batch: SourcePaper[],
  rows: Row[],
  elements: Row[],
  stale: string[],
): Promise<{ sentences: number; elements: number }> {
  const c = await client();
  await c.query('BEGIN');
  try {
    if (stale.length) await c.query('DELETE FROM papers WHERE id = ANY ($1::text[])', [stale]);
    const col = <T>(f: (r: Row) => T) => batch.map((p) => f(p.row));
    await c.query(
      `INSERT INTO papers (id, title, authors, year, venue, doi, url, abstract, citation_key, bibtex, source_path, content_hash,
         source, license)
       SELECT p.id, p.title, coalesce(a.authors, '{}'), p.year, p.venue, p.doi, p.url, p.abstract, p.citation_key, p.bibtex,
         p.source_path, p.content_hash, p.source, p.license
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
         $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
         AS p(id, title, authors_json, year, venue, doi, url, abstract, citation_key, bibtex, source_path, content_hash, source, license)
       CROSS JOIN LATERAL (SELECT array_agg(x) AS authors FROM jsonb_array_elements_text(p.authors_json::jsonb) x) a`,
      [
        col((r) => r.id),
        col((r) => r.title ?? null),
        col((r) => JSON.stringify(r.authors ?? [])),
        col((r) => r.year ?? null),
        col((r) => r.venue ?? null),
        col((r) => r.doi ?? null),
        col((r) => r.url ?? null),
        col((r) => r.abstract ?? null),
        col((r) => r.citation_key ?? null),
        col((r) => r.bibtex ?? null),
        col((r) => r.source_path ?? null),
        col((r) => r.content_hash ?? null),
        col((r) => r.source ?? null),
        col((r) => r.license ?? null),
      ],
    );
    if (rows.length) {
      await copyIn(c, `sentences (${SENTENCE_COLUMNS})`, rows.map(rowTuple));
    }
    // Few rows a paper: one INSERT, not a COPY.
    const copiedElements = await insertElements(
      {
        query: async (sql, params) => {
          const r = await c.query(sql, params as unknown[]);
          return { rows: r.rows, rowCount: Number((r as { rowCount?: number }).rowCount ?? r.rows.length) };
        },
      },
      elements.map((r) => ({ ...elementInput(r), paperId: String(r.paper_id) })),
    );
    await c.query('COMMIT');
    return { sentences: rows.length, elements: copiedElements };
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw new StoreError(
      `copy into ${to.kind} failed at papers ${batch[0].id}…${batch[batch.length - 1].id}: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}

/**
 * Counts and an md5 over the given papers on one side: each paper's metadata and each sentence's position, text
 * and vector (pgvector's text output, the same on PGlite and the server), in a fixed order.
 * The source-copy records are left out (counted in the summary's `sourceCopies` instead): a mismatch here fails the
 * copy and asks for a rerun to repair it, but a target may rightly hold other records of the same papers (its own
 * ingest found another copy of a paper's work there), which no rerun removes; and a missing record costs one PDF
 * parsed again, never a wrong hit.
 */
export async function checksum(
  store: SqlCorpusStore,
  ids: string[],
): Promise<{ papers: number; sentences: number; elements: number; sum: string }> {
  const { rows } = await store.driver.query(
    `SELECT
       (SELECT count(*)::int FROM papers WHERE id = ANY ($1::text[])) AS papers,
       (SELECT count(*)::int FROM sentences WHERE paper_id = ANY ($1::text[])) AS sentences,
       (SELECT count(*)::int FROM elements WHERE paper_id = ANY ($1::text[])) AS elements,
       md5(
         (SELECT coalesce(string_agg(md5(concat_ws('|', id, title, array_to_string(authors, ';'), year, venue, doi, url,
            abstract, citation_key, bibtex, source_path, content_hash, source, license)), '' ORDER BY id), '') FROM papers WHERE id = ANY ($1::text[]))
         || (SELECT coalesce(string_agg(md5(concat_ws('|', paper_id, section_title, section_number, section_index,
            sentence_index, global_index, page, text, embedding::text, line_start, line_end, page_end)), '' ORDER BY paper_id, global_index), '')
            FROM sentences WHERE paper_id = ANY ($1::text[]))
         || (SELECT coalesce(string_agg(md5(concat_ws('|', paper_id, element_index, type, label, label_key, caption, content,
            description, section_title, section_index, after_sentence, page, bbox::text, embedding::text)), '' ORDER BY paper_id, element_index), '')
            FROM elements WHERE paper_id = ANY ($1::text[]))
       ) AS sum`,
    [ids],
  );
  return {
    papers: Number(rows[0].papers),
    sentences: Number(rows[0].sentences),
    elements: Number(rows[0].elements),
    sum: String(rows[0].sum),
  };
}

/** A stored sentence row (pgvector's text output for the vector) as a COPY tuple. */
function rowTuple(r: Row): CopyField[] {
  return sentenceTuple({
    paperId: String(r.paper_id),
    sectionTitle: r.section_title as string | null,
    sectionNumber: r.section_number as string | null,
    sectionIndex: r.section_index as number,
    sentenceIndex: r.sentence_index as number,
    globalIndex: r.global_index as number,
    page: r.page as number | null,
    lineStart: r.line_start as number | null,
    lineEnd: r.line_end as number | null,
    pageEnd: r.page_end as number | null,
    text: String(r.text),
    embedding: r.embedding == null ? null : parseVectorText(String(r.embedding)),
  });
}
