// A second reporter for scripts/test.mjs: each test file's wall time (its own process, start to exit), slowest first,
// printed after the spec output of its phase, so a CI log shows where the time goes without timing files by hand.
// Node reports a finished file as a top-level test named by its path.
import { relative } from 'node:path';

export default async function* fileTimes(source) {
  const times = [];
  for await (const event of source) {
    const d = event.data;
    if (event.type === 'test:complete' && d.nesting === 0 && d.file && d.name === d.file) {
      times.push({ file: relative(process.cwd(), d.file), ms: d.details?.duration_ms ?? 0, failed: !d.details?.passed });
    }
  }
  if (times.length === 0) return;
  times.sort((a, b) => b.ms - a.ms);
  const total = times.reduce((s, t) => s + t.ms, 0);
  yield `\n# per-file wall time (${times.length} files, ${(total / 1000).toFixed(1)} s summed), slowest first:\n`;
  for (const t of times) yield `#   ${(t.ms / 1000).toFixed(1).padStart(7)} s  ${t.file}${t.failed ? '  (failed)' : ''}\n`;
}
