// `corpus-lens` start-up: scripts call it many times and CI spawns it hundreds of times, so the wall time of a whole
// run of a cheap command (`--version`, `segment` of the sample paper at one offset) is the figure, beside a bare
// `node -e 0` measured in the same run, interleaved, as its floor. `ingest --help` loads the largest command's bundle
// (dist/cli-ingest.js, with the PDF reader): the cost every command paid before the commands were bundled apart.
// Runs the built dist/ (`npm run build` first). BENCH_CLI_RUNS: runs of each (default 15).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { load, median, percentile } from './stats.ts';

const root = join(__dirname, '..');
const cli = join(root, 'dist', 'cli.js');

const cases: { name: string; args: string[] }[] = [
  { name: 'node -e 0 (floor)', args: ['-e', '0'] },
  { name: '--version', args: [cli, '--version'] },
  { name: '--help', args: [cli, '--help'] },
  { name: 'segment --at 1373', args: [cli, 'segment', '--at', '1373', join(root, 'samples', 'sample-paper.tex')] },
  { name: 'ingest --help', args: [cli, 'ingest', '--help'] },
];

function wallMs(args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export async function run(): Promise<void> {
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  const runs = Number(process.env.BENCH_CLI_RUNS ?? 15);
  const times = new Map(cases.map((c) => [c.name, [] as number[]]));
  for (const c of cases) wallMs(c.args); // warm the file cache
  const before = load();
  // Interleaved, so that a change of the machine's load spreads over every case alike.
  for (let i = 0; i < runs; i++) for (const c of cases) times.get(c.name)!.push(wallMs(c.args));
  const floor = median(times.get(cases[0].name)!);
  console.log(`CLI start-up, wall time of a whole run, ${runs} runs each (${before} before, ${load()} after):`);
  for (const c of cases) {
    const t = times.get(c.name)!;
    const m = median(t);
    const over = c === cases[0] ? '' : `, ${(m - floor).toFixed(0)} ms over node -e 0 (${(m / floor).toFixed(2)}×)`;
    console.log(`  ${c.name.padEnd(20)} median ${m.toFixed(0)} ms, p90 ${percentile(t, 90).toFixed(0)} ms${over}`);
  }
}
