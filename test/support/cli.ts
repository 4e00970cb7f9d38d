import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'node:test';
import { projectRoot } from './eval.ts';

// CLI children still running when the test that started them ends are killed. A test that times out abandons its
// awaited runCli, and without this its child would go on using the file's shared stand-ins and folders while the
// next tests run (and keep the file's process alive). test/cli/cli-runner.test.ts shows it.
const running = new Set<ChildProcess>();
const stopAll = () => {
  for (const child of running) child.kill();
};
afterEach(stopAll);
process.on('exit', stopAll);

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `corpus-lens` (dist/cli.js, as users run it) with args and optional stdin. The embedding cache on
 * disk is off unless `env` names a CORPUS_LENS_CACHE_DIR: a test's embedding calls must not depend on earlier runs.
 */
export function runCli(
  args: string[],
  options: { input?: string | Buffer; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliResult> {
  const cli = join(projectRoot, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: options.cwd ?? projectRoot,
      env: { ...process.env, CORPUS_LENS_CACHE_DIR: 'off', ...options.env },
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (err) => {
      running.delete(child);
      reject(err);
    });
    child.on('close', (code) => {
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
