// `corpus-lens --version`, `--help` and `segment` load none of the PDF reader or the Supabase client: each command
// is its own bundle (dist/cli-NAME.js, esbuild.mjs), and dist/cli.js loads only the one that runs. What a run loads is
// read from the child's require.cache (deterministic); the time it saves is `npm run bench -- cli`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { projectRoot } from '../support/eval.ts';

/** Literal strings of the PDF reader (pdf.js, through unpdf) and of the Supabase client: they survive minifying. */
const MARKERS = { pdf: 'Invalid PDF structure', supabase: 'supabaseUrl is required' };

const work = mkdtempSync(join(tmpdir(), 'cl-start-up-'));
test.after(() => rmSync(work, { recursive: true, force: true }));
const preload = join(work, 'loaded.cjs');
writeFileSync(
  preload,
  `process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_OUT, JSON.stringify(Object.keys(require.cache))));\n`,
);

/** Runs dist/cli.js with args; returns the files of dist/ it loaded and which markers their code holds. */
function loadedBy(args: string[], input = '') {
  const out = join(work, `loaded-${args.join('_').replace(/[^a-z-]/g, '')}.json`);
  const r = spawnSync(process.execPath, ['--require', preload, join(projectRoot, 'dist', 'cli.js'), ...args], {
    cwd: projectRoot,
    input,
    env: { ...process.env, LOADED_OUT: out, CORPUS_LENS_CACHE_DIR: 'off' },
    encoding: 'utf8',
  });
  const files = (JSON.parse(readFileSync(out, 'utf8')) as string[]).filter((f) => f !== preload);
  const code = files.map((f) => readFileSync(f, 'utf8')).join('\n');
  return {
    status: r.status,
    stderr: r.stderr,
    dist: files.map((f) => relative(projectRoot, f)).filter((f) => f.startsWith('dist')),
    holds: Object.entries(MARKERS)
      .filter(([, marker]) => code.includes(marker))
      .map(([name]) => name),
  };
}

test('--version and --help load dist/cli.js alone, without the PDF reader or the Supabase client', () => {
  for (const args of [['--version'], ['--help']]) {
    const run = loadedBy(args);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.dist, ['dist/cli.js'], args.join(' '));
    assert.deepEqual(run.holds, [], args.join(' '));
  }
});

test('segment loads its own bundle and nothing of the PDF reader or the Supabase client', () => {
  const run = loadedBy(['segment', '--format', 'text'], 'One sentence. Another one.');
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(run.dist, ['dist/cli.js', 'dist/cli-segment.js']);
  assert.deepEqual(run.holds, []);
});

test('ingest loads its bundle, which holds the PDF reader (the markers above are still those of the real code)', () => {
  const run = loadedBy(['ingest', '--help']);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(run.dist, ['dist/cli.js', 'dist/cli-ingest.js']);
  assert.deepEqual(run.holds, ['pdf', 'supabase']);
});

test("a command's usage error keeps exit code 2 although the command's bundle has its own copy of CliError", () => {
  const run = loadedBy(['segment', '--no-such-flag']);
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /unknown option '--no-such-flag'/);
});
