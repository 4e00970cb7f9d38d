// The output channel every module logs to, with credentials redacted from each line (core/redact.ts): messages
// quote corpus URLs and endpoints, and the log is what users paste into bug reports.
import type * as vscode from 'vscode';
import { redactSecrets } from '../../core/redact.js';

type LineMethod = 'trace' | 'debug' | 'info' | 'warn' | 'appendLine' | 'append' | 'replace';

const redactArg = (a: unknown): unknown =>
  typeof a === 'string' ? redactSecrets(a) : a instanceof Error ? Object.assign(new Error(redactSecrets(a.message)), { name: a.name }) : a;

/** Wraps `log` in place so that every line written through it is redacted; returns it. */
export function redactingLog(log: vscode.LogOutputChannel): vscode.LogOutputChannel {
  const methods: LineMethod[] = ['trace', 'debug', 'info', 'warn', 'appendLine', 'append', 'replace'];
  for (const m of methods) {
    const original = (log[m] as (...args: unknown[]) => void).bind(log);
    (log as unknown as Record<string, unknown>)[m] = (...args: unknown[]) => original(...args.map(redactArg));
  }
  const error = log.error.bind(log) as (...args: unknown[]) => void;
  (log as unknown as Record<string, unknown>).error = (...args: unknown[]) => error(...args.map(redactArg));
  return log;
}
