import type { Embedder } from '../core/embed/types.js';
import type { CorpusMeta } from '../core/store/index.js';

/** A subcommand of `corpus-lens`: parses its arguments by its spec (cli/spec.ts), writes to stdout, returns an exit code. */
export interface Command {
  run(args: string[]): Promise<number>;
}

/** The embedder flags, parsed (the options of `embedderOptions` and `dimensionsOptions`). */
export interface EmbedderFlags {
  embedder?: string;
  model?: string;
  /** --prefixes: `auto` (the model family's preset, the default), `none`, or `QUERY|DOCUMENT` (openai only). */
  prefixes?: string;
  /** --dimensions N: the vector length to request (openai only; models that take OpenAI's `dimensions`). */
  dimensions?: number;
  /**
   * The corpus's recorded model, used to pick the embedder when no --embedder is given (query). Its size is checked
   * where the embedder meets the corpus: before a write (core/ingest/corpus-embedder.ts), and on every query vector.
   */
  corpus?: CorpusMeta | null;
}

/** What a command reads and writes besides its arguments; tests inject them. */
export interface StoreDeps {
  /** Builds the embedder (tests inject a deterministic one). */
  makeEmbedder?: (flags: EmbedderFlags) => Promise<Embedder>;
  env?: NodeJS.ProcessEnv;
  /** Where output goes (default process.stdout / process.stderr); tests capture it. */
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

export function outputs(deps: StoreDeps) {
  return {
    out: deps.stdout ?? ((t: string) => void process.stdout.write(t)),
    err: deps.stderr ?? ((t: string) => void process.stderr.write(t)),
  };
}

/** Marks a CliError, whichever copy of this module made it (see `CliError[Symbol.hasInstance]`). */
const cliErrorBrand = Symbol.for('corpus-lens.CliError');

/** An error meant for the user: printed as one line on stderr, exit code non-zero. */
export class CliError extends Error {
  readonly [cliErrorBrand] = true;

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }

  /**
   * Each command is bundled on its own (dist/cli-NAME.js, see esbuild.mjs) with its own copy of this class, and
   * dist/cli.js catches what a command throws: `instanceof` checks the brand so that a usage error keeps its exit code.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [cliErrorBrand]?: unknown })[cliErrorBrand] === true;
  }
}

/** Prints a value as JSON on stdout, the CLI's output format for scripts. */
export function printJson(value: unknown, pretty = false): void {
  writeJson((t) => void process.stdout.write(t), value, pretty);
}

/** Writes a value as one JSON line (or indented) to `out`. */
export function writeJson(out: (text: string) => void, value: unknown, pretty = false): void {
  out(JSON.stringify(value, null, pretty ? 2 : undefined) + '\n');
}
