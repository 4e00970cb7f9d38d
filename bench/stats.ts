/** Median, percentiles and formatting shared by the benchmarks. */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const median = (values: number[]) => percentile(values, 50);

/** Milliseconds taken by fn, measured with the high-resolution clock. */
export function timeMs(fn: () => unknown): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export function fmt(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`;
}

/** The machine's load, printed beside wall-clock figures (the bench machine is shared). */
export const load = () => `load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} on 2 cores`;

/** Peak resident set of this process (Linux VmHWM), in MB; NaN elsewhere. */
export function peakRssMb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}
