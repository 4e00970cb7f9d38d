// Every command of the extension is registered here (see command-errors.ts for what a failure does).
import * as vscode from 'vscode';
import { guarded, type FailureReporter } from './command-errors.js';

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
