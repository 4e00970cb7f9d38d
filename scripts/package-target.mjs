// `npm run package:target -- TARGET` (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64): the per-platform
// .vsix, corpus-lens-TARGET.vsix, with the native vector index (usearch and the prebuilt binary for that platform).
// The universal .vsix (`npm run package`) leaves usearch out: there the embedded corpus uses PGlite's pgvector index,
// as on any platform without a binary (src/core/store/sql/native-index.ts).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** VS Code's platform targets → usearch's prebuilt binary folders. */
const PREBUILDS = {
  'linux-x64': 'linux-x64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-arm64+x64',
  'darwin-arm64': 'darwin-arm64+x64',
  'win32-x64': 'win32-x64',
};

const target = process.argv[2];
if (!PREBUILDS[target]) {
  console.error(`usage: npm run package:target -- ${Object.keys(PREBUILDS).join('|')}`);
  process.exit(2);
}
// usearch's loader and what it requires at run time (node-gyp-build, bindings and its file-uri-to-path).
const include = [
  'node_modules/usearch/package.json',
  'node_modules/usearch/LICENSE',
  'node_modules/usearch/javascript/dist/cjs/*.js',
  `node_modules/usearch/prebuilds/${PREBUILDS[target]}/usearch.node`,
  'node_modules/node-gyp-build/package.json',
  'node_modules/node-gyp-build/*.js',
  'node_modules/bindings/package.json',
  'node_modules/bindings/bindings.js',
  'node_modules/file-uri-to-path/package.json',
  'node_modules/file-uri-to-path/index.js',
];
const ignoreFile = join(process.cwd(), `.vscodeignore-${target}`);
writeFileSync(ignoreFile, `${readFileSync('.vscodeignore', 'utf8')}\n${include.map((f) => `!${f}`).join('\n')}\n`);
try {
  const vsce = join('node_modules', '.bin', 'vsce');
  const common = ['--no-update-package-json', '--allow-missing-repository', '--no-rewrite-relative-links', '--skip-license'];
  const args = ['package', '--target', target, '--ignoreFile', ignoreFile, ...common, '-o', `corpus-lens-${target}.vsix`];
  if (process.argv.includes('--ls')) execFileSync(vsce, ['ls', '--ignoreFile', ignoreFile], { stdio: 'inherit' });
  else execFileSync(vsce, args, { stdio: 'inherit' });
} finally {
  rmSync(ignoreFile, { force: true });
}
