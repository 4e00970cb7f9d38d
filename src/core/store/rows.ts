// Mapping of the lookup functions' rows (similarity, score, sentence, previous, next, paper) to Hit, shared by
// every backend, and small encoders shared by the SQL backends.
import type {
  CitedWork,
  ElementHit,
  ElementRef,
  ElementType,
  Hit,
  LookupOptions,
  PaperRef,
  PaperStat,
  SectionTitle,
  SentenceRef,
  StoredSentence,
} from './types.js';

type Json = Record<string, unknown>;

function asObject(v: unknown): Json | null {
  if (v == null) return null;
  if (typeof v === 'string') return JSON.parse(v) as Json;
  return v as Json;
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v);
}

function str(v: unknown): string | null {
  return v == null ? null : String(v);
}

export function toSentence(v: unknown): SentenceRef | null {
  const o = asObject(v);
  if (!o) return null;
  return {
    id: num(o.id),
    paperId: String(o.paperId),
    text: String(o.text),
    sectionTitle: str(o.sectionTitle),
    sectionNumber: str(o.sectionNumber),
    sentenceIndex: num(o.sentenceIndex),
    globalIndex: num(o.globalIndex),
  };
}

export function toPaper(v: unknown): PaperRef {
  const o = asObject(v) ?? {};
  const authors = o.authors;
  return {
    id: String(o.id),
    title: str(o.title),
    authors: Array.isArray(authors) ? authors.map(String) : typeof authors === 'string' && authors ? [authors] : [],
    year: o.year == null ? null : num(o.year),
    venue: str(o.venue),
    doi: str(o.doi),
    ...(o.citationKey == null ? {} : { citationKey: str(o.citationKey) }),
  };
}

/**
 * A lookup row as Hit: the functions' (similarity, score, sentence, previous, next, paper), or a prepared
 * statement's one column `hit` (sql/lookup.ts compactTail), which gives the same Hit.
 */
export function toHit(row: Json): Hit {
  if (row.hit !== undefined) return compactHit(typeof row.hit === 'string' ? (JSON.parse(row.hit) as unknown[]) : (row.hit as unknown[]));
  const similarity = row.similarity == null ? NaN : num(row.similarity);
  const score = row.score == null ? similarity : num(row.score);
  return {
    similarity,
    score,
    sentence: toSentence(row.sentence)!,
    previous: toSentence(row.previous),
    next: toSentence(row.next),
    paper: toPaper(row.paper),
  };
}

/**
 * compactTail's array: similarity, score; the target's id, paper, text, section title and number, sentence and global
 * index; the previous and the next sentence's id, text, section title and number, global index (their paper is the
 * target's, their position one before and after); the paper's title, authors, year, venue, DOI, citation key.
 */
function compactHit(a: unknown[]): Hit {
  const similarity = a[0] == null ? NaN : num(a[0]);
  const paperId = String(a[3]);
  const at = num(a[7]);
  const sentence = (id: unknown, text: unknown, title: unknown, number: unknown, sentenceIndex: number, globalIndex: unknown) =>
    id == null
      ? null
      : {
          id: num(id),
          paperId,
          text: String(text),
          sectionTitle: str(title),
          sectionNumber: str(number),
          sentenceIndex,
          globalIndex: num(globalIndex),
        };
  return {
    similarity,
    score: a[1] == null ? similarity : num(a[1]),
    sentence: sentence(a[2], a[4], a[5], a[6], at, a[8])!,
    previous: sentence(a[9], a[10], a[11], a[12], at - 1, a[13]),
    next: sentence(a[14], a[15], a[16], a[17], at + 1, a[18]),
    paper: toPaper({ id: paperId, title: a[19], authors: a[20], year: a[21], venue: a[22], doi: a[23], citationKey: a[24] }),
  };
}

/** A row (paper_id, section_index, section_title) of section_titles() or its SQL, as every backend returns it. */
export function toSectionTitle(row: Json): SectionTitle {
  return { paperId: String(row.paper_id), sectionIndex: num(row.section_index), title: str(row.section_title) };
}

/** A row of paper_stats() or its SQL, as every backend returns it. */
export function toPaperStat(row: Json): PaperStat {
  return {
    id: String(row.id),
    title: str(row.title),
    authors: Array.isArray(row.authors) ? row.authors.map(String) : [],
    year: row.year == null ? null : num(row.year),
    doi: str(row.doi),
    citationKey: str(row.citation_key),
    sourcePath: str(row.source_path),
    source: str(row.source),
    sentences: num(row.sentences),
    // Not in paper_stats() (Supabase reads it apart): null where the row lacks it.
    metadataProposedBy: str(row.metadata_proposed_by),
  };
}

/** A row of paper_rows() or its SQL (the vector as pgvector text, when read), as every backend returns it. */
export function toStoredSentence(r: Json): StoredSentence {
  const int = (v: unknown) => (v == null ? null : num(v));
  return {
    id: num(r.id),
    globalIndex: num(r.global_index),
    text: String(r.text),
    sectionTitle: str(r.section_title),
    page: int(r.page),
    lineStart: int(r.line_start),
    lineEnd: int(r.line_end),
    embedding: r.embedding == null ? null : parseVectorText(String(r.embedding)),
  };
}

/** A row (id, title, authors, year, venue, doi, citation_key) of list_papers() or its SQL. */
export function toPaperRef(r: Json): PaperRef {
  return {
    id: String(r.id),
    title: str(r.title),
    authors: Array.isArray(r.authors) ? r.authors.map(String) : [],
    year: r.year == null ? null : num(r.year),
    venue: str(r.venue),
    doi: str(r.doi),
    citationKey: str(r.citation_key),
    ...(r.metadata_proposed_by === undefined ? {} : { metadataProposedBy: str(r.metadata_proposed_by) }),
  };
}

/** pgvector's text input: `[1,2,3]`. */
export function vectorText(v: ArrayLike<number>): string {
  let s = '[';
  for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + v[i];
  return s + ']';
}

/** pgvector's binary format (vector_recv): int16 dimensions, int16 0, big-endian float4s. */
export function vectorBinary(v: ArrayLike<number>): Uint8Array {
  const buf = new Uint8Array(4 + 4 * v.length);
  const dv = new DataView(buf.buffer);
  dv.setInt16(0, v.length);
  dv.setInt16(2, 0);
  for (let i = 0; i < v.length; i++) dv.setFloat32(4 + 4 * i, v[i]);
  return buf;
}

/** Parses pgvector's text output `[1,2,3]` (what PostgREST returns for a vector column). */
export function parseVectorText(s: string): Float32Array {
  const inner = s.trim().replace(/^\[/, '').replace(/\]$/, '');
  return Float32Array.from(inner ? inner.split(',').map(Number) : []);
}

/** The common positional arguments of match/keyword functions after the first one (FILTER_PARAMS' order). */
export function filterArgs(
  o: LookupOptions,
): [number, number, number | null, number | null, string[] | null, string | null, string | null] {
  return [
    Math.max(0, Math.floor(o.count)),
    Math.trunc(o.offset ?? 0),
    o.yearMin ?? null,
    o.yearMax ?? null,
    o.paperIds ? [...o.paperIds] : null,
    textFilter(o.venue),
    textFilter(o.section),
  ];
}

/** A venue or section filter as the lookups take it: trimmed, null when blank. */
export function textFilter(value: string | null | undefined): string | null {
  const t = value?.trim();
  return t ? t : null;
}

/** Whether a lookup restricts its rows at all (year, paper, venue or section). */
export function isFiltered(o: LookupOptions): boolean {
  return o.yearMin != null || o.yearMax != null || o.paperIds != null || textFilter(o.venue) != null || textFilter(o.section) != null;
}

/** The stores' venue and section filter on a value they already hold: a case-insensitive substring (sql/lookup.ts FILTER). */
export function matchesTextFilter(value: string | null | undefined, filter: string | null | undefined): boolean {
  const f = textFilter(filter);
  return f == null || (value != null && value.toLowerCase().includes(f.toLowerCase()));
}

/** Collapses any error into its first line. */
export function firstLine(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.split('\n')[0];
}

/** A row (similarity, score, element, paper, via_sentence) of match_elements / linked_elements / list_elements. */
export function toElementHit(row: Json, match: 'direct' | 'linked'): ElementHit {
  const e = asObject(row.element) ?? {};
  const bbox = Array.isArray(e.bbox) && e.bbox.length === 4 ? (e.bbox.map(num) as [number, number, number, number]) : null;
  const element: ElementRef = {
    id: num(e.id),
    paperId: String(e.paperId),
    elementIndex: num(e.elementIndex),
    type: String(e.type) as ElementType,
    label: str(e.label),
    labelKey: str(e.labelKey),
    caption: str(e.caption),
    content: str(e.content),
    description: str(e.description),
    sectionTitle: str(e.sectionTitle),
    sectionIndex: e.sectionIndex == null ? null : num(e.sectionIndex),
    afterSentence: e.afterSentence == null ? -1 : num(e.afterSentence),
    page: e.page == null ? null : num(e.page),
    bbox,
  };
  return {
    element,
    paper: toPaper(row.paper),
    match,
    similarity: row.similarity == null ? null : num(row.similarity),
    score: row.score == null ? 0 : num(row.score),
    ...(row.via_sentence == null ? {} : { viaSentenceId: num(row.via_sentence) }),
  };
}

/** A paper's stored cited works (papers.cited_works, a JSON array), each field checked: malformed entries are left out. */
export function toCitedWorks(v: unknown): CitedWork[] {
  const list = typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
  if (!Array.isArray(list)) return [];
  const strs = (x: unknown) => (Array.isArray(x) ? x.filter((a): a is string => typeof a === 'string') : []);
  return list.flatMap((w: Json | null) => {
    if (!w || typeof w !== 'object' || !Array.isArray(w.citedBy)) return [];
    return [
      {
        label: str(w.label),
        key: str(w.key),
        text: typeof w.text === 'string' ? w.text : '',
        authors: strs(w.authors),
        year: typeof w.year === 'number' ? w.year : null,
        title: str(w.title),
        doi: str(w.doi),
        citedBy: w.citedBy.filter((n): n is number => Number.isInteger(n)),
      },
    ];
  });
}
