// Runs `corpus-lens copy --json --progress` in a child process (the extension's "Move Corpus to PostgreSQL…"):
// the embedded corpus's PGlite and the copy's memory stay out of the extension host, and the CLI's JSON is the one
// contract. The password travels in the child's PGPASSWORD (which `pg` reads when the URL has none), never in its
// arguments, where other local users could see it in the process list.
import { fork } from 'node:child_process';
import { redactSecrets } from '../../redact.js';
import type { CopySummary } from './copy.js';
import { StoreError } from '../types.js';

export interface CopyProcessOptions {
  /** dist/cli.js, or src/cli/main.ts with execArgv ['--import', 'tsx'] in tests. */
  script: string;
  execArgv?: string[];
  from: string;
  /** A postgres:// URL without its password. */
  to: string;
  password?: string;
  onProgress?: (papersDone: number, papersTotal: number) => void;
  signal?: AbortSignal;
}

/** `corpus-lens copy --json`'s summary: the copy's, and what the target did differently (a serial index build). */
export type CopyProcessSummary = CopySummary & { warnings?: string[] };

export function runCopyProcess(o: CopyProcessOptions): Promise<CopyProcessSummary> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
    if (o.password) env.PGPASSWORD = o.password;
    const child = fork(o.script, ['copy', '--from', o.from, '--to', o.to, '--json', '--progress'], {
      execArgv: o.execArgv ?? [],
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let out = '';
    let errText = '';
    let pending = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr!.on('data', (d: Buffer) => {
      pending += d.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const p = JSON.parse(line) as { papersDone?: number; papersTotal?: number };
          if (typeof p.papersDone === 'number') o.onProgress?.(p.papersDone, p.papersTotal ?? 0);
          continue;
        } catch {
          // not a progress line: an error message
        }
        errText += line + '\n';
      }
    });
    const abort = () => child.kill();
    o.signal?.addEventListener('abort', abort, { once: true });
    child.on('error', (err) => reject(new StoreError(`could not start the copy: ${err.message}`, { cause: err })));
    child.on('exit', (code) => {
      o.signal?.removeEventListener('abort', abort);
      if (o.signal?.aborted) return reject(new StoreError('the copy was cancelled; run it again to resume'));
      const reason = redactSecrets((errText + pending).trim().split('\n').filter(Boolean).pop() ?? `exit code ${code}`).replace(
        /^corpus-lens: /,
        '',
      );
      if (code !== 0) return reject(new StoreError(`the copy failed: ${reason}`));
      try {
        resolve(JSON.parse(out) as CopyProcessSummary);
      } catch {
        reject(new StoreError(`the copy printed no summary (${reason})`));
      }
    });
  });
}
