// A small corpus in the seed's row format (CorpusStudio "Document" / "Source" rows) for the store tests.
// Three papers, several sections; one sentence text occurs in two papers (deduplication).

export interface DocumentRow {
  doc_id: string;
  text: string;
  section_title: string;
  section_number: string;
  sentence_index: number;
  global_index: number;
  embedding?: number[];
}

export interface SourceRow {
  doc_id: string;
  title: string;
  abstract: string;
  authors: string | string[];
  doi_link: string;
  venue_name: string;
  year?: number;
}

const PAPERS: { source: SourceRow; sections: [string, string, string[]][] }[] = [
  {
    source: {
      doc_id: 'p1',
      title: 'Dense retrieval of scientific sentences',
      abstract: 'We study dense retrieval.',
      authors: ['Ada Lovelace', 'Alan Turing'],
      doi_link: 'https://doi.org/10.1000/p1',
      venue_name: 'ACL',
      year: 2019,
    },
    sections: [
      [
        'Introduction',
        '1',
        [
          'Writing a related work section takes authors many hours of reading.',
          'Sentence embeddings map similar sentences to nearby vectors.',
          'We retrieve sentences from prior papers that phrase an idea similarly.',
        ],
      ],
      [
        'Method',
        '2',
        [
          'We encode every corpus sentence with a transformer encoder.',
          'Cosine similarity ranks the candidate sentences.',
          'An HNSW index keeps lookups fast at scale.',
        ],
      ],
    ],
  },
  {
    source: {
      doc_id: 'p2',
      title: 'Keyword search still matters',
      abstract: 'BM25 is a strong baseline.',
      authors: 'Grace Hopper',
      doi_link: 'https://doi.org/10.1000/p2',
      venue_name: 'SIGIR',
      year: 2021,
    },
    sections: [
      [
        'Introduction',
        '1',
        ['BM25 remains a strong baseline for keyword retrieval.', 'Acronyms and numbers are blurred by sentence embeddings.'],
      ],
      [
        'Results',
        '3',
        [
          'Hybrid retrieval with reciprocal rank fusion beats both rankings.',
          'Cosine similarity ranks the candidate sentences.',
          'The gains are largest for queries with rare terms.',
        ],
      ],
    ],
  },
  {
    source: {
      doc_id: 'p3',
      title: 'Writing assistants for scientists',
      abstract: 'A study of writing tools.',
      authors: ['Barbara Liskov'],
      doi_link: 'https://doi.org/10.1000/p3',
      venue_name: 'CHI',
      year: 2023,
    },
    sections: [
      [
        'Background',
        '2',
        [
          'Authors imitate the phrasing of prior papers in their field.',
          'Writing assistants suggest example sentences while authors draft.',
          'Learning from examples must not turn into copying.',
        ],
      ],
    ],
  },
];

export function fixtureRows(): { documents: DocumentRow[]; sources: SourceRow[] } {
  const documents: DocumentRow[] = [];
  for (const p of PAPERS) {
    let g = 0;
    for (const [title, number, sentences] of p.sections) {
      sentences.forEach((text, i) =>
        documents.push({
          doc_id: p.source.doc_id,
          text,
          section_title: title,
          section_number: number,
          sentence_index: i,
          global_index: g++,
        }),
      );
    }
  }
  return { documents, sources: PAPERS.map((p) => p.source) };
}

export function toJsonl(rows: readonly object[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

import { importPapers, papersFromRows, type Lined } from '../../src/core/ingest/seed-rows.js';
import { documentRow, sourceRow } from '../../src/core/ingest/seed-rows.js';
import type { CorpusStore } from '../../src/core/store/types.js';
import { HashEmbedder } from './db-embedder.js';

/** Imports the fixture (embedding with the 64-d hash embedder); returns sentences added. */
export async function loadFixture(store: CorpusStore, dimensions = 64, options: { deferIndexesFrom?: number } = {}): Promise<number> {
  const { documents, sources } = fixtureRows();
  const docs: Lined<ReturnType<typeof documentRow>>[] = documents.map((d, i) => ({ line: i + 1, row: documentRow(d) }));
  const srcs = sources.map((s, i) => ({ line: i + 1, row: sourceRow(s) }));
  const r = await importPapers(store, new HashEmbedder(dimensions), papersFromRows(docs, srcs), options);
  return r.sentences;
}

/**
 * A CorpusStudio database (seed 000): "Document", "Source" and the seed's match_documents RPC, filled with the
 * fixture (64-d hash embeddings). Source.authors is text[] and Source.year is present here.
 */
export function corpusStudioSql(dimensions = 64): string {
  return `CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE "Source" (doc_id text PRIMARY KEY, title text, abstract text, authors text[], doi_link text, venue_name text, year int);
CREATE TABLE "Document" (id serial PRIMARY KEY, doc_id text, text text, section_title text, section_number text,
  sentence_index int, global_index int, embedding vector(${dimensions}));
CREATE OR REPLACE FUNCTION match_documents(query_embedding vector(${dimensions}), similarity_threshold float, max_results int)
RETURNS TABLE (id int, doc_id text, text text, section_title text, section_number text, sentence_index int, global_index int)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY
  SELECT d.id, d.doc_id, d.text, d.section_title, d.section_number, d.sentence_index, d.global_index
  FROM "Document" d
  WHERE 1 - (d.embedding <=> query_embedding) > similarity_threshold
  ORDER BY d.embedding <=> query_embedding
  LIMIT max_results;
END;
$$;`;
}

export async function loadCorpusStudio(
  db: { exec(sql: string): Promise<unknown>; query(sql: string, params?: unknown[]): Promise<unknown> },
  embed: (text: string) => Float32Array,
  dimensions = 64,
): Promise<void> {
  await db.exec(corpusStudioSql(dimensions));
  const { documents, sources } = fixtureRows();
  for (const s of sources) {
    await db.query(`INSERT INTO "Source" VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      s.doc_id,
      s.title,
      s.abstract,
      Array.isArray(s.authors) ? s.authors : [s.authors],
      s.doi_link,
      s.venue_name,
      s.year ?? null,
    ]);
  }
  for (const d of documents) {
    await db.query(
      `INSERT INTO "Document" (doc_id, text, section_title, section_number, sentence_index, global_index, embedding)
       VALUES ($1, $2, $3, $4, $5, $6, $7::vector)`,
      [d.doc_id, d.text, d.section_title, d.section_number, d.sentence_index, d.global_index, `[${Array.from(embed(d.text)).join(',')}]`],
    );
  }
}
