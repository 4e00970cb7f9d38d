// Loads dist/heavy.js (see heavy.ts) on first use, so activation parses only the light part of the extension.
import * as path from 'node:path';

export type Heavy = typeof import('./heavy.js');

let loaded: Heavy | undefined;

export function heavy(): Heavy {
  // A computed path: esbuild leaves this require to run time instead of bundling heavy.ts in here (an import()
  // would make every caller async; the extension bundle is CommonJS).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require(path.join(__dirname, 'heavy.js')) as Heavy;
  return loaded;
}
