#!/usr/bin/env node
// `npm start`: the main job on the embedded default. Builds the extension, indexes the sample corpus into
// .corpus-lens/sample-corpus (once; offline embedder, no key, no network), and opens a real VS Code with
// Corpus Lens loaded on the sample paper: desktop VS Code when `code` is on PATH, otherwise code-server in
// the browser (installed by scripts/setup-vscode.sh). Stop it with Ctrl-C.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const state = join(root, '.corpus-lens');
const corpus = join(state, 'sample-corpus');
const port = Number(process.env.PORT ?? 8080);
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });

run(process.execPath, ['esbuild.mjs']);
if (!existsSync(join(corpus, 'PG_VERSION'))) {
  console.log('Indexing the sample corpus (30 papers) with the offline embedder…');
  run(process.execPath, ['dist/cli.js', 'ingest', '--db', corpus, join(root, 'samples', 'corpus')]);
}

// A profile of its own, so the corpus setting does not touch the user's VS Code.
const userData = join(state, 'vscode-user');
mkdirSync(join(userData, 'User'), { recursive: true });
writeFileSync(
  join(userData, 'User', 'settings.json'),
  JSON.stringify(
    { 'corpusLens.corpus.path': corpus, 'workbench.startupEditor': 'none', 'security.workspace.trust.enabled': false },
    null,
    2,
  ),
);
const folder = join(root, 'samples');
const paper = join(folder, 'sample-paper.tex');

const code = spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
if (code && !process.env.CORPUS_LENS_USE_CODE_SERVER) {
  run('code', ['--user-data-dir', userData, `--extensionDevelopmentPath=${root}`, folder, paper]);
  console.log('Opened VS Code with Corpus Lens on samples/sample-paper.tex: click a sentence, then the Corpus Lens icon.');
} else {
  const dir = process.env.CORPUS_LENS_CODE_SERVER_DIR ?? join(root, '.vscode-test');
  run('bash', [join(root, 'scripts', 'setup-vscode.sh')], { env: { ...process.env, CORPUS_LENS_CODE_SERVER_DIR: dir } });
  const entry = join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  const args = [
    entry,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--user-data-dir',
    userData,
    '--extensions-dir',
    join(state, 'extensions'),
    folder,
  ];
  const server = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, XDG_CONFIG_HOME: join(state, 'xdg') },
  });
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${root}`],
    ['openFile', `vscode-remote://127.0.0.1:${port}${paper}`],
  ]);
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(payload)}`;
  console.log(
    `\nCorpus Lens is running in VS Code (code-server) at:\n\n  ${url}\n\nOpen samples/sample-paper.tex, click a sentence, then the Corpus Lens icon in the activity bar. Ctrl-C stops it.`,
  );
  process.on('SIGINT', () => server.kill('SIGTERM'));
  server.on('exit', (c) => process.exit(c ?? 0));
}
