import { parseCommand } from '../options.js';
import { schemaSpec } from '../spec.js';
import { rolesSql, supabasePoliciesSql } from '../../core/store/sql/roles.js';
import { DEFAULT_DIMENSIONS, schemaSql } from '../../core/store/sql/schema.js';
import { CliError, type Command } from '../command.js';

/** `corpus-lens schema --print [--dimensions D] [--precision P] [--roles] [--supabase]`: the one SQL source, for a migration. */
export const schemaCommand: Command = {
  async run(args) {
    const parsed = parseCommand(schemaSpec, args);
    if ('help' in parsed) {
      process.stdout.write(parsed.help);
      return 0;
    }
    const { values, positionals } = parsed;
    if (positionals.length) throw new CliError(`schema takes no positional arguments (got '${positionals[0]}')`, 2);
    if (!values.print) throw new CliError('schema: nothing to do (use --print)', 2);
    let schema: string;
    try {
      schema = schemaSql(values.dimensions ?? DEFAULT_DIMENSIONS, values.precision);
    } catch (err) {
      throw new CliError(err instanceof Error ? err.message : String(err));
    }
    // The schema first and unchanged, so existing migrations stay a prefix of the output.
    process.stdout.write(schema + (values.roles ? rolesSql() : '') + (values.supabase ? supabasePoliciesSql() : ''));
    return 0;
  },
};
