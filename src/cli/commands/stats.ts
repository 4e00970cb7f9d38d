import { parseCommand } from '../options.js';
import { statsSpec } from '../spec.js';
import { CliError, outputs, writeJson, type Command, type StoreDeps } from '../command.js';
import { openDb } from '../corpus.js';
import { redactSecrets } from '../../core/redact.js';

export function createStatsCommand(deps: StoreDeps = {}): Command {
  return {
    async run(args) {
      const env = deps.env ?? process.env;
      const { out } = outputs(deps);
      const parsed = parseCommand(statsSpec, args);
      if ('help' in parsed) {
        out(parsed.help);
        return 0;
      }
      const { values, positionals } = parsed;
      if (positionals.length) throw new CliError(`stats takes no arguments (got '${positionals[0]}')`, 2);
      const store = await openDb(values.db, undefined, env);
      try {
        if (!(await store.meta()))
          throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens ingest first)`);
        const { healthReport } = await import('../../core/health/report.js');
        // Fix command lines name the corpus as the user did, without a password in a postgres:// URL.
        const report = await healthReport(store, { db: redactSecrets(values.db!) });
        if (values.json) writeJson(out, report);
        else out((await import('../../core/health/markdown.js')).healthMarkdown(report) + '\n');
        return 0;
      } finally {
        await store.close();
      }
    },
  };
}

export const statsCommand = createStatsCommand();
