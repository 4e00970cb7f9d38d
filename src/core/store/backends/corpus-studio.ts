// Existing CorpusStudio databases, read only: a "Document" table (one sentence a row: id, doc_id, text,
// section_title, section_number, sentence_index, global_index, embedding), a "Source" table (doc_id, title,
// abstract, authors, doi_link, venue_name, optionally year) and the RPC
// match_documents(query_embedding, similarity_threshold, max_results).
// CorpusStudio's own client fetched the context with 3 look-ups per hit (1 + 3k round trips). Here:
// - SQL (pg / PGlite): ONE statement calls match_documents and joins target, previous, next and Source.
// - Supabase: the RPC, then ONE batched GET on "Document" for the context of ALL hits
//   (or=(and(doc_id.eq.X,section_title.eq."S",sentence_index.in.(i-1,i,i+1)),…)) sent together with ONE GET on
//   "Source" (doc_id=in.(…)): 2 sequential round trips, 3 requests, whatever k is.
// Context follows CorpusStudio's definition: same doc_id and section_title, sentence_index ± 1.
// Year, paper, venue and section filters are applied after match_documents (it has no filter parameters), so a filtered lookup
// can return fewer than k hits. Keyword and hybrid search need the Corpus Lens schema. "Source" has no column saying who
// proposed a paper's metadata, so its hits carry no metadataProposedBy (a CorpusStudio corpus's metadata is its own).
import type { SupabaseClient } from '@supabase/supabase-js' with { 'resolution-mode': 'import' };
import { filterArgs, matchesTextFilter, parseVectorText, toHit, toSectionTitle } from '../rows.js';
import type { SqlDriver } from '../driver.js';
import { closeSupabaseClient, createSupabaseClient, unwrap } from './supabase.js';
import {
  StoreError,
  type CorpusMeta,
  type CorpusStore,
  type Hit,
  type LookupOptions,
  type PaperInput,
  type PaperSource,
  type SectionTitle,
  type SentenceRef,
  type StoreKind,
  type WriteResult,
} from '../types.js';

const READ_ONLY = 'the CorpusStudio schema is read only (import into a Corpus Lens corpus instead)';
const NO_KEYWORD = 'keyword, hybrid and paper search need the Corpus Lens schema (a CorpusStudio database has no full-text function)';

abstract class ReadOnlyStore {
  readonly schema = 'corpusStudio' as const;
  readonly readOnly = true;
  protected cachedMeta: CorpusMeta | null | undefined;
  constructor(protected readonly model: string | undefined) {}

  abstract meta(): Promise<CorpusMeta | null>;

  async init(options: { model: string; dimensions: number }): Promise<CorpusMeta> {
    void options;
    throw new StoreError(READ_ONLY);
  }

  async writePapers(papers: readonly PaperInput[]): Promise<WriteResult> {
    void papers;
    throw new StoreError(READ_ONLY);
  }

  async sources(): Promise<PaperSource[]> {
    throw new StoreError(READ_ONLY);
  }

  async deletePapers(): Promise<void> {
    throw new StoreError(READ_ONLY);
  }

  async matchKeyword(): Promise<Hit[]> {
    throw new StoreError(NO_KEYWORD);
  }

  async matchHybrid(): Promise<Hit[]> {
    throw new StoreError(NO_KEYWORD);
  }

  async matchPapers(): Promise<Hit[]> {
    throw new StoreError(NO_KEYWORD);
  }

  protected async requireMeta(v?: Float32Array): Promise<CorpusMeta> {
    const m = await this.meta();
    if (!m) throw new StoreError('the CorpusStudio "Document" table has no embeddings');
    if (v && m.dimensions && v.length !== m.dimensions) {
      throw new StoreError(`query embedding has ${v.length} dimensions; the corpus has ${m.dimensions}`);
    }
    return m;
  }

  protected metaOf(dimensions: number): CorpusMeta {
    return { schemaVersion: 'corpusStudio', model: this.model ?? '*', dimensions };
  }
}

// ---------------------------------------------------------------------------------------------- SQL backends

const SENTENCE = (a: string) => `jsonb_build_object('id', ${a}.id, 'paperId', ${a}.doc_id, 'text', ${a}.text,
  'sectionTitle', ${a}.section_title, 'sectionNumber', ${a}.section_number, 'sentenceIndex', ${a}.sentence_index,
  'globalIndex', ${a}.global_index)`;

/**
 * Target (shifted), context and Source of `hits(id, ord, similarity)`; $o = offset, $ymin/$ymax/$pids/$ven/$sec
 * filters (venue and section: case-insensitive substrings, as the Corpus Lens schema's FILTER).
 */
function contextSql(hitsCte: string, o: number, ymin: number, ymax: number, pids: number, ven: number, sec: number): string {
  const neighbour = (alias: string, delta: string) => `LEFT JOIN LATERAL (
      SELECT * FROM "Document" x WHERE x.doc_id = t.doc_id AND x.section_title IS NOT DISTINCT FROM t.section_title
        AND x.sentence_index = t.sentence_index ${delta} ORDER BY x.global_index LIMIT 1) ${alias} ON true`;
  return `WITH ${hitsCte}
  SELECT h.similarity, h.similarity AS score, ${SENTENCE('t')} AS sentence,
    CASE WHEN p.id IS NULL THEN NULL ELSE ${SENTENCE('p')} END AS previous,
    CASE WHEN n.id IS NULL THEN NULL ELSE ${SENTENCE('n')} END AS next,
    jsonb_build_object('id', t.doc_id, 'title', s.title, 'authors', to_jsonb(s.authors),
      'year', (to_jsonb(s) ->> 'year')::int, 'venue', s.venue_name,
      'doi', coalesce(substring(s.doi_link from '(10\\.[0-9]{4,9}/\\S+)'), s.doi_link)) AS paper
  FROM hits h
  JOIN "Document" m ON m.id = h.id
  JOIN LATERAL (
    SELECT * FROM "Document" x WHERE x.doc_id = m.doc_id AND x.section_title IS NOT DISTINCT FROM m.section_title
      AND x.sentence_index = m.sentence_index + coalesce($${o}::int, 0) ORDER BY x.global_index LIMIT 1) t ON true
  ${neighbour('p', '- 1')}
  ${neighbour('n', '+ 1')}
  LEFT JOIN "Source" s ON s.doc_id = t.doc_id
  WHERE ($${pids}::text[] IS NULL OR t.doc_id = ANY ($${pids}::text[]))
    AND ($${ymin}::int IS NULL OR (to_jsonb(s) ->> 'year')::int >= $${ymin}::int)
    AND ($${ymax}::int IS NULL OR (to_jsonb(s) ->> 'year')::int <= $${ymax}::int)
    AND ($${ven}::text IS NULL OR strpos(lower(s.venue_name), lower($${ven}::text)) > 0)
    AND ($${sec}::text IS NULL OR strpos(lower(m.section_title), lower($${sec}::text)) > 0)
  ORDER BY h.ord`;
}

class CorpusStudioSqlStore extends ReadOnlyStore implements CorpusStore {
  constructor(
    readonly driver: SqlDriver,
    model: string | undefined,
  ) {
    super(model);
  }

  get kind(): StoreKind {
    return this.driver.kind;
  }

  async meta(): Promise<CorpusMeta | null> {
    if (this.cachedMeta !== undefined) return this.cachedMeta;
    const t = await this.driver.query(`SELECT to_regclass('"Document"') IS NOT NULL AS ok`);
    if (!t.rows[0]?.ok) throw new StoreError('no CorpusStudio "Document" table in this database');
    const r = await this.driver.query(`SELECT vector_dims(embedding) AS d FROM "Document" WHERE embedding IS NOT NULL LIMIT 1`);
    this.cachedMeta = r.rows.length ? this.metaOf(Number(r.rows[0].d)) : null;
    return this.cachedMeta;
  }

  /** ONE statement: match_documents, then target/previous/next/Source joined. */
  async matchVector(embedding: Float32Array, o: LookupOptions): Promise<Hit[]> {
    await this.requireMeta(embedding);
    const [count, offset, ymin, ymax, pids, venue, section] = filterArgs(o);
    const hits = `m0 AS MATERIALIZED (SELECT md.id, row_number() OVER () AS ord FROM match_documents($1, $2::float8, $3::int) md),
      hits AS (SELECT m0.id, m0.ord, (1 - (d.embedding <=> $1))::float8 AS similarity FROM m0 JOIN "Document" d ON d.id = m0.id)`;
    const rows = await this.driver.lookup(contextSql(hits, 4, 5, 6, 7, 8, 9), embedding, [
      o.threshold ?? -1,
      count,
      offset,
      ymin,
      ymax,
      pids,
      venue,
      section,
    ]);
    return rows.map(toHit);
  }

  async context(sentenceIds: readonly number[], offset = 0): Promise<Hit[]> {
    await this.requireMeta();
    const hits = `hits AS (SELECT u.id::int AS id, u.ord, NULL::float8 AS similarity
      FROM unnest($1::bigint[]) WITH ORDINALITY u(id, ord))`;
    const rows = await this.driver.lookup(contextSql(hits, 2, 3, 4, 5, 6, 7), null, [
      sentenceIds.map(String),
      offset,
      null,
      null,
      null,
      null,
      null,
    ]);
    return rows.map(toHit);
  }

  async counts(): Promise<{ papers: number; sentences: number }> {
    const r = await this.driver.query(
      `SELECT (SELECT count(*) FROM "Source")::int AS papers, (SELECT count(*) FROM "Document")::int AS sentences`,
    );
    return { papers: Number(r.rows[0].papers), sentences: Number(r.rows[0].sentences) };
  }

  /** A section is a (doc_id, section_number, section_title) group; its index is its order by first global_index. */
  async sectionTitles(): Promise<SectionTitle[]> {
    const r = await this.driver.query(
      `SELECT doc_id AS paper_id, section_title,
         (row_number() OVER (PARTITION BY doc_id ORDER BY min(global_index)) - 1)::int AS section_index
       FROM "Document" GROUP BY doc_id, section_number, section_title ORDER BY doc_id, section_index`,
    );
    return r.rows.map(toSectionTitle);
  }

  close(): Promise<void> {
    return this.driver.close();
  }
}

/** A CorpusStudio database over a pg/PGlite connection (the `driver` of an opened SqlCorpusStore). */
export function corpusStudioSql(driver: SqlDriver, options: { model?: string } = {}): CorpusStore {
  return new CorpusStudioSqlStore(driver, options.model);
}

// ------------------------------------------------------------------------------------------------- Supabase

interface DocRow {
  id: number;
  doc_id: string;
  text: string;
  section_title: string | null;
  section_number: string | null;
  sentence_index: number;
  global_index: number;
  embedding?: string | number[] | null;
  similarity?: number;
}

/** A PostgREST filter value, always double-quoted (reserved characters , . : ( ) " are then safe). */
function pgrstValue(v: string): string {
  return `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function toRef(d: DocRow): SentenceRef {
  return {
    id: Number(d.id),
    paperId: String(d.doc_id),
    text: d.text,
    sectionTitle: d.section_title ?? null,
    sectionNumber: d.section_number == null ? null : String(d.section_number),
    sentenceIndex: Number(d.sentence_index),
    globalIndex: Number(d.global_index),
  };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / (Math.sqrt(na * nb) || 1);
}

const DOC_COLUMNS = 'id,doc_id,text,section_title,section_number,sentence_index,global_index';

class CorpusStudioSupabaseStore extends ReadOnlyStore implements CorpusStore {
  readonly kind = 'supabase' as const;

  constructor(
    readonly client: SupabaseClient,
    readonly url: string,
    model: string | undefined,
  ) {
    super(model);
  }

  async meta(): Promise<CorpusMeta | null> {
    if (this.cachedMeta !== undefined) return this.cachedMeta;
    const r = await this.client.from('Document').select('embedding').limit(1).retry(false);
    const rows = unwrap(this.url, 'reading "Document"', r) as { embedding: string | number[] | null }[];
    if (!rows.length) return (this.cachedMeta = null);
    const e = rows[0].embedding;
    // 0 = unknown (a NULL embedding in the first row): the RPC then checks the dimension itself.
    this.cachedMeta = this.metaOf(e == null ? 0 : typeof e === 'string' ? parseVectorText(e).length : e.length);
    return this.cachedMeta;
  }

  /** The context of all targets in one GET on "Document", sent together with one GET on "Source". */
  private async assemble(
    targets: { doc: DocRow; similarity: number | null }[],
    offset: number,
    query: Float32Array | null,
    o: Pick<LookupOptions, 'yearMin' | 'yearMax' | 'paperIds' | 'venue' | 'section'>,
  ): Promise<Hit[]> {
    if (!targets.length) return [];
    const needSimilarity = query != null && targets.some((t) => t.similarity == null);
    const groups = new Map<string, { doc: string; section: string | null; indexes: Set<number> }>();
    for (const { doc } of targets) {
      const key = JSON.stringify([doc.doc_id, doc.section_title]);
      const g = groups.get(key) ?? { doc: String(doc.doc_id), section: doc.section_title, indexes: new Set<number>() };
      const i = Number(doc.sentence_index) + offset;
      for (const j of [i - 1, i, i + 1, ...(needSimilarity ? [Number(doc.sentence_index)] : [])]) g.indexes.add(j);
      groups.set(key, g);
    }
    const or = [...groups.values()]
      .map(
        (g) =>
          `and(doc_id.eq.${pgrstValue(g.doc)},${g.section == null ? 'section_title.is.null' : `section_title.eq.${pgrstValue(g.section)}`},sentence_index.in.(${[...g.indexes].join(',')}))`,
      )
      .join(',');
    const docIds = [...new Set(targets.map((t) => String(t.doc.doc_id)))];
    const [ctx, src] = await Promise.all([
      this.client
        .from('Document')
        .select(needSimilarity ? `${DOC_COLUMNS},embedding` : DOC_COLUMNS)
        .or(or),
      this.client.from('Source').select('*').in('doc_id', docIds),
    ]);
    const docs = (unwrap(this.url, 'reading the context', ctx) ?? []) as unknown as DocRow[];
    const sources = (unwrap(this.url, 'reading "Source"', src) ?? []) as Record<string, unknown>[];
    const at = new Map<string, DocRow>();
    for (const d of docs.sort((a, b) => b.global_index - a.global_index)) {
      at.set(JSON.stringify([String(d.doc_id), d.section_title, Number(d.sentence_index)]), d); // lowest global_index wins
    }
    const get = (doc: DocRow, i: number) => at.get(JSON.stringify([String(doc.doc_id), doc.section_title, i]));
    const sourceOf = new Map(sources.map((s) => [String(s.doc_id), s]));
    const hits: Hit[] = [];
    for (const { doc, similarity } of targets) {
      const i = Number(doc.sentence_index) + offset;
      const t = get(doc, i);
      if (!t) continue;
      let sim = similarity;
      if (sim == null && query) {
        const self = get(doc, Number(doc.sentence_index));
        const e = self?.embedding;
        sim = e == null ? null : cosine(query, typeof e === 'string' ? parseVectorText(e) : Float32Array.from(e));
      }
      const s = sourceOf.get(String(t.doc_id)) ?? {};
      const year = s.year == null ? null : Number(s.year);
      if (o.paperIds && !o.paperIds.includes(String(t.doc_id))) continue;
      if (o.yearMin != null && !(year != null && year >= o.yearMin)) continue;
      if (o.yearMax != null && !(year != null && year <= o.yearMax)) continue;
      if (!matchesTextFilter(s.venue_name == null ? null : String(s.venue_name), o.venue)) continue;
      if (!matchesTextFilter(doc.section_title, o.section)) continue;
      const prev = get(doc, i - 1);
      const next = get(doc, i + 1);
      const doi = s.doi_link == null ? null : String(s.doi_link);
      hits.push({
        similarity: sim ?? NaN,
        score: sim ?? NaN,
        sentence: toRef(t),
        previous: prev ? toRef(prev) : null,
        next: next ? toRef(next) : null,
        paper: {
          id: String(t.doc_id),
          title: s.title == null ? null : String(s.title),
          authors: Array.isArray(s.authors) ? s.authors.map(String) : s.authors ? [String(s.authors)] : [],
          year,
          venue: s.venue_name == null ? null : String(s.venue_name),
          doi: doi ? (/(10\.\d{4,9}\/\S+)/.exec(doi)?.[1] ?? doi) : null,
        },
      });
    }
    return hits;
  }

  async matchVector(embedding: Float32Array, o: LookupOptions): Promise<Hit[]> {
    await this.requireMeta(embedding);
    const r = await this.client.rpc('match_documents', {
      query_embedding: `[${Array.from(embedding).join(',')}]`,
      similarity_threshold: o.threshold ?? -1,
      max_results: o.count,
    });
    const rows = (unwrap(this.url, 'match_documents', r) ?? []) as DocRow[];
    return this.assemble(
      rows.map((doc) => ({ doc, similarity: doc.similarity == null ? null : Number(doc.similarity) })),
      o.offset ?? 0,
      embedding,
      o,
    );
  }

  async context(sentenceIds: readonly number[], offset = 0): Promise<Hit[]> {
    await this.requireMeta();
    const r = await this.client
      .from('Document')
      .select(DOC_COLUMNS)
      .in('id', [...sentenceIds]);
    const rows = (unwrap(this.url, 'reading "Document"', r) ?? []) as unknown as DocRow[];
    const byId = new Map(rows.map((d) => [Number(d.id), d]));
    const ordered = sentenceIds.map((id) => byId.get(id)).filter((d): d is DocRow => !!d);
    return this.assemble(
      ordered.map((doc) => ({ doc, similarity: null })),
      offset,
      null,
      {},
    );
  }

  async counts(): Promise<{ papers: number; sentences: number }> {
    const [p, s] = await Promise.all(['Source', 'Document'].map((t) => this.client.from(t).select('*', { count: 'exact', head: true })));
    unwrap(this.url, 'counting "Source"', p);
    unwrap(this.url, 'counting "Document"', s);
    return { papers: p.count ?? 0, sentences: s.count ?? 0 };
  }

  async sectionTitles(): Promise<SectionTitle[]> {
    throw new StoreError(
      'the section-structure view is not available for a CorpusStudio database on Supabase (it has no RPC that lists sections)',
    );
  }

  async close(): Promise<void> {
    await closeSupabaseClient(this.client);
  }
}

/** A CorpusStudio database on Supabase (read only). Reads the embedding dimension once. */
export async function openCorpusStudioSupabase(url: string, key: string, options: { model?: string } = {}): Promise<CorpusStore> {
  const store = new CorpusStudioSupabaseStore(await createSupabaseClient(url, key), url, options.model);
  await store.meta();
  return store;
}
