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

/** Prints a value as JSON on stdout, the CLI's output format for scripts. */
export function printJson(value: unknown, pretty = false): void {
  process.stdout.write(JSON.stringify(value, null, pretty ? 2 : undefined) + '\n');
}
