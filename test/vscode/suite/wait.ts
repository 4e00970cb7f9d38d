// Polling for what the extension does asynchronously (a panel state, a diagnostic, a file), with a named timeout.
import * as vscode from 'vscode';

export async function waitFor<T>(what: string, fn: () => T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Sets user settings (undefined removes one) and waits until this extension host reads them: `update` resolves
 * when the file is written, and the change event (on which the extension drops its corpus connection) can come
 * later, in the middle of the next test.
 */
export async function setUserSettings(section: string, values: Record<string, unknown>): Promise<void> {
  const config = vscode.workspace.getConfiguration(section);
  for (const [k, v] of Object.entries(values)) await config.update(k, v, vscode.ConfigurationTarget.Global);
  await waitFor(`settings ${Object.keys(values).join(', ')}`, () =>
    Object.entries(values).every(([k, v]) => {
      const seen = vscode.workspace.getConfiguration(section).inspect(k)?.globalValue;
      return JSON.stringify(seen) === JSON.stringify(v);
    }),
  );
}
