// What an indexing run tells the user: "N papers, M sentences; K files failed; W warnings", and the problems
// grouped (604 identical warnings from one .bib are one line with a count), each with its file.
import type { ReadError } from './types.js';

export interface ProblemGroup {
  file: string;
  reason: string;
  count: number;
}

export interface IndexingCounts {
  papers: number;
  sentences: number;
  skipped: number;
  /** Records of a paper merged into another record of it (a PDF into its LaTeX source). */
  merged?: number;
  failed: readonly ReadError[];
  warnings?: readonly ReadError[];
}

/** Identical problems of one file as one group, in order of first appearance. The `(in "…")` detail is dropped. */
export function groupProblems(list: readonly ReadError[]): ProblemGroup[] {
  const groups = new Map<string, ProblemGroup>();
  for (const p of list) {
    const reason = p.reason.replace(/ \(in ".*"\)$/, '');
    const key = `${p.file}\u0000${reason}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { file: p.file, reason, count: 1 });
  }
  return [...groups.values()];
}

/** The number of distinct files with a failure. */
export function failedFiles(failed: readonly ReadError[]): number {
  return new Set(failed.map((f) => f.file)).size;
}

/** "5 papers, 628 sentences (2 files unchanged); 0 files failed; 604 warnings". */
export function indexingSummaryLine(s: IndexingCounts): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const unchanged = s.skipped ? ` (${plural(s.skipped, 'file')} unchanged)` : '';
  const merged = s.merged ? `; ${plural(s.merged, 'duplicate')} merged into ${s.merged === 1 ? 'its paper' : 'their papers'}` : '';
  const failed = failedFiles(s.failed);
  return `${plural(s.papers, 'paper')}, ${plural(s.sentences, 'sentence')}${unchanged}${merged}; ${failed} file${failed === 1 ? '' : 's'} failed; ${plural(s.warnings?.length ?? 0, 'warning')}`;
}

/** The log lines for a run's problems: one per group, failures first. */
export function problemLines(s: IndexingCounts): string[] {
  const line = (kind: string, g: ProblemGroup) => `${kind} ${g.file}: ${g.reason}${g.count > 1 ? ` (×${g.count})` : ''}`;
  return [...groupProblems(s.failed).map((g) => line('failed', g)), ...groupProblems(s.warnings ?? []).map((g) => line('warning', g))];
}
