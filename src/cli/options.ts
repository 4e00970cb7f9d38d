// The CLI's option parsing: node's parseArgs, with its errors turned into usage errors a person can act on
// (exit 2, "did you mean --mode?") instead of its raw parser message.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './command.js';

/** parseArgs, whose errors are usage errors (exit 2) naming the nearest known option. */
export function parseOptions<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw usageError(err, Object.keys(config.options ?? {}));
  }
}

function usageError(err: unknown, known: readonly string[]): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  const message = (err as Error).message;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = /Unknown option '([^']+)'/.exec(message)?.[1] ?? '';
    const name = given.replace(/^-+/, '');
    const near = closest(name, known);
    return new CliError(`unknown option '${given}'${near ? ` — did you mean --${near}?` : ''} (see --help)`, 2);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    // "Option '--db <value>' argument missing" / "Option '--json' does not take an argument"
    return new CliError(`${message.replace(/^Option '(-[^ ']+)(?: <value>)?'/, '$1').replace(/\.$/, '')} (see --help)`, 2);
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new CliError(`${message.replace(/\.$/, '')} (see --help)`, 2);
  }
  return err;
}

/** The known option nearest to `name` by edit distance, if near enough to be a typo (at most 2 edits, or a prefix). */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = k.startsWith(name) && name.length >= 2 ? 0.5 : editDistance(name.toLowerCase(), k);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return bestDistance <= Math.min(2, Math.max(1, Math.floor(name.length / 3))) ? best : undefined;
}

/** Optimal string alignment distance: Levenshtein plus a swap of two neighbours (--mdoe → --mode is one edit). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
