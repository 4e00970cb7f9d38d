import { parseArgs } from 'node:util';
import { DEFAULT_DIMENSIONS, rolesSql, schemaSql, supabasePoliciesSql } from '../../core/store/schema.js';
import { CliError, type Command } from '../command.js';

const USAGE = `Usage: corpus-lens schema --print [--dimensions D] [--roles] [--supabase]
  Prints the Corpus Lens SQL (tables, indexes, match/keyword/hybrid functions) for embeddings of D dimensions
  (default ${DEFAULT_DIMENSIONS}); run it once as a Supabase/PostgreSQL migration.
  --roles     also the roles of a shared corpus: corpus_lens_reader (SELECT on the corpus tables, EXECUTE on the
              lookup functions, nothing else) and corpus_lens_writer (also ingest); needs CREATEROLE
  --supabase  also row-level security: the anon and authenticated keys may only read and call the lookups`;

/** `corpus-lens schema --print [--dimensions D] [--roles] [--supabase]`: the one SQL source, for a migration. */
export const schemaCommand: Command = {
  summary: 'print the corpus SQL schema and functions (for a Supabase/PostgreSQL migration)',
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        print: { type: 'boolean' },
        dimensions: { type: 'string' },
        roles: { type: 'boolean' },
        supabase: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(USAGE + '\n');
      return 0;
    }
    if (positionals.length) throw new CliError(`schema takes no positional arguments (got '${positionals[0]}')`);
    if (!values.print) throw new CliError('schema: nothing to do (use --print)');
    let d = DEFAULT_DIMENSIONS;
    if (values.dimensions !== undefined) {
      d = Number(values.dimensions);
      if (!Number.isInteger(d) || d < 1 || d > 16000) {
        throw new CliError(`--dimensions must be an integer in 1..16000 (got '${values.dimensions}')`);
      }
    }
    // The schema first and unchanged, so existing migrations stay a prefix of the output.
    process.stdout.write(schemaSql(d) + (values.roles ? rolesSql() : '') + (values.supabase ? supabasePoliciesSql() : ''));
    return 0;
  },
};
