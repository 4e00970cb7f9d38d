// One handling of a failed command or panel action, as LaTeX Workshop and vscode-eslint do it: the failure is
// written to the Corpus Lens log and shown once with "Show Log", instead of escaping as an unhandled rejection
// (which VS Code reports, if at all, as "command 'x' resulted in an error" with no way to the cause). Kept free
// of the 'vscode' module (register.ts binds it) so that it runs under the unit tests.
import { errorText } from '../../core/redact.js';

export const SHOW_LOG = 'Show Log';

/** Where a failure goes: the log, an error notification, the log's view. */
export interface FailureReporter {
  error(line: string): void;
  /** Shows `message` with the `actions`; resolves to the action picked, if any. */
  show(message: string, ...actions: string[]): PromiseLike<string | undefined>;
  showLog(): void;
}

/** The user stopped it (an AbortSignal, a cancelled progress notification): nothing to report. */
function isCancellation(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'Canceled';
}

/**
 * `fn` made safe to run from a command or a panel message: whatever it throws or rejects with is logged under
 * `name` and shown; the returned promise never rejects. It resolves to `fn`'s result, or undefined after a failure.
 */
export function guarded<A extends unknown[], R>(
  name: string,
  fn: (...args: A) => R | PromiseLike<R>,
  reporter: FailureReporter,
): (...args: A) => Promise<R | undefined> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      reportFailure(name, err, reporter);
      return undefined;
    }
  };
}

export function reportFailure(name: string, err: unknown, reporter: FailureReporter): void {
  if (isCancellation(err)) {
    reporter.error(`${name}: cancelled`);
    return;
  }
  const text = errorText(err);
  reporter.error(`${name} failed: ${text}`);
  // Only the first line in the notification; the log has it all.
  Promise.resolve(reporter.show(`Corpus Lens: ${text.split('\n')[0]}`, SHOW_LOG)).then(
    (pick) => {
      if (pick === SHOW_LOG) reporter.showLog();
    },
    () => undefined,
  );
}
