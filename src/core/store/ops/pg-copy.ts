// PostgreSQL's binary COPY format (a header, one tuple of length-prefixed fields per row, a trailer) for bulk loads
// into a real server: a vector travels as pgvector's binary form, so neither side writes or parses 384 numbers as
// text (the text path was most of a `pg` ingest's time: 800 sentences/s at 10k).
import { vectorBinary } from '../rows.js';
import type { StagedSentence } from '../driver.js';

export type CopyField = Buffer | null;

/** The columns of a sentence row in COPY order (sentences and staging_sentences). */
export const SENTENCE_COPY_COLUMNS =
  'paper_id, section_title, section_number, section_index, sentence_index, global_index, page, text, embedding, line_start, line_end, page_end';

export function copyText(v: unknown): CopyField {
  return v == null ? null : Buffer.from(String(v), 'utf8');
}

export function copyInt4(v: unknown): CopyField {
  if (v == null) return null;
  const b = Buffer.alloc(4);
  b.writeInt32BE(Number(v));
  return b;
}

export function copyVector(v: ArrayLike<number> | null | undefined): CopyField {
  return v == null ? null : Buffer.from(vectorBinary(v));
}

/** A sentence row as a COPY tuple in SENTENCE_COPY_COLUMNS order (a copied corpus may hold a row without a vector). */
export function sentenceTuple(r: Omit<StagedSentence, 'embedding'> & { embedding: ArrayLike<number> | null }): CopyField[] {
  return [
    copyText(r.paperId),
    copyText(r.sectionTitle),
    copyText(r.sectionNumber),
    copyInt4(r.sectionIndex),
    copyInt4(r.sentenceIndex),
    copyInt4(r.globalIndex),
    copyInt4(r.page),
    copyText(r.text),
    copyVector(r.embedding),
    copyInt4(r.lineStart),
    copyInt4(r.lineEnd),
    copyInt4(r.pageEnd),
  ];
}

/** The binary COPY stream of the tuples, in chunks of about 1 MB. */
export function* binaryCopyStream(tuples: Iterable<CopyField[]>): Generator<Buffer> {
  yield Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
  let parts: Buffer[] = [];
  let size = 0;
  for (const fields of tuples) {
    const head = Buffer.alloc(2);
    head.writeInt16BE(fields.length);
    parts.push(head);
    for (const f of fields) {
      const len = Buffer.alloc(4);
      len.writeInt32BE(f ? f.length : -1);
      parts.push(len);
      if (f) parts.push(f);
      size += 4 + (f?.length ?? 0);
    }
    if (size > 1 << 20) {
      yield Buffer.concat(parts);
      parts = [];
      size = 0;
    }
  }
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1);
  parts.push(trailer);
  yield Buffer.concat(parts);
}

/** Something that runs a pg-copy-streams query: a `pg` client. */
export interface CopyTarget {
  query<T>(stream: T): T;
}

/** `COPY <into> FROM STDIN (FORMAT binary)` of the tuples on the client (inside its current transaction). */
export async function copyIn(c: CopyTarget, into: string, tuples: Iterable<CopyField[]>): Promise<void> {
  const { from: copyFrom } = await import('pg-copy-streams');
  const { pipeline } = await import('node:stream/promises');
  const { Readable } = await import('node:stream');
  await pipeline(Readable.from(binaryCopyStream(tuples)), c.query(copyFrom(`COPY ${into} FROM STDIN (FORMAT binary)`)));
}
