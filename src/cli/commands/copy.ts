import { parseOptions } from '../options.js';
import { redactUrl } from '../../core/redact.js';
import type { CopySummary } from '../../core/store/copy.js';
import type { SqlCorpusStore } from '../../core/store/sql.js';
import { CliError, type Command } from '../command.js';
import { openDb, outputs, type StoreDeps } from './import.js';

const USAGE = `Usage: corpus-lens copy --from DB --to DB [--json] [--progress] [--batch SENTENCES]
  Copies a corpus (papers, sentences, vectors) from one corpus to another: e.g. an embedded corpus (a directory)
  to a lab's PostgreSQL (postgres://user@host/db; binary COPY). A paper already in the target with the same
  content hash is skipped, so an interrupted copy resumes where it stopped. Verified by counts and a checksum of
  the copied papers on both sides (exit 1 on a mismatch). --json prints the summary as JSON (with warnings: what the
  target did differently, e.g. index builds made serial by a small /dev/shm; also written to stderr); --progress
  writes {papersDone, papersTotal} JSON lines to stderr. Supabase: use the project's postgres:// connection string.`;

/** `corpus-lens copy --from DB --to DB`: move or mirror a corpus between backends. */
export function createCopyCommand(deps: StoreDeps = {}): Command {
  return {
    summary: 'copy a corpus to another (e.g. embedded → PostgreSQL), resumable, verified by counts and checksum',
    async run(args) {
      const env = deps.env ?? process.env;
      const { out, err } = outputs(deps);
      const { values, positionals } = parseOptions({
        args,
        allowPositionals: true,
        options: {
          from: { type: 'string' },
          to: { type: 'string' },
          json: { type: 'boolean' },
          progress: { type: 'boolean' },
          batch: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
      if (values.help) {
        out(USAGE + '\n');
        return 0;
      }
      if (positionals.length) throw new CliError(`copy takes no positional arguments (got '${positionals[0]}')`, 2);
      if (!values.from || !values.to) throw new CliError('copy needs --from DB and --to DB', 2);
      if (values.from === values.to) throw new CliError('--from and --to name the same corpus', 2);
      for (const db of [values.from, values.to]) {
        if (/^supabase:/i.test(db)) {
          throw new CliError(`copy works on corpora opened by SQL: for ${db} use the project's postgres:// connection string`, 2);
        }
      }
      const batch = values.batch === undefined ? undefined : Number(values.batch);
      if (batch !== undefined && (!Number.isInteger(batch) || batch < 1)) throw new CliError(`--batch must be a positive integer (got '${values.batch}')`, 2);
      const { copyCorpus } = await import('../../core/store/copy.js');
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
          batchSentences: batch,
          onProgress: values.progress ? (done, total) => err(JSON.stringify({ papersDone: done, papersTotal: total }) + '\n') : undefined,
        });
        out(values.json ? JSON.stringify({ from: redactUrl(values.from), to: redactUrl(values.to), ...summary, warnings }) + '\n' : describe(summary));
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
