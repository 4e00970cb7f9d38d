import { parseCommand } from '../options.js';
import { copySpec } from '../spec.js';
import { redactUrl } from '../../core/redact.js';
import type { CopySummary } from '../../core/store/ops/copy.js';
import type { SqlCorpusStore } from '../../core/store/sql/store.js';
import { CliError, outputs, type Command, type StoreDeps } from '../command.js';
import { openDb } from '../corpus.js';

/** `corpus-lens copy --from DB --to DB`: move or mirror a corpus between backends. */
export function createCopyCommand(deps: StoreDeps = {}): Command {
  return {
    async run(args) {
      const env = deps.env ?? process.env;
      const { out, err } = outputs(deps);
      const parsed = parseCommand(copySpec, args);
      if ('help' in parsed) {
        out(parsed.help);
        return 0;
      }
      const { values, positionals } = parsed;
      if (positionals.length) throw new CliError(`copy takes no positional arguments (got '${positionals[0]}')`, 2);
      if (!values.from || !values.to) throw new CliError('copy needs --from DB and --to DB', 2);
      if (values.from === values.to) throw new CliError('--from and --to name the same corpus', 2);
      for (const db of [values.from, values.to]) {
        if (/^supabase:/i.test(db)) {
          throw new CliError(`copy works on corpora opened by SQL: for ${db} use the project's postgres:// connection string`, 2);
        }
      }
      const { copyCorpus } = await import('../../core/store/ops/copy.js');
      const from = (await openDb(values.from, undefined, env)) as SqlCorpusStore;
      let to: SqlCorpusStore | undefined;
      const warnings: string[] = [];
      try {
        to = (await openDb(values.to, undefined, env, undefined, {
          create: true,
          onNotice: (m) => {
            warnings.push(m);
            err(`corpus-lens: warning: ${m}\n`);
          },
        })) as SqlCorpusStore;
        const summary = await copyCorpus(from, to, {
          batchSentences: values.batch,
          onProgress: values.progress ? (done, total) => err(JSON.stringify({ papersDone: done, papersTotal: total }) + '\n') : undefined,
        });
        out(
          values.json
            ? JSON.stringify({ from: redactUrl(values.from), to: redactUrl(values.to), ...summary, warnings }) + '\n'
            : describe(summary),
        );
        if (!summary.checksum.match) {
          err('corpus-lens: the copy does not match its source (counts or checksum differ); run it again to repair\n');
          return 1;
        }
        return 0;
      } finally {
        await Promise.all([from.close(), to?.close()]);
      }
    },
  };
}

function describe(s: CopySummary): string {
  return (
    `copied ${s.papers.copied} papers (${s.papers.skipped} already there, ${s.papers.replaced} replaced), ` +
    `${s.sentences.copied} sentences in ${s.seconds.toFixed(1)} s (${s.method}); ` +
    `target holds ${s.papers.target} of ${s.papers.source} papers, ${s.sentences.target} of ${s.sentences.source} sentences; ` +
    `checksum ${s.checksum.match ? 'matches' : 'DIFFERS'}\n`
  );
}

export const copyCommand = createCopyCommand();
