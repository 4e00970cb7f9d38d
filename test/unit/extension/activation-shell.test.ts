// The activation shell (src/extension/extension.ts, built as dist/extension.js) with a recording stand-in for the
// `vscode` module (as bench/activation-probe.cjs loads it): activation registers the Corpus Health document's provider
// without loading the features, so a report VS Code restores before anything else ran opens with text, and its first
// read loads them. The real VS Code runs the report itself (test/vscode/suite/health.suite.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');
// Built by `npm run build` (npm test builds first).
const dist = path.join(root, 'dist');
/** The built bundles are CommonJS, loaded as VS Code loads them. */
const fromDist = Module.createRequire(__filename);
// esbuild's namespace import copies own keys only: the `vscode.X` names the extension uses.
const names = [
  ...new Set(
    readdirSync(path.join(root, 'src', 'extension'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(path.join(root, 'src', 'extension', f), 'utf8').matchAll(/vscode\.([A-Za-z]+)/g)].map((m) => m[1])),
  ),
  'prototype',
];

/** A stand-in where every name is a callable stand-in again, except the ones given. */
function stand(overrides: Record<string | symbol, unknown> = {}): unknown {
  const handler: ProxyHandler<() => void> = {
    get: (_t, p) =>
      p in overrides
        ? overrides[p]
        : p === 'then'
          ? undefined
          : p === Symbol.toPrimitive
            ? () => ''
            : p === 'fsPath'
              ? '/nonexistent/corpus-lens-shell-test'
              : stand(),
    apply: () => stand(),
    construct: () => stand() as object,
    set: () => true,
    ownKeys: () => names,
    getOwnPropertyDescriptor: (t, p) =>
      p === 'prototype' ? Reflect.getOwnPropertyDescriptor(t, p) : { value: handler.get!(t, p, t), enumerable: true, configurable: true },
  };
  return new Proxy(function () {}, handler);
}

test('activation registers the Corpus Health document; the features load on its first read, not before', async () => {
  const providers = new Map<string, { provideTextDocumentContent(uri: unknown, token: unknown): unknown }>();
  const vscode = stand({
    workspace: stand({
      registerTextDocumentContentProvider: (scheme: string, provider: never) => {
        providers.set(scheme, provider);
        return stand();
      },
    }),
    // No paper in view: nothing loads the features on the tick after activation.
    window: stand({ visibleTextEditors: [] }),
  });
  const loader = Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  loader._load = (req, ...rest) => (req === 'vscode' ? vscode : load(req, ...rest));
  const features = path.join(dist, 'features.js');
  try {
    const shell = fromDist(path.join(dist, 'extension.js')) as { activate(context: unknown): unknown; deactivate(): unknown };
    shell.activate(stand());
    await new Promise((r) => setTimeout(r, 10));
    const health = providers.get('corpus-lens-health');
    assert.ok(health, `the shell registers the report's scheme: ${[...providers.keys()]}`);
    assert.equal(fromDist.cache[features], undefined, 'the features are not loaded by activation');
    const text = await health.provideTextDocumentContent(stand(), stand());
    assert.match(String(text), /^# Corpus health\n/);
    assert.match(String(text), /run \*\*Corpus Lens: Corpus Health\*\*/, 'a restored report says how to get it again');
    assert.ok(fromDist.cache[features], 'its first read loaded the features');
    await shell.deactivate();
  } finally {
    loader._load = load;
  }
});
