import { parseArgs } from 'node:util';
import { DEFAULT_DIMENSIONS, schemaSql } from '../../core/store/schema.js';
import { CliError, type Command } from '../command.js';

const USAGE = `Usage: corpus-lens schema --print [--dimensions D]
  Prints the Corpus Lens SQL (tables, indexes, match/keyword/hybrid functions) for embeddings of D dimensions
  (default ${DEFAULT_DIMENSIONS}); run it once as a Supabase/PostgreSQL migration.`;

/** `corpus-lens schema --print [--dimensions D]`: the one SQL source, for a migration. */
export const schemaCommand: Command = {
  summary: 'print the corpus SQL schema and functions (for a Supabase/PostgreSQL migration)',
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { print: { type: 'boolean' }, dimensions: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
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
    process.stdout.write(schemaSql(d));
    return 0;
  },
};
