// The corpus store: one interface over embedded PGlite, PostgreSQL (`pg`), Supabase (`supabase-js`) and existing
// CorpusStudio databases (read only). Every lookup (vector, keyword, hybrid) is ONE statement / ONE RPC that
// returns the hits with the previous/next sentence of the same paper and section and the paper's metadata.
import { redactSecrets } from '../redact.js';

/** A sentence as returned to callers (and printed by `corpus-lens query`). */
export interface SentenceRef {
  id: number;
  paperId: string;
  text: string;
  sectionTitle: string | null;
  sectionNumber: string | null;
  sentenceIndex: number;
  globalIndex: number;
}

/** The paper metadata attached to every hit. */
export interface PaperRef {
  id: string;
  title: string | null;
  authors: string[];
  year: number | null;
  venue: string | null;
  doi: string | null;
  /** The key the paper was indexed under (a Zotero / Better BibTeX key, the user's .bib key), when it has one. */
  citationKey?: string | null;
  /**
   * The model that proposed its title, authors and year (papers.metadata_proposed_by), so that a proposal is never
   * shown or carried on as the paper's own; null for real metadata, absent where the backend's query does not read it.
   */
  metadataProposedBy?: string | null;
}

/** One hit: the target sentence (shifted by `offset`), its neighbours in the same section (or null), its paper. */
export interface Hit {
  /** Cosine similarity of the matched sentence to the query (keyword mode: the BM25 score). */
  similarity: number;
  /** The ranking score (vector: = similarity; keyword: BM25 of sentence + section; hybrid: reciprocal-rank-fusion score). */
  score: number;
  sentence: SentenceRef;
  previous: SentenceRef | null;
  next: SentenceRef | null;
  paper: PaperRef;
}

/**
 * How a corpus's HNSW indexes hold its vectors, chosen when it is created: `float32` indexes the `vector` column,
 * `half` its `halfvec` cast (sql/vector.ts).
 */
export type IndexPrecision = 'float32' | 'half';

/** What a corpus records about itself (table corpus_meta). */
export interface CorpusMeta {
  schemaVersion: string;
  /** The embedding model identity, e.g. `offline-hash-v1` or `openai:text-embedding-3-small`. */
  model: string;
  dimensions: number;
  createdAt?: string;
  /**
   * How stored sentence vectors were built (`contextDescriptor()` of src/core/embed/context.ts): `plain`, or e.g.
   * `ctx(all,2)` = blended with the rest of their section. Absent when the corpus did not record it.
   */
  vectorContext?: string;
  /**
   * How the corpus's HNSW indexes hold its vectors (corpus_meta.index_precision; sql/vector.ts): `half`
   * indexes the float32 column's halfvec cast. Absent on backends that do not report it; a corpus without the key is
   * float32.
   */
  indexPrecision?: IndexPrecision;
}

/** What `init` creates a new corpus with; an existing corpus keeps what it recorded. */
export interface InitOptions {
  model: string;
  dimensions: number;
  vectorContext?: string;
  /**
   * The new corpus's index precision (default: half on a PostgreSQL server, float32 in the embedded PGlite, half above
   * 2,000 dimensions everywhere since pgvector cannot index more in float32). Ignored for an existing corpus.
   */
  indexPrecision?: IndexPrecision;
}

export interface SentenceInput {
  sectionTitle?: string | null;
  sectionNumber?: string | null;
  /** Ordinal of the section within the paper; context never crosses it. */
  sectionIndex: number;
  /** Position within the section. */
  sentenceIndex: number;
  /** Position within the paper. */
  globalIndex: number;
  page?: number | null;
  /** PDF only: where the sentence is printed (see PdfLocation). */
  lineStart?: number | null;
  lineEnd?: number | null;
  pageEnd?: number | null;
  text: string;
  embedding: Float32Array;
}

/**
 * Where a PDF sentence is printed: it starts on `page` at line `lineStart` and ends on `pageEnd` (the same page
 * unless it runs over a page break) at line `lineEnd` of that page. Lines are counted from 1 on each page in reading
 * order (a two-column page's left column, then its right, full-width lines in their place), over the lines of text
 * a reader counts: body text, headings, captions and footnotes; running headers and footers, page numbers, display
 * mathematics, and the text inside figures and tables are not counted. Null for sources without pages.
 */
export interface SentenceLocation {
  id: number;
  page: number;
  lineStart: number | null;
  lineEnd: number | null;
  pageEnd: number | null;
}

export interface PaperInput {
  id: string;
  title?: string | null;
  authors?: string[];
  year?: number | null;
  venue?: string | null;
  doi?: string | null;
  url?: string | null;
  abstract?: string | null;
  citationKey?: string | null;
  bibtex?: string | null;
  sourcePath?: string | null;
  contentHash?: string | null;
  /** Where a paper from the web came from (full-text URL, or 'metadata:<service>'). */
  source?: string | null;
  /** The licence its source states (URL or short name), when known. */
  license?: string | null;
  sentences: SentenceInput[];
  /** Figures, tables and equations of the paper, written in the same transaction as its sentences. */
  elements?: ElementInput[];
  /** The works its sentences cite, from its reference list or .bib (schema v14, papers.cited_works). */
  citedWorks?: CitedWork[];
  /** The model that proposed its title, authors and year (schema v14); null for real metadata. */
  metadataProposedBy?: string | null;
}

/** A paper's metadata as CorpusStore.updatePaperMetadata replaces it. */
export interface PaperMetadata {
  title: string;
  authors: string[];
  year: number | null;
  citationKey: string | null;
  /** Its BibTeX entry; absent: the stored one stays. */
  bibtex?: string;
  /** Who proposed the title (a model, or where a made-up title came from); null: the paper's own. */
  metadataProposedBy: string | null;
}

/**
 * A work a paper cites, as its reference list (or its .bib) gives it, with the paper's sentences that cite it: a quote
 * that itself cites work is resolved through it (src/core/retrieve/inner-citations.ts).
 */
export interface CitedWork {
  /** Numbered reference lists: the number ('12'); null otherwise. */
  label: string | null;
  /** LaTeX and Markdown: the citation key the source cites it by. */
  key: string | null;
  /** The entry as printed (PDF), or its title and authors (.bib), clipped; '' when only its key is known. */
  text: string;
  authors: string[];
  year: number | null;
  title: string | null;
  doi: string | null;
  /** Global indexes of the paper's sentences that cite it. */
  citedBy: number[];
}

/** A diagram is a figure that draws a structure (an architecture, a pipeline): see ingest/diagram.ts. */
export type ElementType = 'figure' | 'diagram' | 'table' | 'equation';

/** A figure, table or equation as a reader found it. */
export interface ElementFields {
  type: ElementType;
  /** As the paper shows it: 'Figure 3', 'Table 2', 'Equation (4)'; null when unnumbered. */
  label: string | null;
  /** The LaTeX \label key (fig:arch), when the source has one. */
  labelKey?: string | null;
  caption: string | null;
  /** Table cells as text rows (cells joined by ' | ', one row a line); an equation's LaTeX; null for a figure. */
  content: string | null;
  /** Searchable description written by an LLM (optional enrichment: `corpus-lens elements --enrich`); null without one. */
  description?: string | null;
  sectionTitle: string | null;
  /** Ordinal of its section within the paper (as SentenceInput.sectionIndex), null before any section. */
  sectionIndex: number | null;
  /** Global index of the sentence it follows (-1 before the first sentence). */
  afterSentence: number;
  /** 1-based PDF page, else null. */
  page: number | null;
  /** PDF region [x0, y0, x1, y1] in points from the page's top-left, else null. */
  bbox: [number, number, number, number] | null;
}

export interface ElementInput extends ElementFields {
  /** Position of the element in the paper (0-based, reading order); unique per paper. */
  elementIndex: number;
  /** Embedding of its label, caption, content and the sentences around it (the sentences' model and dimension). */
  embedding: Float32Array;
}

/** An element as returned by list and search. */
export interface ElementRef extends ElementFields {
  id: number;
  paperId: string;
  elementIndex: number;
}

/** One element hit: direct (matched the query) or linked (on the page / in the section of a matched sentence). */
export interface ElementHit {
  element: ElementRef;
  paper: PaperRef;
  match: 'direct' | 'linked';
  /** Cosine similarity of the element to the query (direct); null for a linked element. */
  similarity: number | null;
  /** Ranking score: RRF of vector and keyword ranks (direct); for linked, the rank of the sentence that linked it. */
  score: number;
  /** The cited sentence on whose page (else in whose section) it is printed: every linked element, and a direct one that is also linked. */
  viaSentenceId?: number;
}

export interface ElementOptions {
  count: number;
  type?: ElementType | null;
  paperIds?: readonly string[];
}

export interface WriteResult {
  /** Papers newly added. */
  papers: number;
  /** Sentences newly added (rows already present — same paper and position — are skipped). */
  sentences: number;
  /** Sentences skipped because they were already there. */
  skipped: number;
  /** Elements newly added (stores with an elements table). */
  elements?: number;
}

export interface LookupOptions {
  /** How many hits to select before the offset shift (k). */
  count: number;
  /** Minimum cosine similarity (vector lookups). */
  threshold?: number;
  /** Shift of the returned target inside its section: 1 = the sentence after each match. */
  offset?: number;
  yearMin?: number;
  yearMax?: number;
  paperIds?: readonly string[];
  /** Only papers whose venue contains this text (case-insensitive; blank: no filter). */
  venue?: string;
  /** Only sentences whose section title contains this text (case-insensitive; blank: no filter). */
  section?: string;
}

/** The hybrid lookup's defaults: the TypeScript stores and the SQL function's own DEFAULTs. */
export const HYBRID_DEFAULTS = { rrfK: 60, minCandidates: 100, sectionWeight: 3, perSection: 3 } as const;

/** A hybrid lookup's tuning with the defaults applied (candidates: max(100, 4 × count)). */
export function hybridTuning(o: HybridOptions): { rrfK: number; candidates: number; sectionWeight: number; perSection: number } {
  return {
    rrfK: o.rrfK ?? HYBRID_DEFAULTS.rrfK,
    candidates: o.candidates ?? Math.max(HYBRID_DEFAULTS.minCandidates, 4 * o.count),
    sectionWeight: o.sectionWeight ?? HYBRID_DEFAULTS.sectionWeight,
    perSection: o.perSection ?? HYBRID_DEFAULTS.perSection,
  };
}

/**
 * The paper ranking's defaults (SQL `rank_papers`). Tuned on Citation-Integrity claims_train, chosen on claims_dev
 * (in memory, offline embedder; test/support/retrieval-eval.ts): paper R@10 whole-paper BM25 alone 0.884 train /
 * 0.807 dev; plus 2 × the paper vector's similarity 0.914 / 0.851 (1: 0.906 / 0.839, 3: 0.915 / 0.858 with a lower MRR).
 */
export const PAPER_DEFAULTS = { vectorWeight: 2, candidates: 200 } as const;

export interface PaperOptions extends LookupOptions {
  /** Weight of the cosine similarity of the query to the paper's summed sentence vectors (default 2). */
  vectorWeight?: number;
  /** Nearest papers by vector added to the keyword candidates (default 200). */
  candidates?: number;
}

export interface HybridOptions extends LookupOptions {
  /** Reciprocal-rank-fusion constant (default 60). */
  rrfK?: number;
  /** Candidates taken from each ranking before fusion (default max(100, 4k)). */
  candidates?: number;
  /** Weight of a sentence's section similarity in the vector ranking (default 3; 0 = the sentence alone). */
  sectionWeight?: number;
  /** At most this many hits from one section (default 3; 0 = no cap). */
  perSection?: number;
}

export type StoreKind = 'pglite' | 'postgres' | 'supabase';
export type SchemaFlavor = 'corpusLens' | 'corpusStudio';

export interface CorpusStore {
  readonly kind: StoreKind;
  readonly schema: SchemaFlavor;
  /** True for the CorpusStudio schema: writes are refused. */
  readonly readOnly: boolean;
  /** The recorded model and dimension, or null when the corpus is empty (no schema yet). Cached after the first call. */
  meta(): Promise<CorpusMeta | null>;
  /**
   * Creates the schema for `dimensions` and records `model` when the corpus is new; otherwise checks that they
   * equal the recorded ones and throws a {@link CorpusMismatchError} naming both when they differ.
   */
  init(options: InitOptions): Promise<CorpusMeta>;
  /**
   * Adds papers and their sentences. Each paper is atomic: SQL backends write groups of papers (≤ 2,000
   * sentences) per transaction and retry a failed group one paper per transaction, naming the failing paper.
   * Rows already present (same paper and global_index / position) are skipped.
   */
  writePapers(papers: readonly PaperInput[], options?: WriteOptions): Promise<WriteResult>;
  /** Top `count` sentences by cosine similarity, with context, in one round trip. */
  matchVector(embedding: Float32Array, options: LookupOptions): Promise<Hit[]>;
  /** Full-text search (Postgres `english` lexemes, BM25 of the sentence plus its section), with context, in one round trip. */
  matchKeyword(text: string, options: LookupOptions): Promise<Hit[]>;
  /** Reciprocal-rank fusion of vector and keyword rankings, with context, in one round trip. */
  matchHybrid(embedding: Float32Array, text: string, options: HybridOptions): Promise<Hit[]>;
  /**
   * Papers best first (whole-paper BM25 plus the paper vector's similarity), each as its sentence most similar to the
   * query, with context, in one round trip. `count` is the number of papers.
   */
  matchPapers(embedding: Float32Array, text: string, options: PaperOptions): Promise<Hit[]>;
  /** The given sentences (shifted by offset) with their context, in the given order, in one round trip. */
  context(sentenceIds: readonly number[], offset?: number): Promise<Hit[]>;
  counts(): Promise<{ papers: number; sentences: number }>;
  /** Every paper's id, source file and content hash: the ingest pipeline skips unchanged sources with it. */
  sources(): Promise<PaperSource[]>;
  /**
   * The files recorded as copies of a stored paper's work (CorpusStore.updateSourceCopies): ingest skips such a file
   * unread while its content hash is the same and its paper is stored. The SQL backends and Supabase (schema v17; none
   * before).
   */
  sourceCopies?(): Promise<SourceCopy[]>;
  /**
   * Records files (by path, replacing what was recorded of them) as copies of stored papers' works, and forgets what was
   * recorded of the `forget` paths: ingest read them and they are no longer such copies.
   */
  updateSourceCopies?(record: readonly SourceCopy[], forget: readonly string[]): Promise<void>;
  /** Deletes papers with their sentences (a changed source is re-ingested whole). */
  deletePapers(ids: readonly string[]): Promise<void>;
  /**
   * Replaces a paper's title, authors, year, key and proposer (papers.metadata_proposed_by), and its BibTeX when given,
   * leaving its sentences as they are: a paper whose title the reader made up takes the real one a later source of its
   * work brings (ingest/stored-work.ts retitled). Says whether the paper was there. The SQL backends and Supabase.
   */
  updatePaperMetadata?(id: string, metadata: PaperMetadata): Promise<boolean>;
  /**
   * Every section of every paper, once, with its title (null when it has none): what the section-structure view
   * counts (src/core/retrieve/structure.ts). An empty corpus (no schema yet) has none.
   */
  sectionTitles(): Promise<SectionTitle[]>;
  /**
   * Bulk-load controls, where the store has them (the Corpus Lens SQL schema; Supabase keeps its own indexes): a
   * load of many sentences drops the HNSW and full-text indexes before it and rebuilds them once after (see
   * deferIndexesFrom), instead of inserting every row into them. `create` also restores the indexes of a load
   * killed half-way.
   */
  dropSearchIndexes?(): Promise<void>;
  createSearchIndexes?(options?: { m?: number; efConstruction?: number }): Promise<void>;
  /**
   * The embedded corpus's in-memory keyword index (sql/keyword-index.ts): loads it if it is not (waits for a load
   * under way) and says how many sentences it holds, 0 where there is none; with it, where the native vector index
   * serves, the hybrid ranking's vectors (sql/hybrid-fusion.ts). Hybrid lookups rank in memory only once they are
   * loaded; benches wait for them so as to time what a long-lived corpus process serves.
   */
  loadKeywordIndex?(): Promise<number>;
  /**
   * What answers this store's vector lookups: an embedded corpus's native index (usearch) where it loads, else the
   * database's own pgvector HNSW index. The embedded size warning takes the limit measured for it (ops/capacity.ts).
   */
  vectorSearch?(): Promise<'native' | 'pgvector'>;
  /**
   * Every stored sentence of a paper in reading order (none for an unknown paper): the review checks a quote
   * against the whole paper with it. Only stores that list them in one statement have it (the Corpus Lens SQL
   * schema); for the others the review falls back on a keyword lookup restricted to the paper.
   */
  paperSentences?(paperId: string, signal?: AbortSignal): Promise<string[]>;
  /**
   * The PDF page and lines (schema v8; null before) ingest stored for each of these sentences (those without one are left out): the sources of an
   * answer cite it. Hits do not carry it, as the typing loop has no use for it. Only the Corpus Lens SQL schema has it.
   */
  sentencePages?(sentenceIds: readonly number[]): Promise<SentenceLocation[]>;
  /**
   * Every stored sentence of a paper in reading order with its row id, position, section, PDF page and lines, and
   * (when asked) its stored vector: the citation checker scores a citing sentence against them. Only the Corpus
   * Lens SQL schema has it; elsewhere the checker falls back on paperSentences.
   */
  paperRows?(paperId: string, options?: { embeddings?: boolean; signal?: AbortSignal }): Promise<StoredSentence[]>;
  /** Every paper's metadata (id, title, authors, year, venue, DOI, citation key): the citation checker resolves keys with it. */
  listPapers?(): Promise<PaperRef[]>;
  /**
   * The papers that may be these cited works (the schema's find_papers, one scan on the server): every paper with
   * one of the DOIs, titles (same normalised title or spelling) or citation keys, or whose title a reference entry's
   * text prints, and possibly a few more, in id order; the caller applies the exact rules. Ask reads it instead of
   * listing every paper (retrieve/inner-citations.ts).
   */
  findPapers?(query: PaperQuery): Promise<PaperRef[]>;
  /** The venues the papers name, once each: read once and kept until a write (store/held-read.ts). */
  venues?(): Promise<string[]>;
  /**
   * Every paper once, in id order, with what the corpus health report checks: its metadata, where it came from and how
   * many sentences it has (the SQL of the schema's paper_stats(); Supabase calls that function).
   */
  paperStats?(): Promise<PaperStat[]>;
  /** The works each of these papers cites (schema v14; papers without any, or ingested before, are left out). */
  citedWorks?(paperIds: readonly string[]): Promise<Array<{ id: string; works: CitedWork[] }>>;
  /** The source BibTeX entry ingest stored for each of these papers (papers without one are left out): Cite keeps its type. */
  paperBibtex?(paperIds: readonly string[]): Promise<Array<{ id: string; bibtex: string }>>;
  /**
   * Elements (figures, tables, equations) best first for a query: vector similarity of their caption + context fused
   * with a keyword ranking over label, caption, content and description; optional type and paper filters. Only the
   * Corpus Lens schema (v7+) has elements.
   */
  matchElements?(embedding: Float32Array, text: string, options: ElementOptions): Promise<ElementHit[]>;
  /** Elements on the same PDF page, else in the same section, as each given sentence (in the sentences' order). */
  linkedElements?(sentenceIds: readonly number[], options: ElementOptions): Promise<ElementHit[]>;
  /** Every element in paper and reading order (`after`: the last id of the previous page of `count`). */
  listElements?(options: ElementOptions & { after?: number }): Promise<ElementHit[]>;
  /**
   * Stores elements' descriptions (LLM enrichment, src/core/ingest/enrich.ts) with their recomputed vectors (the
   * corpus's model and dimension); the keyword lexemes follow (a generated column). Returns the rows updated.
   */
  describeElements?(rows: readonly { id: number; description: string; embedding: Float32Array }[]): Promise<number>;
  close(): Promise<void>;
}

/** What CorpusStore.findPapers looks for: normalised DOIs (lower case), titles, citation keys (lower case), reference entries' text. */
export interface PaperQuery {
  dois: string[];
  titles: string[];
  keys: string[];
  texts: string[];
}

/** One section of one paper (CorpusStore.sectionTitles). */
export interface SectionTitle {
  paperId: string;
  /** Ordinal of the section within its paper. */
  sectionIndex: number;
  title: string | null;
}

/** A stored sentence of a paper (CorpusStore.paperRows). */
export interface StoredSentence {
  id: number;
  globalIndex: number;
  text: string;
  sectionTitle: string | null;
  page: number | null;
  lineStart: number | null;
  lineEnd: number | null;
  embedding: Float32Array | null;
}

/** One paper as the corpus health report sees it (CorpusStore.paperStats). */
export interface PaperStat {
  id: string;
  title: string | null;
  authors: string[];
  year: number | null;
  doi: string | null;
  citationKey: string | null;
  sourcePath: string | null;
  /** Where a paper from the web came from (full-text URL, or 'metadata:<service>'). */
  source: string | null;
  sentences: number;
  /** The chat model that proposed its title, authors and year (a PDF that had none); null: its metadata is its own. */
  metadataProposedBy: string | null;
}

export interface PaperSource {
  id: string;
  sourcePath: string | null;
  contentHash: string | null;
}

/**
 * A file whose content (at this hash) is a worse copy of a stored paper's work, none of it stored: the PDF compiled from
 * a LaTeX source whose paper holds the better text. Ingest skips it unread, as it does a paper's own unchanged source.
 */
export interface SourceCopy {
  sourcePath: string;
  contentHash: string;
  /** The stored paper whose work it is. */
  paperId: string;
}

export interface WriteOptions {
  signal?: AbortSignal;
  /**
   * Drop the HNSW and full-text indexes before the load and rebuild them after (SQL backends): much faster for a
   * large first import (one index build instead of N inserts into the graph); lookups are exact scans meanwhile.
   */
  deferIndexes?: boolean;
  onProgress?: (done: number, total: number) => void;
}

/** A query embedding from another model or dimension than the corpus's. */
export class CorpusMismatchError extends Error {
  constructor(
    readonly corpus: { model: string; dimensions: number },
    readonly query: { model: string; dimensions: number },
  ) {
    super(
      corpus.model
        ? `corpus was built with ${corpus.model} (${corpus.dimensions}-d); query embedding is ${query.model} (${query.dimensions}-d)`
        : migratedSizeMessage(corpus.dimensions, query),
    );
    this.name = 'CorpusMismatchError';
  }
}

/**
 * A corpus migrated for one vector size (`corpus-lens schema --print --dimensions N`, no model recorded yet) and an
 * embedding model of another: what to do, in one line.
 */
export function migratedSizeMessage(migrated: number, query: { model: string; dimensions: number }): string {
  return (
    `the corpus was migrated for ${migrated}-d vectors (\`corpus-lens schema --print --dimensions ${migrated}\`) and the embedding ` +
    `model ${query.model} gives ${query.dimensions}-d vectors: use a model of ${migrated} dimensions, or migrate an empty ` +
    `corpus again with \`corpus-lens schema --print --dimensions ${query.dimensions}\``
  );
}

/** A store failure meant for the user (unreachable corpus, wrong key, read-only schema): one clear line. */
export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    // Store messages quote their target (a postgres:// URL, a PostgREST URL): never with its credentials.
    super(redactSecrets(message), options);
    this.name = 'StoreError';
  }
}

/** Every vector of the papers has the corpus's dimension; checked before anything is written, so nothing is half-written. */
export function checkPaperDimensions(papers: readonly PaperInput[], dimensions: number): void {
  for (const paper of papers) {
    for (const s of paper.sentences) {
      if (s.embedding.length !== dimensions) {
        throw new StoreError(
          `paper ${paper.id}: sentence ${s.globalIndex} has a ${s.embedding.length}-d embedding; the corpus has ${dimensions}`,
        );
      }
    }
    for (const e of paper.elements ?? []) {
      if (e.embedding.length !== dimensions) {
        throw new StoreError(
          `paper ${paper.id}: element ${e.elementIndex} has a ${e.embedding.length}-d embedding; the corpus has ${dimensions}`,
        );
      }
    }
  }
}

/** Checks a model/dimension pair against the corpus's; `*` or an empty recorded model accepts any model. */
/** The corpus's recorded model and dimension, or a one-line error for a corpus with no schema yet. */
export async function requireMeta(store: Pick<CorpusStore, 'meta'>): Promise<CorpusMeta> {
  const m = await store.meta();
  if (!m) throw new StoreError('the corpus is empty: no schema yet (import something first)');
  return m;
}

export function checkCompatible(corpus: { model: string; dimensions: number }, query: { model: string; dimensions: number }): void {
  const modelOk = !corpus.model || corpus.model === '*' || corpus.model === query.model;
  if (!modelOk || (corpus.dimensions > 0 && corpus.dimensions !== query.dimensions)) {
    throw new CorpusMismatchError(corpus, query);
  }
}

/**
 * Sentences a load expects to write from which it drops the search indexes and rebuilds them at the end: at least
 * 2,000 and a quarter of the corpus. Measured in PGlite: 20k random 384-d rows written into a live
 * HNSW index took 83 s (~4 ms a row), a fresh build over 15k Citation-Integrity rows 11 s (~0.7 ms a row).
 */
export function deferIndexesFrom(existingSentences: number, minimum = 2_000): number {
  return Math.max(minimum, existingSentences / 4);
}
