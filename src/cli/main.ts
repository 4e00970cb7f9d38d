// The `corpus-lens` command line: a thin face over src/core. Each subcommand lives in its own module.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliError, type Command } from './command.js';
import { closest, commandList } from './options.js';
import { commandSpecs } from './spec.js';
import { errorText, redactSecrets } from '../core/redact.js';

/** Each command's module, loaded when it runs (its summary and options are in cli/spec.ts). */
const commands: Record<string, () => Promise<Command>> = {
  segment: async () => (await import('./commands/segment.js')).segmentCommand,
  schema: async () => (await import('./commands/schema.js')).schemaCommand,
  import: async () => (await import('./commands/import.js')).importCommand,
  query: async () => (await import('./commands/query.js')).queryCommand,
  ingest: async () => (await import('./commands/ingest.js')).ingestCommand,
  fetch: async () => (await import('./commands/fetch.js')).fetchCommand,
  review: async () => (await import('./commands/review.js')).reviewCommand,
  ask: async () => (await import('./commands/ask.js')).askCommand,
  elements: async () => (await import('./commands/elements.js')).elementsCommand,
  check: async () => (await import('./commands/check.js')).checkCommand,
  copy: async () => (await import('./commands/copy.js')).copyCommand,
  stats: async () => (await import('./commands/stats.js')).statsCommand,
};

function usage(): string {
  return [
    'Usage: corpus-lens <command> [options]',
    '       corpus-lens --version',
    '       corpus-lens <command> --help',
    '',
    'Commands:',
    commandList(commandSpecs),
  ].join('\n');
}

// A reader that stops early (`corpus-lens segment … | head`) closes the pipe: that ends the output, it is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

/** A file-system failure deep in a write (PostgreSQL's "could not extend file") gets the user's next step. */
function withFix(message: string): string {
  if (/no space left on device|ENOSPC|EDQUOT|quota exceeded/i.test(message) && !/free some space/.test(message)) {
    return `${message} — the disk is full: free some space and run again (what was written before stays; a rerun skips it)`;
  }
  if (/read-only file system|EROFS/i.test(message) && !/writable/.test(message)) {
    return `${message} — the corpus is on a read-only file system: copy it to a writable folder and use that`;
  }
  return message;
}

/** The installed version, from the package.json above this script (dist/cli.js, or src/cli/main.ts under tsx). */
function version(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'corpus-lens' && pkg.version) return pkg.version;
    } catch {
      /* no package.json here */
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`corpus-lens ${version()}\n`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load)
    throw new CliError(
      `unknown command '${name}'${closest(name, Object.keys(commands)) ? ` — did you mean ${closest(name, Object.keys(commands))}?` : ''} (try: ${Object.keys(commands).join(', ')})`,
      2,
    );
  return (await load()).run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // Every CLI error passes here: one line, credentials redacted, never "[object Object]".
    process.stderr.write(`corpus-lens: ${withFix(errorText(err).split('\n')[0])}\n`);
    if (process.env.CORPUS_LENS_DEBUG && err instanceof Error) process.stderr.write(`${redactSecrets(err.stack ?? '')}\n`);
    process.exitCode = err instanceof CliError ? err.exitCode : 1;
  },
);
