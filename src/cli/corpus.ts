// What the shared flags name, opened: the corpus (--db, --schema) and the embedder (--embedder, --model,
// --prefixes, --dimensions), for every command that reads or writes a corpus.
import { join } from 'node:path';
import type { PrefixSetting } from '../core/embed/prefix.js';
import type { Embedder } from '../core/embed/types.js';
import type { ChatModel } from '../core/llm/chat.js';
import type { CorpusMeta, CorpusStore, OpenStoreOptions } from '../core/store/index.js';
import { CliError, type EmbedderFlags, type StoreDeps } from './command.js';
import { prefixesValue } from './options.js';

/**
 * The embedder for the flags: `--embedder offline|neural|openai`, `--model`, OPENAI_BASE_URL, OPENAI_API_KEY. Without
 * --embedder, a corpus built with `openai:<model>[@dims]` is queried with that model, one built with `neural:…`
 * with the neural embedder, anything else offline.
 */
export async function embedderFromFlags(flags: EmbedderFlags, env: NodeJS.ProcessEnv = process.env): Promise<Embedder> {
  const { createEmbedder } = await import('../core/embed/index.js');
  let provider = flags.embedder;
  let model = flags.model;
  let dimensions: number | undefined;
  const recorded = flags.corpus?.model;
  if (!provider && recorded?.startsWith('neural:')) provider = 'neural';
  if (!provider && recorded?.startsWith('openai:')) {
    provider = 'openai';
    const m = /^openai:(.*?)(?:@(\d+))?$/.exec(recorded)!;
    model ??= m[1];
    if (m[2]) dimensions = Number(m[2]);
  }
  provider ??= 'offline';
  if (provider !== 'offline' && provider !== 'openai' && provider !== 'neural') {
    throw new CliError(`--embedder must be offline, neural or openai (got '${provider}')`, 2);
  }
  if (flags.dimensions !== undefined) {
    if (provider !== 'openai')
      throw new CliError('--dimensions applies to --embedder openai (models that take the dimensions parameter)', 2);
    dimensions = flags.dimensions;
  }
  if (provider === 'offline' && !model && flags.corpus?.dimensions) dimensions = flags.corpus.dimensions;
  try {
    return createEmbedder({
      provider,
      model,
      dimensions,
      prefixes: prefixSetting(flags.prefixes),
      baseURL: provider === 'openai' ? env.OPENAI_BASE_URL || undefined : undefined,
      apiKey: provider === 'openai' ? env.OPENAI_API_KEY || undefined : undefined,
      cache: { disk: embeddingCacheDir(env) },
    });
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message.split('\n')[0] : String(err));
  }
}

/**
 * Where the CLI keeps embedding vectors between runs: CORPUS_LENS_CACHE_DIR (`off`: nowhere), else
 * $XDG_CACHE_HOME/corpus-lens/embeddings, else ~/.cache/corpus-lens/embeddings (LOCALAPPDATA on Windows).
 */
function embeddingCacheDir(env: NodeJS.ProcessEnv): { dir: string } | undefined {
  const set = env.CORPUS_LENS_CACHE_DIR;
  if (set === 'off') return undefined;
  if (set) return { dir: set };
  const base = cacheBase(env);
  return base ? { dir: join(base, 'embeddings') } : undefined;
}

/** LLM answers between runs: CORPUS_LENS_CACHE_DIR/llm (`off`: nowhere), else …/corpus-lens/llm beside the embeddings. */
function llmCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const set = env.CORPUS_LENS_CACHE_DIR;
  if (set === 'off') return undefined;
  const base = set || cacheBase(env);
  return base ? join(base, 'llm') : undefined;
}

function cacheBase(env: NodeJS.ProcessEnv): string | undefined {
  const base = env.XDG_CACHE_HOME || env.LOCALAPPDATA || (env.HOME ? join(env.HOME, '.cache') : '');
  return base ? join(base, 'corpus-lens') : undefined;
}

/** `--prefixes auto|none|QUERY|DOCUMENT` as the embedder's setting. */
function prefixSetting(flag: string | undefined): PrefixSetting | undefined {
  if (flag === undefined) return undefined;
  const setting = prefixesValue(flag);
  if (setting === 'auto' || setting === 'none') return setting;
  const bar = flag.indexOf('|');
  return { query: flag.slice(0, bar), document: flag.slice(bar + 1) };
}

/**
 * Opens --db (directory, postgres:// URL or supabase:<url> with SUPABASE_KEY) with --schema. Only commands that write
 * (ingest, import) pass `create`: a reader given a mistyped folder fails instead of leaving a new corpus there.
 */
export async function openDb(
  db: string | undefined,
  schema: string | undefined,
  env: NodeJS.ProcessEnv,
  model?: string,
  { create = false, onNotice = warnOnStderr }: { create?: boolean; onNotice?: (message: string) => void } = {},
): Promise<CorpusStore> {
  if (!db) throw new CliError('--db is required (a directory, a postgres:// URL, or supabase:<url>)', 2);
  if (schema !== undefined && schema !== 'corpusLens' && schema !== 'corpusStudio') {
    throw new CliError(`--schema must be corpusLens or corpusStudio (got '${schema}')`, 2);
  }
  const { openStore } = await import('../core/store/index.js');
  const options: OpenStoreOptions = {
    schema: schema as OpenStoreOptions['schema'],
    supabaseKey: env.SUPABASE_KEY,
    corpusModel: model,
    create,
    onNotice,
  };
  return openStore(db, options);
}

/** What the store did differently from what was asked (a serial index build): a warning line on stderr. */
function warnOnStderr(message: string): void {
  process.stderr.write(`corpus-lens: warning: ${message}\n`);
}

/**
 * The embedder to query or enrich a corpus with: the --embedder, --model and --prefixes flags, else the corpus's own
 * model (`corpus`); tests inject theirs through `deps.makeEmbedder`.
 */
export function queryEmbedder(
  deps: StoreDeps,
  env: NodeJS.ProcessEnv,
  flags: Pick<EmbedderFlags, 'embedder' | 'model' | 'prefixes'>,
  corpus: CorpusMeta,
): Promise<Embedder> {
  const make = deps.makeEmbedder ?? ((f: EmbedderFlags) => embedderFromFlags(f, env));
  return make({ embedder: flags.embedder, model: flags.model, prefixes: flags.prefixes, corpus });
}

/**
 * The chat model the LLM flags name: --llm-base-url (else OPENAI_BASE_URL), --llm-model (default gpt-4o-mini),
 * --llm-fallback-model, OPENAI_API_KEY; answers cached on disk unless --no-llm-cache or CORPUS_LENS_CACHE_DIR=off;
 * null without an endpoint (the commands then run offline).
 */
export async function chatFromFlags(
  flags: { 'llm-base-url'?: string; 'llm-model'?: string; 'llm-fallback-model'?: string; 'no-llm-cache'?: boolean },
  env: NodeJS.ProcessEnv,
  timeoutMs?: number,
): Promise<ChatModel | null> {
  const baseURL = flags['llm-base-url'] || env.OPENAI_BASE_URL || '';
  if (!baseURL) return null;
  const { openChat } = await import('../core/llm/index.js');
  return openChat({
    baseURL,
    model: flags['llm-model'] || 'gpt-4o-mini',
    fallbackModel: flags['llm-fallback-model'],
    apiKey: env.OPENAI_API_KEY || undefined,
    timeoutMs,
    cacheDir: flags['no-llm-cache'] ? undefined : llmCacheDir(env),
  });
}
