// `npm run bench [-- NAME…] [--FLAG VALUE…]`: runs the benchmarks (all, or those named), each printing its figures and
// the ratios against a baseline measured in the same run. Flags are left for the benches to read from process.argv
// (e.g. `npm run bench -- check --embedder neural`).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const wanted = args.filter((a, i) => !a.startsWith('--') && !(args[i - 1]?.startsWith('--') && !args[i - 1].includes('=')));
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => !wanted.length || wanted.some((w) => f.startsWith(w)))
    .sort();
  for (const file of files) {
    const mod = (await import(join(__dirname, file))) as { run(): Promise<void> };
    const t0 = Date.now();
    await mod.run();
    console.log(`(${file} took ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
