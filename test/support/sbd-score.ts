import { readFileSync } from 'node:fs';

/** One case of the shared sentence-boundary sets under ../shared/eval/sbd/ (see its README). */
export interface SbdCase {
  name: string;
  text: string;
  expected: string[];
  group?: string;
  options?: Record<string, unknown> | null;
  skipped_upstream?: boolean;
  xfail_upstream?: boolean;
  expected_is_verbatim_substrings?: boolean;
}

export interface SbdFailure {
  name: string;
  text: string;
  expected: string[];
  actual: string[];
}

export interface SbdScore {
  /** Cases that count (after the README's exclusions). */
  total: number;
  passed: number;
  excluded: number;
  failures: SbdFailure[];
}

export type Splitter = (text: string) => Array<{ start: number; end: number }>;

export function loadSbdCases(path: string): SbdCase[] {
  return JSON.parse(readFileSync(path, 'utf8')) as SbdCase[];
}

/**
 * Whether a case is scored: cases that need text cleaning (`clean: false`), a document type, were skipped
 * upstream or whose expected sentences are not verbatim slices of the text cannot be met by spans.
 */
export function isScored(c: SbdCase): boolean {
  const o = c.options ?? {};
  if (o.clean === false || 'doc_type' in o) return false;
  return !c.skipped_upstream && c.expected_is_verbatim_substrings !== false;
}

/** The sentences a splitter yields for a text, trimmed as the scoring rules compare them. */
export function sentencesOf(split: Splitter, text: string): string[] {
  return split(text).map((s) => text.slice(s.start, s.end).trim());
}

export function scoreSbd(cases: SbdCase[], split: Splitter): SbdScore {
  const score: SbdScore = { total: 0, passed: 0, excluded: 0, failures: [] };
  for (const c of cases) {
    if (!isScored(c)) {
      score.excluded++;
      continue;
    }
    score.total++;
    const actual = sentencesOf(split, c.text);
    const expected = c.expected.map((s) => s.trim());
    const same = actual.length === expected.length && actual.every((s, k) => s === expected[k]);
    if (same) score.passed++;
    else score.failures.push({ name: c.name, text: c.text, expected, actual });
  }
  return score;
}

export interface BoundaryScore {
  docs: number;
  exactDocs: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
}

/**
 * Boundary precision and recall on documents given as lists of sentences, each document's sentences joined
 * by one space (the Citation-Integrity `corpus.jsonl` excerpts: real scientific sentences, split upstream,
 * with some upstream errors, so neither figure can reach 1).
 */
export function scoreBoundaries(docs: string[][], split: Splitter): BoundaryScore {
  const s = { docs: docs.length, exactDocs: 0, truePositives: 0, falsePositives: 0, falseNegatives: 0 };
  for (const sentences of docs) {
    const parts = sentences.map((x) => x.trim()).filter((x) => x.length > 0);
    const gold = new Set<number>();
    let at = -1;
    for (const part of parts) gold.add((at += part.length + 1));
    const found = new Set(split(parts.join(' ')).map((span) => span.end));
    const hits = [...found].filter((b) => gold.has(b)).length;
    s.truePositives += hits;
    s.falsePositives += found.size - hits;
    s.falseNegatives += gold.size - hits;
    if (hits === gold.size && hits === found.size) s.exactDocs++;
  }
  const precision = s.truePositives / Math.max(1, s.truePositives + s.falsePositives);
  const recall = s.truePositives / Math.max(1, s.truePositives + s.falseNegatives);
  return { ...s, precision, recall };
}
