// `npm run bench [-- NAME…]`: runs the benchmarks (all, or those named), each printing its figures and
// the ratios against a baseline measured in the same run.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
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
