'use strict'; // a strict function has no own `arguments`/`caller`, which a Proxy would have to report
// Run by extension.bench.ts in a plain node process (no tsx hooks): loads dist/extension.js with a stub
// `vscode` module, calls activate(), and prints the milliseconds both took; then the milliseconds the features took
// to load on their first use after it (dist/features.js: require + activateFeatures).
const Module = require('node:module');
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
// esbuild's namespace import copies only own keys: list the `vscode.X` names the extension uses.
const names = [
  ...new Set(
    readdirSync(join(root, 'src', 'extension'), { recursive: true })
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(join(root, 'src', 'extension', f), 'utf8').matchAll(/vscode\.([A-Za-z]+)/g)].map((m) => m[1])),
  ),
];
const handler = {
  // A path is a string (path.join takes no stand-in); nothing is written there.
  get: (_t, p) =>
    p === 'then' ? undefined : p === Symbol.toPrimitive ? () => '' : p === 'fsPath' ? '/nonexistent/corpus-lens-probe' : stub,
  apply: () => stub,
  construct: () => stub,
  set: () => true,
  ownKeys: () => [...names, 'prototype'],
  getOwnPropertyDescriptor: (t, p) =>
    p === 'prototype' ? Reflect.getOwnPropertyDescriptor(t, p) : { value: stub, enumerable: true, configurable: true },
};
const stub = new Proxy(function () {}, handler);
const load = Module._load;
Module._load = (req, ...rest) => (req === 'vscode' ? stub : load(req, ...rest));

const t0 = process.hrtime.bigint();
require(join(root, 'dist', 'extension.js')).activate(stub);
const t1 = process.hrtime.bigint();
require(join(root, 'dist', 'features.js')).activateFeatures(stub, { log: stub, structureView: stub });
const t2 = process.hrtime.bigint();
process.stdout.write(`${Number(t1 - t0) / 1e6} ${Number(t2 - t1) / 1e6}`);
