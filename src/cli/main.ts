// The `corpus-lens` command line: a thin face over src/core. Each subcommand lives in its own module.
import { CliError, type Command } from './command.js';
import { segmentCommand } from './commands/segment.js';
import { schemaCommand } from './commands/schema.js';
import { importCommand } from './commands/import.js';
import { queryCommand } from './commands/query.js';
import { ingestCommand } from './commands/ingest.js';

const commands: Record<string, Command> = {
  segment: segmentCommand,
  schema: schemaCommand,
  import: importCommand,
  query: queryCommand,
  ingest: ingestCommand,
  review: { summary: 'generate a cited related-work section (without an LLM: an evidence outline)', run: async (a) => (await import('./commands/review.js')).reviewCommand.run(a) },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return ['Usage: corpus-lens <command> [options]', '', 'Commands:', ...lines].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) throw new CliError(`unknown command '${name}' (try: ${Object.keys(commands).join(', ')})`);
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`corpus-lens: ${message.split('\n')[0]}\n`);
    if (process.env.CORPUS_LENS_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.exitCode = err instanceof CliError ? err.exitCode : 1;
  },
);
