// Bundles the targets: the extension host entry (and its lazily loaded parts), the corpus process, the CLI and the webview.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

// PGlite finds its WASM and data files next to its own module (import.meta.url), so it stays a real package
// in node_modules (shipped in the .vsix, see .vscodeignore) instead of being bundled.
// usearch (the native vector index, src/core/store/sql/native-index.ts) loads its prebuilt binary the same way.
const nodeExternals = ['@electric-sql/pglite', '@electric-sql/pglite/*', '@electric-sql/pglite-pgvector', 'usearch'];

/**
 * `vscode` is external, and esbuild converts an external CommonJS module for ES imports in every file that imports
 * it: a copy of all of the API's few hundred names per file, dozens of times at activation. This routes every
 * `import … from 'vscode'` through one module that re-exports it, so the names are copied once.
 * @type {esbuild.Plugin}
 */
const vscodeOnce = {
  name: 'vscode-once',
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) =>
      args.namespace === 'vscode-once' ? { path: 'vscode', external: true } : { path: 'vscode', namespace: 'vscode-once' },
    );
    build.onLoad({ filter: /.*/, namespace: 'vscode-once' }, () => ({ contents: "export * from 'vscode';", loader: 'js' }));
  },
};

/**
 * Node's crypto and child_process cost more to load than the rest of activation (a plain node process has not loaded
 * them yet), and the extension needs them only when it hashes a document or starts a process. In the extension
 * bundle, each of their functions is a wrapper that requires the module on its first call. Only functions are
 * exported: importing anything else from them there fails the build (import it where it is needed instead).
 * @type {esbuild.Plugin}
 */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    const lazy = /^(?:node:)?(crypto|child_process)$/;
    build.onResolve({ filter: lazy }, (args) =>
      args.namespace === 'lazy-builtins'
        ? { path: args.path, external: true }
        : { path: `node:${lazy.exec(args.path)[1]}`, namespace: 'lazy-builtins' },
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtins' }, async ({ path }) => {
      const real = await import(path);
      const names = Object.keys(real).filter((name) => name !== 'default' && typeof real[name] === 'function');
      const wrappers = names.map(
        (name) =>
          `export function ${name}(...args) { const f = load().${name}; return new.target ? Reflect.construct(f, args, new.target) : f.apply(this, args); }`,
      );
      return {
        contents: [`let mod;`, `const load = () => (mod ??= require(${JSON.stringify(path)}));`, ...wrappers].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * `corpus-lens` runs once per call, and scripts and CI call it hundreds of times: compiling one bundle of every
 * command (7.9 MB: the PDF reader, the OpenAI and Supabase clients, …) cost ~0.35 s per call, `--version` included.
 * So each command (src/cli/commands/NAME.ts) is its own bundle, dist/cli-NAME.js, and the entry dist/cli.js (argument
 * parsing, help, --version) requires only the one that runs. main.ts keeps its `import('./commands/NAME.js')`, which
 * runs as it is under tsx; here each becomes a require of the command's bundle beside dist/cli.js (in dist/ itself:
 * bundled code finds sql-wasm.wasm and neural-worker.js beside its own file). Code the commands share is copied into
 * each bundle: one process loads one command.
 * @type {esbuild.Plugin}
 */
const cliCommandBundles = {
  name: 'cli-command-bundles',
  setup(build) {
    build.onResolve({ filter: /^\.\/commands\/[a-z-]+\.js$/ }, (args) =>
      args.importer.endsWith('/src/cli/main.ts') ? { path: args.path.slice('./commands/'.length), namespace: 'cli-command' } : undefined,
    );
    build.onResolve({ filter: /^\.\/cli-[a-z-]+\.js$/, namespace: 'cli-command' }, (args) => ({ path: args.path, external: true }));
    build.onLoad({ filter: /.*/, namespace: 'cli-command' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`./cli-${args.path}`)});`,
      loader: 'js',
    }));
  },
};

/** The CLI's commands: src/cli/commands/NAME.ts, bundled as dist/cli-NAME.js. */
const cliCommands = readdirSync('src/cli/commands')
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -'.ts'.length));

/** @type {esbuild.BuildOptions[]} */
const targets = [
  {
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
    plugins: [vscodeOnce, lazyBuiltins],
  },
  {
    // The features, loaded by the activation shell (src/extension/extension.ts) on the first use of any of them.
    entryPoints: ['src/extension/features.ts'],
    outfile: 'dist/features.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
    plugins: [vscodeOnce, lazyBuiltins],
  },
  {
    // Loaded on first use by src/extension/load.ts, so activation parses only dist/extension.js.
    entryPoints: ['src/extension/heavy.ts'],
    outfile: 'dist/heavy.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
    plugins: [vscodeOnce],
  },
  {
    // The embedded corpus's own process (src/core/store/backends/remote.ts forks it): PGlite's memory and WASM work stay
    // out of the extension host.
    entryPoints: ['src/core/store/backends/remote-host.ts'],
    outfile: 'dist/store-host.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
  },
  {
    // The neural embedder's worker thread (src/core/embed/neural.ts starts it from beside its own bundle). Its
    // TF.js packages stay in node_modules: they read their WASM and weights from their own folders.
    entryPoints: ['src/core/embed/neural-worker.ts'],
    outfile: 'dist/neural-worker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['@energetic-ai/*'],
  },
  {
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    external: nodeExternals,
    plugins: [cliCommandBundles],
  },
  {
    // The CLI's commands, one bundle each, required by dist/cli.js for the command that runs (cliCommandBundles).
    entryPoints: Object.fromEntries(cliCommands.map((name) => [`cli-${name}`, `src/cli/commands/${name}.ts`])),
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
  },
  {
    entryPoints: ['webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  {
    // The PDF viewer (src/extension/pdf/pdf-view.ts), with PDF.js; its worker is copied beside it below.
    entryPoints: ['webview/pdf/main.ts'],
    outfile: 'dist/pdf-view.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  {
    // The side panel's element images (webview/pdf/crop.ts): PDF.js, loaded by the Ask tab only when a card needs a crop.
    entryPoints: ['webview/pdf/crop.ts'],
    outfile: 'dist/pdf-crop.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
];

// sql.js (the Zotero reader's SQLite) loads its WASM from beside the bundle (src/core/sources/zotero/sqlite.ts).
mkdirSync('dist', { recursive: true });
copyFileSync('node_modules/sql.js/dist/sql-wasm.wasm', 'dist/sql-wasm.wasm');
// PDF.js's worker for the PDF viewer, which starts it from a blob: copy (webview/pdf/main.ts).
copyFileSync('node_modules/pdfjs-dist/build/pdf.worker.min.mjs', 'dist/pdf.worker.mjs');

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning' };

if (watch) {
  const contexts = await Promise.all(targets.map((t) => esbuild.context({ ...common, ...t })));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(targets.map((t) => esbuild.build({ ...common, ...t })));
}
