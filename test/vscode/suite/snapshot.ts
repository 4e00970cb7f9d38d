// Asks the harness (outside VS Code) for a screenshot and the text of every frame of the workbench.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

export async function snapshot(name: string, timeoutMs = 15_000): Promise<string[]> {
  const request = process.env.CORPUS_LENS_TEST_SNAPSHOT;
  if (!request) return [];
  const reply = `${request}.reply`;
  rmSync(reply, { force: true });
  writeFileSync(request, JSON.stringify({ name }));
  const until = Date.now() + timeoutMs;
  while (!existsSync(reply)) {
    if (Date.now() > until) throw new Error('the harness did not answer the snapshot request');
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 50));
  return (JSON.parse(readFileSync(reply, 'utf8')) as { texts: string[] }).texts;
}
