// Supabase (PostgREST) through `@supabase/supabase-js`. The schema and functions come from sql/schema.ts, run once by
// the user as a migration (`corpus-lens schema --print`). Every lookup is ONE `.rpc(...)` call (match_sentences,
// keyword_sentences, hybrid_sentences, sentence_context); metadata and counts are table GETs; writes are
// upserts that ignore duplicates (re-importing adds nothing). Over HTTP a paper is up to three requests (papers, its
// sentences, its elements), not one transaction: a failed later request leaves a paper without sentences or elements,
// which a re-import fills.
import type { SupabaseClient } from '@supabase/supabase-js' with { 'resolution-mode': 'import' };
import {
  textFilter,
  toCitedWorks,
  toElementHit,
  toHit,
  toPaperRef,
  toPaperStat,
  toSectionTitle,
  toStoredSentence,
  vectorText,
} from '../rows.js';
import { SCHEMA_VERSION } from '../sql/schema.js';
import { HeldRead, markProposed } from '../held-read.js';
import {
  checkCompatible,
  checkPaperDimensions,
  hybridTuning,
  PAPER_DEFAULTS,
  migratedSizeMessage,
  requireMeta,
  StoreError,
  type CitedWork,
  type CorpusMeta,
  type CorpusStore,
  type PaperQuery,
  type ElementHit,
  type ElementOptions,
  type Hit,
  type HybridOptions,
  type LookupOptions,
  type PaperOptions,
  type PaperInput,
  type PaperMetadata,
  type PaperRef,
  type PaperSource,
  type SourceCopy,
  type PaperStat,
  type SectionTitle,
  type SentenceLocation,
  type StoredSentence,
  type WriteOptions,
  type WriteResult,
} from '../types.js';

interface Reply<T> {
  data: T | null;
  error: { message: string; code?: string; details?: string | null; hint?: string | null } | null;
  status: number;
  count?: number | null;
}

/** A WebSocket "transport" that refuses: Corpus Lens makes no Realtime connections. */
class NoRealtime {
  constructor() {
    throw new Error('Corpus Lens does not use Supabase Realtime');
  }
}

/** How long one request to Supabase may take, answer body included (a silent host used to hang a query for minutes). */
export const SUPABASE_TIMEOUT_MS = 60_000;

/**
 * fetch with a deadline per request that also covers reading the body (the timer runs until the body is read or the
 * request fails): the error names the host and the wait, so a silent host ends with a sentence, not a hang.
 */
export function fetchWithDeadline(timeoutMs: number, base: typeof fetch = fetch): typeof fetch {
  return async (input, init = {}) => {
    const timer = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timer]) : timer;
    try {
      return await base(input, { ...init, signal });
    } catch (err) {
      if (timer.aborted && !init.signal?.aborted) {
        throw new Error(
          `no answer within ${Math.round(timeoutMs / 100) / 10} s (ETIMEDOUT): is the Supabase URL right and the project running?`,
          { cause: err },
        );
      }
      throw err;
    }
  };
}

/** Creates a supabase-js client for `url` and `key` (no session persistence: a server-side style client). */
export async function createSupabaseClient(url: string, key: string, options: { timeoutMs?: number } = {}): Promise<SupabaseClient> {
  if (!key) throw new StoreError('no Supabase key: set SUPABASE_KEY');
  const { createClient } = await import('@supabase/supabase-js');
  try {
    return createClient(url, key, {
      global: { fetch: fetchWithDeadline(options.timeoutMs ?? SUPABASE_TIMEOUT_MS) },
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      // Realtime is never used; Node 20 has no global WebSocket and supabase-js refuses to start without one.
      realtime: { transport: NoRealtime as never },
    });
  } catch (err) {
    throw new StoreError(`invalid Supabase URL ${url}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Turns a supabase-js reply into its data or one clear line (wrong key, unreachable, missing schema, SQL error). */
export function unwrap<T>(url: string, what: string, r: Reply<T>): T {
  if (!r.error) return r.data as T;
  const m = r.error.message ?? '';
  if (r.status === 401 || r.status === 403) {
    throw new StoreError(`Supabase at ${url} rejected the key (HTTP ${r.status}: ${m || 'unauthorized'}); check SUPABASE_KEY`);
  }
  if (r.status === 0 || /fetch failed|ECONNREFUSED|ENOTFOUND|network/i.test(m + (r.error.details ?? ''))) {
    const detail =
      /no answer within [^\n]*/.exec(m + '\n' + (r.error.details ?? ''))?.[0] ??
      /ECONNREFUSED|ENOTFOUND|ETIMEDOUT/.exec(r.error.details ?? '')?.[0];
    throw new StoreError(`cannot reach the corpus at ${url}: ${detail ?? m.replace(/^TypeError: /, '')}`);
  }
  throw new StoreError(`${what} failed (HTTP ${r.status}): ${m.split('\n')[0]}`);
}

/** The vector size the project's migration declared, when a write was refused for another (pgvector's 22000). */
function migratedSize(r: Reply<unknown>): number | undefined {
  const m = r.error ? /expected (\d+) dimensions, not \d+/.exec(r.error.message ?? '') : null;
  return m ? Number(m[1]) : undefined;
}

/** A column the project's schema lacks (PostgREST on a write: PGRST204; PostgreSQL on a read: 42703). */
function isMissingColumn(r: Reply<unknown>): boolean {
  return !!r.error && (r.error.code === 'PGRST204' || r.error.code === '42703');
}

/** An RPC the project's schema does not have (migrated before it). */
function isMissingFunction(r: Reply<unknown>): boolean {
  return !!r.error && (r.error.code === 'PGRST202' || r.error.code === '42883' || r.status === 404);
}

function isMissingRelation(r: Reply<unknown>): boolean {
  return !!r.error && (r.status === 404 || r.error.code === 'PGRST205' || r.error.code === '42P01');
}

export class SupabaseCorpusStore implements CorpusStore {
  readonly kind = 'supabase' as const;
  readonly schema = 'corpusLens' as const;
  readonly readOnly = false;
  private cachedMeta: CorpusMeta | null | undefined;
  /** Others write to the project too: the venue list is read again after a minute, and after a write through this store. */
  private readonly venueList = new HeldRead(() => this.readVenues(), 60_000);
  /** The papers whose metadata a model proposed, which every hit is marked from (read from the table: no migration). */
  private readonly proposals = new HeldRead(() => this.metadataProposals(), 60_000);

  constructor(
    readonly client: SupabaseClient,
    readonly url: string,
  ) {}

  async meta(): Promise<CorpusMeta | null> {
    if (this.cachedMeta !== undefined) return this.cachedMeta;
    const r = (await this.client.from('corpus_meta').select('key,value').retry(false)) as Reply<{ key: string; value: string }[]>;
    if (isMissingRelation(r)) return (this.cachedMeta = null);
    const rows = unwrap(this.url, 'reading corpus_meta', r) ?? [];
    const m = new Map(rows.map((x) => [x.key, x.value]));
    if (!m.has('dimensions')) return (this.cachedMeta = null);
    this.cachedMeta = {
      schemaVersion: m.get('schema_version') ?? '1',
      model: m.get('embedding_model') ?? '',
      dimensions: Number(m.get('dimensions')),
      createdAt: m.get('created_at'),
    };
    return this.cachedMeta;
  }

  async init(options: { model: string; dimensions: number }): Promise<CorpusMeta> {
    const existing = await this.meta();
    checkCompatible(existing ?? options, options);
    // The migration records the dimension; the first fill records the model (rows that are already there are kept).
    if (existing?.model) return existing;
    // The tables exist only after the migration; corpus_meta may be empty on a fresh migration.
    const probe = (await this.client.from('corpus_meta').select('key').limit(1).retry(false)) as Reply<unknown[]>;
    if (isMissingRelation(probe)) {
      throw new StoreError(
        `the Supabase project has no Corpus Lens schema: run \`corpus-lens schema --print --dimensions ${options.dimensions}\` as a migration`,
      );
    }
    unwrap(this.url, 'reading corpus_meta', probe);
    const rows = [
      { key: 'schema_version', value: SCHEMA_VERSION },
      { key: 'embedding_model', value: options.model },
      { key: 'dimensions', value: String(options.dimensions) },
      { key: 'created_at', value: new Date().toISOString() },
    ];
    unwrap(
      this.url,
      'writing corpus_meta',
      (await this.client.from('corpus_meta').upsert(rows, { onConflict: 'key', ignoreDuplicates: true })) as Reply<null>,
    );
    this.cachedMeta = undefined;
    const meta = await this.meta();
    if (!meta) throw new StoreError('could not record the corpus metadata');
    checkCompatible(meta, options);
    return meta;
  }

  async writePapers(papers: readonly PaperInput[], options: WriteOptions = {}): Promise<WriteResult> {
    try {
      return await this.writeAll(papers, options);
    } finally {
      this.venueList.clear();
      this.proposals.clear();
    }
  }

  private async writeAll(papers: readonly PaperInput[], options: WriteOptions): Promise<WriteResult> {
    const meta = await requireMeta(this);
    checkPaperDimensions(papers, meta.dimensions);
    const result: WriteResult = { papers: 0, sentences: 0, skipped: 0 };
    let done = 0;
    for (const p of papers) {
      options.signal?.throwIfAborted();
      const paperRow = {
        id: p.id,
        title: p.title ?? null,
        authors: p.authors ?? [],
        year: p.year ?? null,
        venue: p.venue ?? null,
        doi: p.doi ?? null,
        url: p.url ?? null,
        abstract: p.abstract ?? null,
        citation_key: p.citationKey ?? null,
        bibtex: p.bibtex ?? null,
        source_path: p.sourcePath ?? null,
        content_hash: p.contentHash ?? null,
        // Only when set: a project not yet migrated to schema v3 still takes papers that have neither.
        ...(p.source ? { source: p.source } : {}),
        ...(p.license ? { license: p.license } : {}),
        ...(p.citedWorks?.length ? { cited_works: p.citedWorks } : {}),
        ...(p.metadataProposedBy ? { metadata_proposed_by: p.metadataProposedBy } : {}),
      };
      const upsert = (row: Record<string, unknown>) =>
        this.client.from('papers').upsert([row], { onConflict: 'id', ignoreDuplicates: true }).select('id') as unknown as Promise<
          Reply<{ id: string }[]>
        >;
      let pr = await upsert(paperRow);
      // A project migrated before schema v14 has no cited_works column: the paper goes in without its cited works.
      if (('cited_works' in paperRow || 'metadata_proposed_by' in paperRow) && isMissingColumn(pr)) {
        const { cited_works: _works, metadata_proposed_by: _by, ...older } = paperRow as Record<string, unknown>;
        pr = await upsert(older);
      }
      result.papers += (unwrap(this.url, `writing paper ${p.id}`, pr) ?? []).length;
      if (!p.sentences.length) {
        result.elements = (result.elements ?? 0) + (await this.writeElements(p));
        continue;
      }
      const lined = p.sentences.some((s) => s.lineStart != null);
      const rows = p.sentences.map((s) => ({
        paper_id: p.id,
        section_title: s.sectionTitle ?? null,
        section_number: s.sectionNumber ?? null,
        section_index: s.sectionIndex,
        sentence_index: s.sentenceIndex,
        global_index: s.globalIndex,
        page: s.page ?? null,
        // Sent only for a paper that has them (PDFs), so that a project migrated before schema v8 still takes others.
        ...(lined ? { line_start: s.lineStart ?? null, line_end: s.lineEnd ?? null, page_end: s.pageEnd ?? null } : {}),
        text: s.text,
        embedding: vectorText(s.embedding),
      }));
      const sr = (await this.client
        .from('sentences')
        .upsert(rows, { onConflict: 'paper_id,global_index', ignoreDuplicates: true })
        .select('id')) as Reply<{ id: number }[]>;
      if (lined && isMissingColumn(sr)) {
        throw new StoreError(
          `paper ${p.id} is a PDF with line numbers and this Supabase project has no sentences.line_start (a Corpus Lens schema before v8): run the output of \`corpus-lens schema --print\` as a migration`,
        );
      }
      const migrated = migratedSize(sr);
      if (migrated !== undefined) {
        await this.undoPaper(p.id, (unwrap(this.url, `writing paper ${p.id}`, pr) ?? []).length > 0);
        throw new StoreError(`${migratedSizeMessage(migrated, meta)}. Nothing was written`);
      }
      const added = (unwrap(this.url, `writing the sentences of ${p.id}`, sr) ?? []).length;
      result.sentences += added;
      result.skipped += rows.length - added;
      result.elements = (result.elements ?? 0) + (await this.writeElements(p));
      options.onProgress?.(++done, papers.length);
    }
    return result;
  }

  /**
   * After a write refused for its vector size: removes the paper row this write added and, while the project holds
   * no sentence yet, the metadata `init` recorded for the refused size, so that the next run starts clean.
   */
  private async undoPaper(id: string, added: boolean): Promise<void> {
    if (added) await this.client.from('papers').delete().eq('id', id);
    const s = (await this.client.from('sentences').select('*', { count: 'exact', head: true })) as Reply<null>;
    if (!s.error && s.count === 0) {
      await this.client.from('corpus_meta').delete().in('key', ['schema_version', 'embedding_model', 'dimensions', 'created_at']);
      this.cachedMeta = undefined;
    }
  }

  private async writeElements(p: PaperInput): Promise<number> {
    const elements = p.elements ?? [];
    if (!elements.length) return 0;
    const rows = elements.map((e) => ({
      paper_id: p.id,
      element_index: e.elementIndex,
      type: e.type,
      label: e.label,
      label_key: e.labelKey ?? null,
      caption: e.caption,
      content: e.content,
      description: e.description ?? null,
      section_title: e.sectionTitle,
      section_index: e.sectionIndex,
      after_sentence: e.afterSentence,
      page: e.page,
      bbox: e.bbox,
      embedding: vectorText(e.embedding),
    }));
    const r = (await this.client
      .from('elements')
      .upsert(rows, { onConflict: 'paper_id,element_index', ignoreDuplicates: true })
      .select('id')) as Reply<{ id: number }[]>;
    if (isMissingRelation(r)) {
      throw new StoreError(
        `paper ${p.id} has figures, tables or equations and this Supabase project has no elements table (a Corpus Lens schema before v7): run the output of \`corpus-lens schema --print\` as a migration`,
      );
    }
    if (r.error?.code === '23514' && /elements_type_check/.test(r.error.message ?? '')) {
      throw new StoreError(
        `paper ${p.id} has a diagram and this Supabase project's elements table predates them (a Corpus Lens schema before v15): run the output of \`corpus-lens schema --print\` as a migration`,
      );
    }
    return (unwrap(this.url, `writing the elements of ${p.id}`, r) ?? []).length;
  }

  private async elementRpc(fn: string, args: Record<string, unknown>, match: 'direct' | 'linked'): Promise<ElementHit[]> {
    const r = (await this.client.rpc(fn, args)) as Reply<Record<string, unknown>[]>;
    if (r.error && (r.error.code === 'PGRST202' || r.error.code === '42883' || r.status === 404)) {
      throw new StoreError(
        `this Supabase project has no ${fn}() function (a Corpus Lens schema before v7): run the output of \`corpus-lens schema --print\` as a migration`,
      );
    }
    return markProposed(
      (unwrap(this.url, fn, r) ?? []).map((row) => toElementHit(row, match)),
      await this.proposals.get(),
    );
  }

  async matchElements(embedding: Float32Array, text: string, o: ElementOptions): Promise<ElementHit[]> {
    await this.checkVector(embedding);
    return this.elementRpc(
      'match_elements',
      {
        query_embedding: vectorText(embedding),
        query_text: text,
        match_count: o.count,
        element_type: o.type ?? null,
        paper_ids: o.paperIds ? [...o.paperIds] : null,
      },
      'direct',
    );
  }

  async linkedElements(sentenceIds: readonly number[], o: ElementOptions): Promise<ElementHit[]> {
    if (!sentenceIds.length) return [];
    await requireMeta(this);
    return this.elementRpc(
      'linked_elements',
      {
        sentence_ids: [...sentenceIds],
        match_count: o.count,
        element_type: o.type ?? null,
        paper_ids: o.paperIds ? [...o.paperIds] : null,
      },
      'linked',
    );
  }

  /** describe_elements(): the writer's service_role key may call it (the anon and authenticated keys may not). */
  async describeElements(rows: readonly { id: number; description: string; embedding: Float32Array }[]): Promise<number> {
    if (!rows.length) return 0;
    for (const row of rows) await this.checkVector(row.embedding);
    const r = (await this.client.rpc('describe_elements', {
      element_ids: rows.map((x) => x.id),
      descriptions: rows.map((x) => x.description.replace(/\u0000/g, '')),
      embeddings: rows.map((x) => vectorText(x.embedding)),
    })) as Reply<{ updated: number }[]>;
    if (r.error && (r.error.code === 'PGRST202' || r.error.code === '42883' || r.status === 404)) {
      throw new StoreError(
        'this Supabase project has no describe_elements() function (a Corpus Lens schema before v15): run the output of `corpus-lens schema --print` as a migration',
      );
    }
    return Number((unwrap(this.url, 'describe_elements', r) ?? [])[0]?.updated ?? 0);
  }

  /** list_elements() in pages of at most 1,000 (PostgREST's row limit), until `count` or an empty page. */
  async listElements(o: ElementOptions & { after?: number }): Promise<ElementHit[]> {
    if (!(await this.meta())) return [];
    const out: ElementHit[] = [];
    let after = o.after ?? null;
    while (out.length < o.count) {
      const page = await this.elementRpc(
        'list_elements',
        {
          element_type: o.type ?? null,
          paper_ids: o.paperIds ? [...o.paperIds] : null,
          after_id: after,
          max_rows: Math.min(1000, o.count - out.length),
        },
        'direct',
      );
      if (!page.length) break;
      out.push(...page);
      after = page[page.length - 1].element.id;
    }
    return out;
  }

  private async rpc(fn: string, args: Record<string, unknown>): Promise<Hit[]> {
    const r = (await this.client.rpc(fn, args)) as Reply<Record<string, unknown>[]>;
    missingFilters(fn, args, r);
    return markProposed((unwrap(this.url, fn, r) ?? []).map(toHit), await this.proposals.get());
  }

  private filters(o: LookupOptions) {
    const venue = textFilter(o.venue);
    const section = textFilter(o.section);
    return {
      match_count: o.count,
      match_offset: o.offset ?? 0,
      year_min: o.yearMin ?? null,
      year_max: o.yearMax ?? null,
      paper_ids: o.paperIds ? [...o.paperIds] : null,
      // Sent only when set: a project migrated before schema v13 has no such parameters, and PostgREST finds a
      // function by the names it is given.
      ...(venue ? { venue_filter: venue } : {}),
      ...(section ? { section_filter: section } : {}),
    };
  }

  private async checkVector(v: Float32Array): Promise<void> {
    const meta = await requireMeta(this);
    if (v.length !== meta.dimensions) {
      throw new StoreError(`query embedding has ${v.length} dimensions; the corpus has ${meta.dimensions}`);
    }
  }

  async matchVector(embedding: Float32Array, o: LookupOptions): Promise<Hit[]> {
    await this.checkVector(embedding);
    return this.rpc('match_sentences', {
      query_embedding: vectorText(embedding),
      match_threshold: o.threshold ?? null,
      ...this.filters(o),
    });
  }

  async matchKeyword(text: string, o: LookupOptions): Promise<Hit[]> {
    await requireMeta(this);
    return this.rpc('keyword_sentences', { query_text: text, ...this.filters(o) });
  }

  async matchHybrid(embedding: Float32Array, text: string, o: HybridOptions): Promise<Hit[]> {
    await this.checkVector(embedding);
    const t = hybridTuning(o);
    return this.rpc('hybrid_sentences', {
      query_embedding: vectorText(embedding),
      query_text: text,
      ...this.filters(o),
      rrf_k: t.rrfK,
      candidate_count: t.candidates,
      section_weight: t.sectionWeight,
      per_section: t.perSection,
    });
  }

  async matchPapers(embedding: Float32Array, text: string, o: PaperOptions): Promise<Hit[]> {
    await this.checkVector(embedding);
    const r = (await this.client.rpc('rank_papers', {
      query_embedding: vectorText(embedding),
      query_text: text,
      ...this.filters(o),
      vector_weight: o.vectorWeight ?? PAPER_DEFAULTS.vectorWeight,
      candidate_count: o.candidates ?? PAPER_DEFAULTS.candidates,
    })) as Reply<Record<string, unknown>[]>;
    missingFilters('rank_papers', this.filters(o), r);
    if (r.error && (r.error.code === 'PGRST202' || r.error.code === '42883' || r.status === 404)) {
      throw new StoreError(
        'this Supabase project has no rank_papers() function (a Corpus Lens schema before v4): run the output of `corpus-lens schema --print` as a migration',
      );
    }
    return markProposed((unwrap(this.url, 'rank_papers', r) ?? []).map(toHit), await this.proposals.get());
  }

  async context(sentenceIds: readonly number[], offset = 0): Promise<Hit[]> {
    await requireMeta(this);
    return this.rpc('sentence_context', { sentence_ids: [...sentenceIds], match_offset: offset });
  }

  async counts(): Promise<{ papers: number; sentences: number }> {
    if (!(await this.meta())) return { papers: 0, sentences: 0 };
    const [p, s] = await Promise.all(
      ['papers', 'sentences'].map(async (t) => (await this.client.from(t).select('*', { count: 'exact', head: true })) as Reply<null>),
    );
    unwrap(this.url, 'counting papers', p);
    unwrap(this.url, 'counting sentences', s);
    return { papers: p.count ?? 0, sentences: s.count ?? 0 };
  }

  /**
   * Every row of a table (these columns, in this order) page by page until an empty page: a project whose row limit is
   * below 1,000 returns short pages that are not the last. Null when the project has no such table and it is `optional`.
   */
  private async allRows(
    table: string,
    columns: string,
    order: string,
    what: string,
    optional = false,
  ): Promise<Array<Record<string, string | null>> | null> {
    const out: Array<Record<string, string | null>> = [];
    for (;;) {
      const from = out.length;
      const r = (await this.client
        .from(table)
        .select(columns)
        .order(order)
        .range(from, from + 999)) as Reply<Array<Record<string, string | null>>>;
      if (optional && isMissingRelation(r)) return null;
      const rows = unwrap(this.url, what, r) ?? [];
      if (!rows.length) return out;
      out.push(...rows);
    }
  }

  async sources(): Promise<PaperSource[]> {
    if (!(await this.meta())) return [];
    const rows = (await this.allRows('papers', 'id,source_path,content_hash', 'id', 'listing papers')) ?? [];
    return rows.map((x) => ({ id: String(x.id), sourcePath: x.source_path ?? null, contentHash: x.content_hash ?? null }));
  }

  async sourceCopies(): Promise<SourceCopy[]> {
    if (!(await this.meta())) return [];
    // A project migrated before schema v17 has no table (null): its copies are read on every run, as before.
    const rows =
      (await this.allRows('source_copies', 'source_path,content_hash,paper_id', 'source_path', 'listing source copies', true)) ?? [];
    return rows.map((x) => ({ sourcePath: String(x.source_path), contentHash: String(x.content_hash), paperId: String(x.paper_id) }));
  }

  async updateSourceCopies(record: readonly SourceCopy[], forget: readonly string[]): Promise<void> {
    if ((!record.length && !forget.length) || !(await this.meta())) return;
    if (forget.length) {
      const r = (await this.client
        .from('source_copies')
        .delete()
        .in('source_path', [...forget])) as Reply<null>;
      if (isMissingRelation(r)) return;
      unwrap(this.url, 'forgetting source copies', r);
    }
    if (!record.length) return;
    const rows = record.map((c) => ({ source_path: c.sourcePath, content_hash: c.contentHash, paper_id: c.paperId }));
    const r = (await this.client.from('source_copies').upsert(rows, { onConflict: 'source_path' })) as Reply<null>;
    if (!isMissingRelation(r)) unwrap(this.url, 'recording source copies', r);
  }

  async deletePapers(ids: readonly string[]): Promise<void> {
    if (!ids.length) return;
    const r = (await this.client
      .from('papers')
      .delete()
      .in('id', [...ids])) as Reply<null>;
    this.venueList.clear();
    this.proposals.clear();
    unwrap(this.url, 'deleting papers', r);
  }

  async updatePaperMetadata(id: string, m: PaperMetadata): Promise<boolean> {
    if (!(await this.meta())) return false;
    const row: Record<string, unknown> = {
      title: m.title,
      authors: m.authors,
      year: m.year,
      citation_key: m.citationKey,
      ...(m.bibtex === undefined ? {} : { bibtex: m.bibtex }),
      metadata_proposed_by: m.metadataProposedBy,
    };
    const update = (r: Record<string, unknown>) =>
      this.client.from('papers').update(r).eq('id', id).select('id') as unknown as Promise<Reply<{ id: string }[]>>;
    let r = await update(row);
    // A project migrated before schema v14 has no metadata_proposed_by column: the rest is still updated.
    if (isMissingColumn(r)) {
      const { metadata_proposed_by: _by, ...older } = row;
      r = await update(older);
    }
    this.venueList.clear();
    this.proposals.clear();
    return (unwrap(this.url, `updating paper ${id}`, r) ?? []).length > 0;
  }

  /**
   * The RPC section_titles(), a page of up to 1,000 rows at a time (PostgREST's row limit would cut one long answer),
   * until a page comes back empty: a project whose row limit is below 1,000 still gets every row.
   */
  async sectionTitles(): Promise<SectionTitle[]> {
    if (!(await this.meta())) return [];
    const out: SectionTitle[] = [];
    const page = 1000;
    for (let after: SectionTitle | undefined; ;) {
      const r = (await this.client.rpc('section_titles', {
        after_paper: after?.paperId ?? null,
        after_section: after?.sectionIndex ?? null,
        max_rows: page,
      })) as Reply<Record<string, unknown>[]>;
      if (r.error && (r.error.code === 'PGRST202' || r.error.code === '42883' || r.status === 404)) {
        throw new StoreError(
          'this Supabase project has no section_titles() function (an older Corpus Lens schema): run the output of `corpus-lens schema --print` as a migration',
        );
      }
      const rows = unwrap(this.url, 'section_titles', r) ?? [];
      out.push(...rows.map(toSectionTitle));
      if (!rows.length) return out;
      after = out[out.length - 1];
    }
  }

  /** The RPC paper_stats(), a page of up to 1,000 papers at a time, until a page comes back empty (as sectionTitles). */
  async paperStats(): Promise<PaperStat[]> {
    if (!(await this.meta())) return [];
    const out: PaperStat[] = [];
    for (;;) {
      const r = (await this.client.rpc('paper_stats', { after_paper: out.at(-1)?.id ?? null, max_rows: 1000 })) as Reply<
        Record<string, unknown>[]
      >;
      if (r.error && (r.error.code === 'PGRST202' || r.error.code === '42883' || r.status === 404)) {
        throw new StoreError(
          'this Supabase project has no paper_stats() function (a Corpus Lens schema before the corpus health report): run the output of `corpus-lens schema --print` as a migration',
        );
      }
      const rows = unwrap(this.url, 'paper_stats', r) ?? [];
      if (!rows.length) break;
      out.push(...rows.map(toPaperStat));
    }
    const proposed = await this.metadataProposals();
    for (const p of out) p.metadataProposedBy = proposed.get(p.id) ?? null;
    return out;
  }

  /**
   * The papers whose metadata a model proposed, and by which model: read from the table (paper_stats() keeps its
   * columns, so no project needs a migration for it). A project without the column has none.
   */
  private async metadataProposals(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    let last: string | undefined;
    for (;;) {
      let q = this.client.from('papers').select('id,metadata_proposed_by').gt('metadata_proposed_by', '');
      if (last !== undefined) q = q.gt('id', last);
      const r = (await q.order('id').limit(1000)) as Reply<{ id: string; metadata_proposed_by: string }[]>;
      if (isMissingColumn(r)) return out;
      const rows = unwrap(this.url, 'papers', r) ?? [];
      for (const row of rows) out.set(row.id, row.metadata_proposed_by);
      if (rows.length < 1000) return out;
      last = rows[rows.length - 1].id;
    }
  }

  /**
   * A Corpus Lens RPC that returns keyset pages (`max_rows` at a time, `after` the last row) read until a short page:
   * PostgREST's row limit would cut one long answer. A project migrated before the function existed gets one line
   * that says what to run.
   */
  private async pages<T extends Record<string, unknown>>(fn: string, args: (last: T | undefined) => Record<string, unknown>): Promise<T[]> {
    const out: T[] = [];
    const page = 1000;
    for (;;) {
      const r = (await this.client.rpc(fn, { ...args(out[out.length - 1]), max_rows: page })) as Reply<T[]>;
      if (r.error && (r.error.code === 'PGRST202' || r.error.code === '42883' || r.status === 404)) {
        throw new StoreError(
          `this Supabase project has no ${fn}() function (an older Corpus Lens schema): run the output of \`corpus-lens schema --print\` as a migration`,
        );
      }
      const rows = unwrap(this.url, fn, r) ?? [];
      out.push(...rows);
      if (rows.length < page) return out;
    }
  }

  /** One paper's sentences in order with pages and lines (and vectors, asked for): the RPC paper_rows, a page at a time. */
  async paperRows(paperId: string, options: { embeddings?: boolean; signal?: AbortSignal } = {}): Promise<StoredSentence[]> {
    options.signal?.throwIfAborted();
    if (!(await this.meta())) return [];
    const rows = await this.pages<Record<string, unknown>>('paper_rows', (last) => ({
      paper: paperId,
      after_index: last ? Number(last.global_index) : -1,
      with_embeddings: !!options.embeddings,
    }));
    return rows.map(toStoredSentence);
  }

  /** Every paper's metadata: the RPC list_papers, a page at a time. */
  async listPapers(): Promise<PaperRef[]> {
    if (!(await this.meta())) return [];
    const rows = await this.pages<Record<string, unknown>>('list_papers', (last) => ({ after_id: last ? String(last.id) : null }));
    return rows.map(toPaperRef);
  }

  /**
   * The papers that may be these cited works: the RPC find_papers (one scan on the server). A project migrated before
   * schema v16 has none: every paper is listed instead, as before it.
   */
  async findPapers(query: PaperQuery): Promise<PaperRef[]> {
    if (!(await this.meta())) return [];
    const r = (await this.client.rpc('find_papers', { ...query })) as Reply<Record<string, unknown>[]>;
    if (isMissingFunction(r)) return this.listPapers();
    return (unwrap(this.url, 'find_papers', r) ?? []).map(toPaperRef);
  }

  /** The venues: the RPC list_venues (every paper's venue from the paper list before schema v16), kept for a minute or until a write. */
  venues(): Promise<string[]> {
    return this.venueList.get();
  }

  private async readVenues(): Promise<string[]> {
    if (!(await this.meta())) return [];
    const r = (await this.client.rpc('list_venues', {})) as Reply<Array<{ venue: string }>>;
    if (isMissingFunction(r)) return [...new Set((await this.listPapers()).map((p) => p.venue?.trim()).filter((v): v is string => !!v))];
    return (unwrap(this.url, 'list_venues', r) ?? []).map((x) => String(x.venue));
  }

  /** The cited works of these papers (one read of the papers table); none from a project migrated before schema v14. */
  async citedWorks(paperIds: readonly string[]): Promise<Array<{ id: string; works: CitedWork[] }>> {
    if (!paperIds.length || !(await this.meta())) return [];
    const r = (await this.client
      .from('papers')
      .select('id,cited_works')
      .in('id', [...paperIds])
      .not('cited_works', 'is', null)) as unknown as Reply<Array<{ id: string; cited_works: unknown }>>;
    if (isMissingColumn(r)) return [];
    return (unwrap(this.url, 'reading cited works', r) ?? []).map((x) => ({ id: String(x.id), works: toCitedWorks(x.cited_works) }));
  }

  /** The source BibTeX entries of these papers (one read of the papers table; the ids are a few cited papers). */
  async paperBibtex(paperIds: readonly string[]): Promise<Array<{ id: string; bibtex: string }>> {
    if (!paperIds.length || !(await this.meta())) return [];
    const r = (await this.client
      .from('papers')
      .select('id,bibtex')
      .in('id', [...paperIds])
      .not('bibtex', 'is', null)) as unknown as Reply<Array<{ id: string; bibtex: string }>>;
    return (unwrap(this.url, 'reading BibTeX entries', r) ?? []).map((x) => ({ id: String(x.id), bibtex: String(x.bibtex) }));
  }

  /**
   * The PDF page and lines of these sentences: one read of the sentences table (the ids are an answer's evidence,
   * far under the row limit). A project migrated before schema v8 has pages but no lines: read without them.
   */
  async sentencePages(sentenceIds: readonly number[]): Promise<SentenceLocation[]> {
    if (!sentenceIds.length) return [];
    type Row = { id: number; page: number | null; line_start?: number | null; line_end?: number | null; page_end?: number | null };
    const read = (cols: string) =>
      this.client
        .from('sentences')
        .select(cols)
        .in('id', [...sentenceIds]) as unknown as Promise<Reply<Row[]>>;
    let r = await read('id,page,line_start,line_end,page_end');
    if (isMissingColumn(r)) r = await read('id,page');
    const int = (v: unknown) => (v == null ? null : Number(v));
    return (unwrap(this.url, 'reading sentence pages', r) ?? [])
      .filter((x) => x.page != null)
      .map((x) => ({
        id: Number(x.id),
        page: Number(x.page),
        lineStart: int(x.line_start),
        lineEnd: int(x.line_end),
        pageEnd: int(x.page_end),
      }));
  }

  async close(): Promise<void> {
    await closeSupabaseClient(this.client);
  }
}

/**
 * Ends a client. Corpus Lens opens no Realtime channel, and removeAllChannels() would still wait supabase-js's 10 s
 * disconnect timeout for a socket that never opened, on a timer that keeps the process alive: every CLI command on
 * Supabase ended 10 s after its work.
 */
export async function closeSupabaseClient(client: SupabaseClient): Promise<void> {
  if (client.getChannels().length > 0) await client.removeAllChannels().catch(() => undefined);
}

/** The Corpus Lens schema on Supabase at `url` with `key`. Reads the metadata once (one clear line on failure). */
export async function openSupabaseStore(url: string, key: string, options: { timeoutMs?: number } = {}): Promise<SupabaseCorpusStore> {
  const store = new SupabaseCorpusStore(await createSupabaseClient(url, key, options), url);
  await store.meta();
  return store;
}

/** A lookup given a venue or section filter that the project's functions do not take (migrated before schema v13). */
function missingFilters(fn: string, args: Record<string, unknown>, r: Reply<unknown>): void {
  if (r.error?.code === 'PGRST202' && ('venue_filter' in args || 'section_filter' in args)) {
    throw new StoreError(
      `this Supabase project's ${fn}() has no venue or section filter (a Corpus Lens schema before v13): run the output of \`corpus-lens schema --print\` as a migration`,
    );
  }
}
