// The CLI's one option schema. A command is declared once (cli/spec.ts): its summary, synopsis, prose and its
// options, each option with its type, range or choices, default and help text. From that declaration come the
// parsing (node's parseArgs, its errors turned into usage errors a person can act on: exit 2, "did you mean
// --mode?"), the checking and converting of values, `--help`, the command list of `corpus-lens --help` and the
// README's CLI table (scripts/cli-table.ts).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './command.js';

/** One option: how it is parsed, checked and documented. `T` is its value's type, `D` whether it always has one. */
export interface Option<T = unknown, D extends boolean = boolean> {
  /** A flag (`--json`) takes no value; every other option takes one string, checked and converted by `parse`. */
  kind: 'boolean' | 'string';
  /** The value's placeholder in help: DB, N, vector|keyword|hybrid. */
  value?: string;
  help: string;
  short?: string;
  /** May be given more than once (`--paper ID --paper ID`); the value is then an array. */
  multiple?: boolean;
  /** Checks and converts the text given (a usage error, exit 2, when it does not fit). */
  parse?: (raw: string, flag: string) => unknown;
  /** The value when the option is absent. */
  default?: T;
  /** The default as help shows it, when it is chosen at run time (by the corpus, the backend, another flag). */
  defaultText?: string;
  /** Range or choices as help shows them. */
  accepts?: string;
  /** Type carriers only (never set). */
  readonly _type?: T;
  readonly _defaulted?: D;
}

export type Options = Record<string, Option>;

/** The parsed values of a command's options: absent ones are undefined unless they have a default. */
export type Values<S extends Options> = {
  -readonly [K in keyof S]: S[K] extends Option<infer T, infer D> ? (D extends true ? T : T | undefined) : never;
};

/** A command as the user meets it: declared once, in cli/spec.ts. */
export interface CommandSpec<S extends Options = Options> {
  name: string;
  /** One line, in `corpus-lens --help` and the README table. */
  summary: string;
  /** The forms of the command line after `corpus-lens NAME`: '--db DB [options] PATH…'. */
  synopsis: readonly string[];
  /** What help says beyond the options: outputs, exit codes, how the parts work together. */
  about?: string;
  options: S;
}

export function defineCommand<S extends Options>(spec: CommandSpec<S>): CommandSpec<S> {
  return spec;
}

// --- option builders ------------------------------------------------------------------------------------------

interface Doc {
  defaultText?: string;
  short?: string;
}

/** A flag: present or not. */
export function flag(help: string, doc: Doc = {}): Option<boolean, false> {
  return { kind: 'boolean', help, ...doc };
}

/** A free string (a path, a URL, a name). */
export function text(value: string, help: string, doc: Doc = {}): Option<string, false> {
  return { kind: 'string', value, help, ...doc };
}

/** A string that may be given more than once. */
export function texts(value: string, help: string, doc: Doc = {}): Option<string[], false> {
  return { kind: 'string', value, help, multiple: true, ...doc };
}

interface Range {
  min: number;
  /** Without max: any value from min up. */
  max?: number;
}

export function integer(value: string, help: string, range: Range & { default: number }): Option<number, true>;
export function integer(value: string, help: string, range: Range & Doc): Option<number, false>;
export function integer(value: string, help: string, range: Range & Doc & { default?: number }): Option<number> {
  return { kind: 'string', value, help, parse: (raw, f) => numberValue(f, raw, range, true), accepts: rangeText(range, true), ...range };
}

export function number(value: string, help: string, range: Range & { default: number }): Option<number, true>;
export function number(value: string, help: string, range: Range & Doc): Option<number, false>;
export function number(value: string, help: string, range: Range & Doc & { default?: number }): Option<number> {
  return { kind: 'string', value, help, parse: (raw, f) => numberValue(f, raw, range, false), accepts: rangeText(range, false), ...range };
}

/** One of a fixed set of words; the placeholder is the set itself (vector|keyword|hybrid). */
export function choice<C extends string>(choices: readonly C[], help: string, doc: Doc & { default: NoInfer<C> }): Option<C, true>;
export function choice<C extends string>(choices: readonly C[], help: string, doc?: Doc): Option<C, false>;
export function choice<C extends string>(choices: readonly C[], help: string, doc: Doc & { default?: NoInfer<C> } = {}): Option<C> {
  return { kind: 'string', value: choices.join('|'), help, parse: (raw, f) => choiceValue(f, raw, choices), ...doc };
}

/** A value with its own check (a year, megabytes, the prefix pair). */
export function custom<T>(
  value: string,
  help: string,
  parse: (raw: string, flag: string) => T,
  doc: Doc & { accepts?: string } = {},
): Option<T, false> {
  return { kind: 'string', value, help, parse, ...doc };
}

// --- value checks (each a usage error, exit 2) -----------------------------------------------------------------

/** An integer or number within [min, max] (max open when absent). */
function numberValue(flag: string, raw: string, { min, max }: Range, integerOnly: boolean): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || (max !== undefined && n > max) || (integerOnly && !Number.isInteger(n))) {
    throw new CliError(`${flag} must be ${rangeText({ min, max }, integerOnly)} (got '${raw}')`, 2);
  }
  return n;
}

function rangeText({ min, max }: Range, integerOnly: boolean): string {
  return `${integerOnly ? 'an integer' : 'a number'} ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}`;
}

export function choiceValue<C extends string>(flag: string, raw: string, choices: readonly C[]): C {
  if (!choices.includes(raw as C)) {
    const list = choices.length > 3 ? `one of ${choices.join(', ')}` : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
    throw new CliError(`${flag} must be ${list} (got '${raw}')`, 2);
  }
  return raw as C;
}

/** `--dimensions N`: a vector length, 1..16,000 (pgvector's limit). */
export function dimensionsValue(raw: string, flag = '--dimensions'): number {
  const d = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(d) || d < 1 || d > 16000) {
    throw new CliError(`${flag} must be an integer in 1..16000 (got '${raw}')`, 2);
  }
  return d;
}

/** `--prefixes auto|none|QUERY|DOCUMENT`: QUERY|DOCUMENT needs its bar. */
export function prefixesValue(raw: string, flag = '--prefixes'): string {
  if (raw !== 'auto' && raw !== 'none' && !raw.includes('|')) {
    throw new CliError(`${flag} must be auto, none or QUERY|DOCUMENT, e.g. 'query: |passage: ' (got '${raw}')`, 2);
  }
  return raw;
}

// --- shared option groups ---------------------------------------------------------------------------------------

const DB_HELP = 'the corpus: a directory (embedded), a postgres:// URL, or supabase:<url> (key in SUPABASE_KEY)';

/** --db: the corpus a command reads or writes. */
export const corpusOptions = {
  db: text('DB', DB_HELP),
};

/** --schema: which tables a reader reads. */
export const readSchemaOptions = {
  schema: choice(['corpusLens', 'corpusStudio'] as const, 'the tables to read: corpusStudio reads a CorpusStudio database', {
    defaultText: 'corpusLens',
  }),
};

/** The embedder of queries and of new text. */
export const embedderOptions = {
  embedder: choice(
    ['offline', 'neural', 'openai'] as const,
    'the embedding model: offline (hashed, no network), neural (local) or openai (any OpenAI-compatible endpoint: OPENAI_BASE_URL, OPENAI_API_KEY)',
    {
      defaultText: "the corpus's recorded model, else offline",
    },
  ),
  model: text('M', 'the embedding model name (neural, openai)'),
  prefixes: custom(
    'P',
    "the model's query/document prefixes: auto (the model family's preset), none, or QUERY|DOCUMENT, e.g. 'query: |passage: '",
    prefixesValue,
    {
      defaultText: 'auto',
    },
  ),
};

/** --dimensions for the commands that embed new text. */
export const dimensionsOptions = {
  dimensions: custom(
    'N',
    "the vector length to ask the model for (--embedder openai; models that take OpenAI's dimensions parameter)",
    dimensionsValue,
    {
      accepts: '1..16000',
    },
  ),
};

/** The chat model of ask, review and elements --enrich. */
export const llmOptions = {
  'llm-base-url': text('URL', 'an OpenAI-compatible chat endpoint (key in OPENAI_API_KEY)', { defaultText: 'OPENAI_BASE_URL' }),
  'llm-model': text('M', 'the chat model', { defaultText: 'gpt-4o-mini' }),
  'llm-fallback-model': text('M', 'a chat model at the same endpoint tried when the first times out, fails (5xx) or is unknown'),
  'no-llm-cache': flag('ask the model again even for a request answered before (the answers cache is in CORPUS_LENS_CACHE_DIR)'),
};

// --- parsing ----------------------------------------------------------------------------------------------------

type Parsed<S extends Options> = { help: string } | { values: Values<S>; positionals: string[] };

/**
 * Parses a command's arguments by its spec: unknown options get "did you mean", values are checked and converted,
 * absent ones take their default. `--help` (-h) returns the help text instead, whatever else was given.
 */
export function parseCommand<S extends Options>(spec: CommandSpec<S>, args: readonly string[]): Parsed<S> {
  const config: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, o] of Object.entries(spec.options)) {
    config[name] = { type: o.kind, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) };
  }
  const flags = Object.keys(config).filter((n) => config[n].type === 'boolean');
  const { values: raw, positionals } = parseOptions({ args: negativeValues(args, flags), allowPositionals: true, options: config });
  if (raw.help) return { help: helpText(spec) };
  const values: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(spec.options)) {
    const given = raw[name] as string | string[] | boolean | undefined;
    if (given === undefined) values[name] = o.default;
    else if (!o.parse || typeof given === 'boolean') values[name] = given;
    else values[name] = Array.isArray(given) ? given.map((g) => o.parse!(g, `--${name}`)) : o.parse(given, `--${name}`);
  }
  return { values: values as Values<S>, positionals };
}

/**
 * `--k -1` as `--k=-1`: node's parseArgs reads a value that starts with '-' as another option ("argument is
 * ambiguous"); a negative number after a flag that takes a value is that flag's value, checked by the command.
 */
function negativeValues(args: readonly string[], booleanFlags: readonly string[]): string[] {
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

/** parseArgs, whose errors are usage errors (exit 2) naming the nearest known option. */
function parseOptions<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
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

// --- help and the README table ----------------------------------------------------------------------------------

const WIDTH = 110;

/** `--k N`, `-y, --yes`, `--paper ID…`: an option as the user types it. */
function optionLabel(name: string, o: Pick<Option, 'value' | 'short' | 'multiple'>): string {
  return `${o.short ? `-${o.short}, ` : ''}--${name}${o.value ? ` ${o.value}` : ''}${o.multiple ? '…' : ''}`;
}

/** An option's help line: what it does, then what it accepts and its default. */
function optionHelp(o: Option): string {
  const notes = [
    o.accepts,
    o.default !== undefined ? `default ${String(o.default)}` : o.defaultText ? `default ${o.defaultText}` : undefined,
  ].filter(Boolean);
  return notes.length ? `${o.help} (${notes.join('; ')})` : o.help;
}

/** The text of `corpus-lens NAME --help`. */
export function helpText(spec: CommandSpec): string {
  const lead = `corpus-lens ${spec.name} `;
  const lines = spec.synopsis.map((s, i) => `${i === 0 ? 'Usage: ' : '       '}${lead}${s}`);
  lines.push(`  ${spec.summary}`);
  if (spec.about) lines.push(...spec.about.split('\n').flatMap((p) => ['', ...wrap(p, WIDTH, '  ')]));
  const rows = [...Object.entries(spec.options).map(([name, o]) => [optionLabel(name, o), optionHelp(o)]), ['-h, --help', 'this help']];
  const col = Math.min(30, Math.max(...rows.map(([l]) => l.length)));
  lines.push('', 'Options:');
  for (const [label, help] of rows) {
    const pad = ' '.repeat(col + 4);
    const body = wrap(help, WIDTH - pad.length, '');
    if (label.length > col) lines.push(`  ${label}`, ...body.map((b) => pad + b));
    else lines.push(`  ${label.padEnd(col)}  ${body[0]}`, ...body.slice(1).map((b) => pad + b));
  }
  return lines.join('\n') + '\n';
}

/** Words filled into lines of at most `width` characters, each starting with `indent`. */
function wrap(paragraph: string, width: number, indent: string): string[] {
  if (!paragraph.trim()) return [''];
  const out: string[] = [];
  let line = '';
  for (const word of paragraph.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      out.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(indent + line);
  return out;
}

/** The `corpus-lens --help` command list. */
export function commandList(specs: readonly CommandSpec[]): string {
  const col = Math.max(10, ...specs.map((s) => s.name.length));
  return specs.map((s) => `  ${s.name.padEnd(col)} ${s.summary}`).join('\n');
}

/** The README's CLI table (Markdown): one row per command and its summary, flags as code. */
export function markdownTable(specs: readonly CommandSpec[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/(^|[\s(])(--[a-z][a-z0-9-]*)/g, '$1`$2`');
  const rows = specs.map((s) => `| \`${s.name}\` | ${cell(s.summary)} |`);
  return ['| command | what it does |', '| --- | --- |', ...rows].join('\n') + '\n';
}

export const CLI_TABLE_START = '<!-- cli-table:start -->';
export const CLI_TABLE_END = '<!-- cli-table:end -->';

/** A README with the block between the CLI table markers replaced by the table of `specs`. */
export function withCliTable(readme: string, specs: readonly CommandSpec[]): string {
  const start = readme.indexOf(CLI_TABLE_START);
  const end = readme.indexOf(CLI_TABLE_END);
  if (start < 0 || end < start) throw new Error(`the README has no ${CLI_TABLE_START} … ${CLI_TABLE_END} block`);
  return `${readme.slice(0, start + CLI_TABLE_START.length)}\n${markdownTable(specs)}${readme.slice(end)}`;
}
