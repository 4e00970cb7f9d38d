// Opening a corpus from one string: a directory (embedded PGlite), a postgres:// URL, or supabase:<url>.
// Backends are imported lazily so that loading this module costs nothing (PGlite's WASM loads on first use).
import { StoreError, type CorpusStore, type SchemaFlavor } from './types.js';

export * from './types.js';

export interface OpenStoreOptions {
  /** `corpusLens` (default) or `corpusStudio`: an existing CorpusStudio database, read only. */
  schema?: SchemaFlavor;
  /** The Supabase key (service-role or anon) for `supabase:` targets; the CLI reads SUPABASE_KEY. */
  supabaseKey?: string;
  /** CorpusStudio only: the model its embeddings came from (it records none); checked against queries. */
  corpusModel?: string;
  /** Embedded corpus: create it when the folder is missing or empty (default true; readers pass false). */
  create?: boolean;
  /** Embedded corpus: how long to wait while another process has it open (default 0: fail at once, naming it). */
  lockWaitMs?: number;
  /** Embedded corpus: what this process is, for the message another opener sees. */
  owner?: string;
  /** Embedded corpus: this process closes the corpus when another opener asks (SIGUSR2; see ops/lock.ts). */
  handover?: boolean;
  /** Hears what the store did differently from what was asked (a serial index build; no native vector index). */
  onNotice?: (message: string) => void;
  /** Embedded corpus: keep an in-memory keyword index for hybrid lookups (a long-lived process; SqlStoreOptions). */
  keywordIndex?: boolean;
}

export type TargetKind = 'pglite' | 'postgres' | 'supabase';

/** What kind of corpus a --db string names. */
export function targetKind(target: string): TargetKind {
  if (/^postgres(ql)?:\/\//i.test(target)) return 'postgres';
  if (/^supabase:/i.test(target)) return 'supabase';
  return 'pglite';
}

/** Opens the corpus named by `target`; throws a one-line StoreError when it cannot be reached. */
export async function openStore(target: string, options: OpenStoreOptions = {}): Promise<CorpusStore> {
  if (!target) throw new StoreError('no corpus given (--db DIR | postgres://… | supabase:<url>)');
  const kind = targetKind(target);
  const schema = options.schema ?? 'corpusLens';
  if (kind === 'supabase') {
    const url = target.replace(/^supabase:/i, '');
    if (!/^https?:\/\//i.test(url)) throw new StoreError(`a Supabase target is supabase:https://<project>.supabase.co (got ${target})`);
    const key = options.supabaseKey ?? '';
    if (!key) throw new StoreError('no Supabase key: set SUPABASE_KEY');
    if (schema === 'corpusStudio') {
      const { openCorpusStudioSupabase } = await import('./backends/corpus-studio.js');
      return openCorpusStudioSupabase(url, key, { model: options.corpusModel });
    }
    const { openSupabaseStore } = await import('./backends/supabase.js');
    return openSupabaseStore(url, key);
  }
  if (kind === 'postgres') {
    const { openPostgresStore } = await import('./backends/postgres.js');
    const store = await openPostgresStore(target, {}, { onNotice: options.onNotice });
    if (schema === 'corpusStudio') {
      const { corpusStudioSql } = await import('./backends/corpus-studio.js');
      return corpusStudioSql(store.driver, { model: options.corpusModel });
    }
    return store;
  }
  const { openPGliteStore } = await import('./backends/pglite.js');
  const store = await openPGliteStore(target, {
    create: options.create,
    lockWaitMs: options.lockWaitMs,
    owner: options.owner,
    handover: options.handover,
    keywordIndex: options.keywordIndex,
    onNotice: options.onNotice,
  });
  if (schema === 'corpusStudio') {
    const { corpusStudioSql } = await import('./backends/corpus-studio.js');
    return corpusStudioSql(store.driver, { model: options.corpusModel });
  }
  return store;
}
