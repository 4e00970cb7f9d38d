// The CLI's one option schema (src/cli/spec.ts through src/cli/options.ts): values are checked and converted by
// their declared type, range or choices; help lists every option; the defaults help states are the ones the core
// uses; and the README's CLI table is the one the schema generates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../support/eval.ts';
import { CliError } from '../../../src/cli/command.ts';
import {
  CLI_TABLE_END,
  CLI_TABLE_START,
  defineCommand,
  helpText,
  integer,
  markdownTable,
  number,
  parseCommand,
  withCliTable,
  choice,
  flag,
  text,
  texts,
} from '../../../src/cli/options.ts';
import { askSpec, commandSpecs, querySpec, reviewSpec, schemaSpec } from '../../../src/cli/spec.ts';
import { ANSWERABILITY_THRESHOLD } from '../../../src/core/ask/evidence.ts';
import { ASK_DEFAULTS } from '../../../src/core/ask/index.ts';
import { DEFAULTS as REVIEW_DEFAULTS } from '../../../src/core/review/pipeline.ts';
import { DEFAULT_DIMENSIONS } from '../../../src/core/store/sql/schema.ts';
import { HYBRID_DEFAULTS } from '../../../src/core/store/types.ts';

const spec = defineCommand({
  name: 'demo',
  summary: 'a demo',
  synopsis: ['[options] TEXT'],
  options: {
    k: integer('N', 'how many', { min: 1, max: 10, default: 5 }),
    t: number('T', 'a threshold', { min: -1, max: 1 }),
    mode: choice(['a', 'b', 'c'] as const, 'the mode'),
    json: flag('as JSON'),
    name: text('NAME', 'a name'),
    paper: texts('ID', 'papers'),
  },
});

function usage(run: () => unknown, message: RegExp): void {
  assert.throws(run, (err: unknown) => err instanceof CliError && err.exitCode === 2 && message.test(err.message));
}

test('values are converted by type and absent ones take their default', () => {
  const r = parseCommand(spec, ['--k', '3', '--t', '-0.5', '--mode', 'b', '--json', '--paper', 'x', '--paper', 'y', 'some', 'text']);
  assert.ok(!('help' in r));
  assert.deepEqual(r.values, { k: 3, t: -0.5, mode: 'b', json: true, name: undefined, paper: ['x', 'y'] });
  assert.deepEqual(r.positionals, ['some', 'text']);
  const d = parseCommand(spec, []);
  assert.ok(!('help' in d));
  assert.equal(d.values.k, 5);
  assert.equal(d.values.t, undefined);
});

test('a value out of range, of the wrong type or not among the choices is a usage error naming the flag', () => {
  usage(() => parseCommand(spec, ['--k', '11']), /^--k must be an integer from 1 to 10 \(got '11'\)$/);
  usage(() => parseCommand(spec, ['--k', '2.5']), /^--k must be an integer from 1 to 10/);
  usage(() => parseCommand(spec, ['--k', ' ']), /^--k must be an integer/);
  usage(() => parseCommand(spec, ['--t', 'x']), /^--t must be a number from -1 to 1 \(got 'x'\)$/);
  usage(() => parseCommand(spec, ['--mode', 'd']), /^--mode must be a, b or c \(got 'd'\)$/);
  usage(() => parseCommand(spec, ['--nmae', 'x']), /^unknown option '--nmae' — did you mean --name\? \(see --help\)$/);
  usage(() => parseCommand(reviewSpec, ['--cite', 'footcite']), /^--cite must be one of cite, citep, citet, autocite, parencite/);
  usage(() => parseCommand(querySpec, ['--embedder', 'gpt']), /^--embedder must be offline, neural or openai \(got 'gpt'\)$/);
});

test('a negative number after a flag that takes a value is its value, not another option', () => {
  const r = parseCommand(spec, ['--t', '-1', '--json', 'x']);
  assert.ok(!('help' in r));
  assert.equal(r.values.t, -1);
  usage(() => parseCommand(spec, ['--k', '-1']), /^--k must be an integer from 1 to 10 \(got '-1'\)$/);
});

test('--help wins over bad values and lists every option with its range and default', () => {
  const r = parseCommand(spec, ['--k', 'many', '--help']);
  assert.ok('help' in r);
  assert.match(r.help, /^Usage: corpus-lens demo \[options\] TEXT\n/);
  for (const flagName of ['--k N', '--t T', '--mode a|b|c', '--json', '--name NAME', '--paper ID…', '-h, --help'])
    assert.ok(r.help.includes(flagName), flagName);
  assert.match(r.help, /how many \(an integer from 1 to 10; default 5\)/);
  for (const s of commandSpecs) {
    const h = helpText(s);
    for (const name of Object.keys(s.options)) assert.ok(h.includes(`--${name}`), `${s.name} --help lists --${name}`);
    assert.ok(h.includes(s.summary), `${s.name} --help says its summary`);
  }
});

test('the defaults help states are the ones the core uses', () => {
  assert.equal(askSpec.options.threshold.defaultText, String(ANSWERABILITY_THRESHOLD));
  assert.equal(askSpec.options.evidence.defaultText, String(ASK_DEFAULTS.evidence));
  assert.equal(reviewSpec.options.papers.defaultText, String(REVIEW_DEFAULTS.papers));
  assert.equal(reviewSpec.options.candidates.defaultText, String(REVIEW_DEFAULTS.candidates));
  assert.equal(querySpec.options['rrf-k'].defaultText, String(HYBRID_DEFAULTS.rrfK));
  assert.equal(schemaSpec.options.dimensions.defaultText, String(DEFAULT_DIMENSIONS));
});

test('every command has one spec, with a name, a summary and no option twice', () => {
  const names = commandSpecs.map((s) => s.name);
  assert.equal(new Set(names).size, names.length);
  for (const s of commandSpecs) {
    assert.ok(s.summary.length > 10 && !s.summary.includes('\n'), s.name);
    assert.ok(!('help' in s.options), `${s.name}: --help is added by the parser`);
  }
});

test("the README's CLI table is the one the schema generates (npm run docs:cli writes it)", () => {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const block = readme.slice(readme.indexOf(CLI_TABLE_START) + CLI_TABLE_START.length + 1, readme.indexOf(CLI_TABLE_END));
  assert.ok(readme.includes(CLI_TABLE_START) && readme.includes(CLI_TABLE_END), 'README.md has the cli-table markers');
  assert.equal(block, markdownTable(commandSpecs), 'README.md is out of date: run npm run docs:cli');
  assert.equal(withCliTable(readme, commandSpecs), readme);
  for (const s of commandSpecs) assert.match(block, new RegExp(`^\\| \`${s.name}\` \\|`, 'm'));
});
