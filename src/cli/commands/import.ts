import { readFile } from 'node:fs/promises';
import { parseOptions } from '../options.js';
import type { PrefixSetting } from '../../core/embed/prefix.js';
import type { Embedder } from '../../core/embed/types.js';
import type { CorpusMeta, CorpusStore, OpenStoreOptions } from '../../core/store/index.js';
import { CliError, type Command } from '../command.js';
import { dimensionsFlag } from './schema.js';

/** Embedder flags shared by `import` and `query`. */
export interface EmbedderFlags {
  embedder?: string;
  model?: string;
  /** --prefixes: `auto` (the model family's preset, the default), `none`, or `QUERY|DOCUMENT` (openai only). */
  prefixes?: string;
  /** --dimensions N: the vector length to request (openai only; models that take OpenAI's `dimensions`). */
  dimensions?: string;
  /**
   * The corpus's recorded model, used to pick the embedder when no --embedder is given (query). Its size is checked
   * where the embedder meets the corpus: before a write (core/ingest/corpus-embedder.ts), and on every query vector.
   */
  corpus?: CorpusMeta | null;
}

export interface StoreDeps {
  /** Builds the embedder (tests inject a deterministic one). */
  makeEmbedder?: (flags: EmbedderFlags) => Promise<Embedder>;
  env?: NodeJS.ProcessEnv;
  /** Where output goes (default process.stdout / process.stderr); tests capture it. */
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

export function outputs(deps: StoreDeps) {
  return {
    out: deps.stdout ?? ((t: string) => void process.stdout.write(t)),
    err: deps.stderr ?? ((t: string) => void process.stderr.write(t)),
  };
}

/**
 * The embedder for the flags: `--embedder offline|neural|openai`, `--model`, OPENAI_BASE_URL, OPENAI_API_KEY. Without
 * --embedder, a corpus built with `openai:<model>[@dims]` is queried with that model, one built with `neural:…`
 * with the neural embedder, anything else offline.
 */
export async function embedderFromFlags(flags: EmbedderFlags, env: NodeJS.ProcessEnv = process.env): Promise<Embedder> {
  const { createEmbedder } = await import('../../core/embed/index.js');
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
    if (provider !== 'openai') throw new CliError('--dimensions applies to --embedder openai (models that take the dimensions parameter)', 2);
    dimensions = dimensionsFlag(flags.dimensions);
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
    });
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message.split('\n')[0] : String(err));
  }
}

/** `--prefixes auto|none|QUERY|DOCUMENT` as the embedder's setting. */
function prefixSetting(flag: string | undefined): PrefixSetting | undefined {
  if (flag === undefined || flag === 'auto' || flag === 'none') return flag;
  const bar = flag.indexOf('|');
  if (bar < 0) throw new CliError(`--prefixes must be auto, none or QUERY|DOCUMENT, e.g. 'query: |passage: ' (got '${flag}')`, 2);
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
  const { openStore } = await import('../../core/store/index.js');
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

const USAGE = `Usage: corpus-lens import --db DB --documents Document.jsonl --sources Source.jsonl [--embedder offline|neural|openai] [--model M]
                          [--dimensions N] [--prefixes P] [--context section|none]
  DB: a directory (embedded), a postgres:// URL, or supabase:<url> (key in SUPABASE_KEY)
  --context none (default): plain sentence vectors (a sentence finds its own wording at similarity ≈ 1);
  section: each vector is blended with the rest of its paper section (better paper-level recall for citation
  retrieval). Recorded in the corpus; later imports must use the same.
  Rows without an embedding are embedded; rows already in the corpus are skipped. Prints a JSON summary.
  Bad lines are reported with their line numbers (the good ones are imported; exit code 1).`;

export function createImportCommand(deps: StoreDeps = {}): Command {
  return {
    summary: 'import CorpusStudio-style Document/Source JSONL rows into a corpus (embeds rows without embeddings)',
    async run(args) {
      const env = deps.env ?? process.env;
      const { out, err } = outputs(deps);
      const { values, positionals } = parseOptions({
        args,
        allowPositionals: true,
        options: {
          db: { type: 'string' },
          documents: { type: 'string' },
          sources: { type: 'string' },
          embedder: { type: 'string' },
          prefixes: { type: 'string' },
          model: { type: 'string' },
          dimensions: { type: 'string' },
          context: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
      if (values.help) {
        out(USAGE + '\n');
        return 0;
      }
      if (positionals.length) throw new CliError(`import takes no positional arguments (got '${positionals[0]}')`, 2);
      if (!values.documents) throw new CliError('--documents Document.jsonl is required', 2);
      const contextFlag = values.context ?? 'none';
      if (contextFlag !== 'section' && contextFlag !== 'none') {
        throw new CliError(`--context must be section or none (got '${contextFlag}')`, 2);
      }
      const { parseJsonl, documentRow, sourceRow, papersFromRows, importPapers, DEFAULT_IMPORT_CONTEXT } = await import(
        '../../core/ingest/seed-rows.js'
      );
      const read = async (file: string) => {
        try {
          return await readFile(file, 'utf8');
        } catch (err) {
          throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        }
      };
      const docs = parseJsonl(await read(values.documents), values.documents, documentRow);
      const srcs = values.sources ? parseJsonl(await read(values.sources), values.sources, sourceRow) : { rows: [], errors: [] };
      const errors = [...srcs.errors, ...docs.errors];
      const flags = { embedder: values.embedder, model: values.model, dimensions: values.dimensions, prefixes: values.prefixes };
      const embedder = await (deps.makeEmbedder ?? ((f) => embedderFromFlags(f, env)))(flags);
      const store = await openDb(values.db, undefined, env, undefined, { create: true });
      try {
        const result = await importPapers(store, embedder, papersFromRows(docs.rows, srcs.rows), {
          documentsFile: values.documents,
          context: contextFlag === 'none' ? 'none' : DEFAULT_IMPORT_CONTEXT,
        });
        errors.push(...result.errors);
        for (const e of errors) err(`corpus-lens: ${e.file}:${e.line}: ${e.message}\n`);
        writeJson(out, {
          papers: result.papers,
          sentences: result.sentences,
          skipped: result.skipped,
          embedded: result.embedded,
          badLines: errors.length,
          model: embedder.model,
        });
      } finally {
        await store.close();
      }
      if (errors.length) {
        const first = errors[0];
        throw new CliError(
          `${errors.length} bad line${errors.length > 1 ? 's' : ''} not imported (first: ${first.file}:${first.line}: ${first.message})`,
        );
      }
      return 0;
    },
  };
}

export const importCommand = createImportCommand();

export function writeJson(out: (text: string) => void, value: unknown): void {
  out(JSON.stringify(value) + '\n');
}
