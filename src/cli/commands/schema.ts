import { parseOptions } from '../options.js';
import { DEFAULT_DIMENSIONS, INDEX_PRECISIONS, rolesSql, schemaSql, supabasePoliciesSql, type IndexPrecision } from '../../core/store/schema.js';
import { CliError, type Command } from '../command.js';

const USAGE = `Usage: corpus-lens schema --print [--dimensions D] [--precision float32|half] [--roles] [--supabase]
  Prints the Corpus Lens SQL (tables, indexes, match/keyword/hybrid functions) for embeddings of D dimensions
  (default ${DEFAULT_DIMENSIONS}); run it once as a Supabase/PostgreSQL migration.
  --precision how the HNSW indexes hold the vectors (the column stays float32): float32 (default up to 2,000
              dimensions) or half (a halfvec index: 1.75× smaller at the same recall at 1M sentences; up to 4,000
              dimensions, the default above 2,000). Fixed for the corpus once created.
  --roles     also the roles of a shared corpus: corpus_lens_reader (SELECT on the corpus tables, EXECUTE on the
              lookup functions, nothing else) and corpus_lens_writer (also ingest); needs CREATEROLE
  --supabase  also row-level security: the anon and authenticated keys may only read and call the lookups`;

/** `corpus-lens schema --print [--dimensions D] [--precision P] [--roles] [--supabase]`: the one SQL source, for a migration. */
export const schemaCommand: Command = {
  summary: 'print the corpus SQL schema and functions (for a Supabase/PostgreSQL migration)',
  async run(args) {
    const { values, positionals } = parseOptions({
      args,
      allowPositionals: true,
      options: {
        print: { type: 'boolean' },
        dimensions: { type: 'string' },
        precision: { type: 'string' },
        roles: { type: 'boolean' },
        supabase: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(USAGE + '\n');
      return 0;
    }
    if (positionals.length) throw new CliError(`schema takes no positional arguments (got '${positionals[0]}')`, 2);
    if (!values.print) throw new CliError('schema: nothing to do (use --print)', 2);
    const d = values.dimensions === undefined ? DEFAULT_DIMENSIONS : dimensionsFlag(values.dimensions);
    const precision = precisionFlag(values.precision);
    let schema: string;
    try {
      schema = schemaSql(d, precision);
    } catch (err) {
      throw new CliError(err instanceof Error ? err.message : String(err));
    }
    // The schema first and unchanged, so existing migrations stay a prefix of the output.
    process.stdout.write(schema + (values.roles ? rolesSql() : '') + (values.supabase ? supabasePoliciesSql() : ''));
    return 0;
  },
};

/** The --precision flag (schema, ingest): float32, half or absent. */
export function precisionFlag(value: string | undefined): IndexPrecision | undefined {
  if (value !== undefined && !INDEX_PRECISIONS.includes(value as IndexPrecision)) {
    throw new CliError(`--precision must be float32 or half (got '${value}')`, 2);
  }
  return value as IndexPrecision | undefined;
}

/** `--dimensions N` (schema, and the vector length to request from an embedding model): 1..16,000, pgvector's limit. */
export function dimensionsFlag(flag: string): number {
  const d = Number(flag);
  if (flag.trim() === '' || !Number.isInteger(d) || d < 1 || d > 16000) {
    throw new CliError(`--dimensions must be an integer in 1..16000 (got '${flag}')`, 2);
  }
  return d;
}
