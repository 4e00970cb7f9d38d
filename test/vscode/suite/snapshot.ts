// Asks the harness (outside VS Code) for a screenshot and the text of every frame of the workbench, after the
// UI actions given (clicks, typing, key presses in a webview: what the extension host itself cannot do).
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export type UiAction = { click: string } | { fill: string; text: string } | { press: string; key: string } | { hover: string };

export async function snapshot(name: string, timeoutMs = 15_000, actions: UiAction[] = []): Promise<string[]> {
  const request = process.env.CORPUS_LENS_TEST_SNAPSHOT;
  if (!request) {
    if (actions.length) throw new Error('UI actions need the harness (CORPUS_LENS_TEST_SNAPSHOT)');
    return [];
  }
  const reply = `${request}.reply`;
  rmSync(reply, { force: true });
  // Written aside and renamed: the harness polls for the file and must never read it half written.
  writeFileSync(`${request}.tmp`, JSON.stringify({ name, actions }));
  renameSync(`${request}.tmp`, request);
  const until = Date.now() + timeoutMs;
  while (!existsSync(reply)) {
    if (Date.now() > until) throw new Error('the harness did not answer the snapshot request');
    await new Promise((r) => setTimeout(r, 100));
  }
  const r = JSON.parse(readFileSync(reply, 'utf8')) as { texts: string[]; error?: string };
  if (r.error) throw new Error(`UI action failed: ${r.error}`);
  return r.texts;
}
