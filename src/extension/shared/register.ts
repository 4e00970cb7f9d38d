// Every command of the extension is registered here, from the one command table (see command-errors.ts for what a failure does).
import * as vscode from 'vscode';
import { guarded, type FailureReporter } from './command-errors.js';
import type { CommandTable } from '../command-table.js';

export function failureReporter(log: vscode.LogOutputChannel): FailureReporter {
  return {
    error: (line) => log.error(line),
    show: (message, ...actions) => vscode.window.showErrorMessage(message, ...actions),
    showLog: () => log.show(),
  };
}

/** Registers command `id` with its failures logged and shown with "Show Log"; disposed with the extension. */
export function registerCommand<A extends unknown[], R>(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  id: string,
  fn: (...args: A) => R | PromiseLike<R>,
): void {
  context.subscriptions.push(vscode.commands.registerCommand(id, guarded(id, fn, failureReporter(log))));
}

/** Registers every handler of the command table (extension.ts builds it from the features' parts). */
export function registerCommands(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, table: CommandTable): void {
  for (const [id, fn] of Object.entries(table)) registerCommand(context, log, id, fn as (...args: unknown[]) => unknown);
}
