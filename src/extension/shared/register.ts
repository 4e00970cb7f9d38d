// Every command of the extension is registered and guarded here, from the one command table (see command-errors.ts for
// what a failure does).
import * as vscode from 'vscode';
import { guarded, type FailureReporter } from './command-errors.js';
import { INTERNAL_COMMANDS, PUBLIC_COMMANDS, type CommandId, type CommandTable } from '../command-table.js';

export function failureReporter(log: vscode.LogOutputChannel): FailureReporter {
  return {
    error: (line) => log.error(line),
    show: (message, ...actions) => vscode.window.showErrorMessage(message, ...actions),
    showLog: () => log.show(),
  };
}

/**
 * Registers every command id of the table (command-table.ts) for the activation shell: each call goes to `run`,
 * which loads the features on first use and calls their guarded handler (guardedCommands).
 */
export function registerCommandIds(context: vscode.ExtensionContext, run: (id: CommandId, args: unknown[]) => unknown): void {
  for (const id of [...PUBLIC_COMMANDS, ...INTERNAL_COMMANDS])
    context.subscriptions.push(vscode.commands.registerCommand(id, (...args: unknown[]) => run(id, args)));
}

/**
 * Every handler of the command table (features.ts builds it from the features' parts), its failures logged and shown
 * with "Show Log": the activation shell registered each id and calls these.
 */
export function guardedCommands(log: vscode.LogOutputChannel, table: CommandTable): Record<string, (...args: unknown[]) => unknown> {
  const reporter = failureReporter(log);
  return Object.fromEntries(
    Object.entries(table).map(([id, fn]) => [id, guarded(id, fn as (...args: unknown[]) => unknown, reporter)] as const),
  );
}
