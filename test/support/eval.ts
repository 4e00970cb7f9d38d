import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The project root (this file lives in test/support/). */
export const projectRoot = resolve(__dirname, '..', '..');

/**
 * Path of a file under ../shared/eval/, or undefined where the shared material is absent (the project must
 * build and run without it; tests that need it skip with a reason). CI always has it.
 */
export function evalPath(...parts: string[]): string | undefined {
  const root = process.env.CORPUS_LENS_EVAL_DIR ?? join(projectRoot, '..', 'shared', 'eval');
  const p = join(root, ...parts);
  return existsSync(p) ? p : undefined;
}
