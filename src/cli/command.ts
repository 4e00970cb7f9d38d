/** A subcommand of `corpus-lens`: parses its own arguments, writes to stdout, returns an exit code. */
export interface Command {
  summary: string;
  run(args: string[]): Promise<number>;
}

/** An error meant for the user: printed as one line on stderr, exit code non-zero. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * `--k -1` as `--k=-1`: node's parseArgs reads a value that starts with '-' as another option ("argument is
 * ambiguous"); a negative number after a flag that takes a value is that flag's value, checked by the command.
 */
export function negativeValues(args: readonly string[], booleanFlags: readonly string[] = ['help']): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const name = a.startsWith('--') ? a.slice(2) : null;
    const next = args[i + 1];
    if (name && !name.includes('=') && !booleanFlags.includes(name) && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** Prints a value as JSON on stdout, the CLI's output format for scripts. */
export function printJson(value: unknown, pretty = false): void {
  process.stdout.write(JSON.stringify(value, null, pretty ? 2 : undefined) + '\n');
}
