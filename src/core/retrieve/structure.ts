// The corpus's section structure (CorpusStudio's ordered distribution of section titles): which section titles
// papers of the corpus use, how many papers use each, and where in a paper each typically comes, in that order.
// Pure: the rows come from CorpusStore.sectionTitles().

import type { SectionTitle } from '../store/types.js';
import { escapeLatex, escapeMarkdownProse } from '../text/escape.js';

/** One section of one paper, as the store lists them (CorpusStore.sectionTitles). */
export type SectionTitleRow = SectionTitle;

/** One usual section title. */
export interface SectionStat {
  /** The normalised title (the grouping key), e.g. `related work`. */
  key: string;
  /** The display form: the most frequent spelling, numbering and trailing punctuation removed. */
  title: string;
  /** The original spellings merged under this key, most frequent first. */
  spellings: { text: string; count: number }[];
  /** Papers with a section of this title. */
  papers: number;
  /** papers / the corpus's papers with titled sections (0..1). */
  share: number;
  /** Median relative position in a paper: 0 = first section, 1 = last. */
  position: number;
}

export interface SectionStructure {
  /** Papers with at least one titled section (the denominator of every share). */
  papers: number;
  /** The usual titles, ordered by typical position. */
  sections: SectionStat[];
}

export interface StructureOptions {
  /** Keep titles found in at least this many papers (default 2; 1 when the corpus has fewer than 3 papers). */
  minPapers?: number;
  /** At most this many titles, the most frequent kept (default 30). */
  limit?: number;
}

export const DEFAULT_STRUCTURE_LIMIT = 30;

/**
 * Leading section numbering: `2`, `2.1`, `2.1.`, `II.`, `IV`, `A.1`, `A.`, `(3)`, `§2`. A bare capital letter is
 * numbering only when a dot or parenthesis follows (`A Study of …` keeps its article).
 */
const NUMBERING = /^(?:§\s*)?\(?(?:\d+(?:\.\d+)*|[IVXLC]+|[A-Z](?:\.\d+)+|[A-Z](?=[.)]))(?:[.):]|(?=\s))\s*/;

/** Whitespace collapsed, numbering and trailing punctuation removed; case kept (a display spelling). */
export function cleanSectionTitle(title: string): string {
  let t = title.normalize('NFKC').replace(/\s+/g, ' ').trim();
  const stripped = t.replace(NUMBERING, '');
  if (/\p{L}/u.test(stripped)) t = stripped; // a title that is only a number stays as it is
  return t.replace(/[\s.:;,!?·–—-]+$/u, '').trim();
}

/** The grouping key: the clean title, case-folded. "1 Introduction", "INTRODUCTION" and "Introduction." agree. */
export function normalizeSectionTitle(title: string): string {
  return cleanSectionTitle(title).toLocaleLowerCase('en-US');
}

function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** A spelling in Title or sentence case reads better than ALL CAPS when both are as frequent. */
function shouting(s: string): boolean {
  return s === s.toLocaleUpperCase('en-US') && s !== s.toLocaleLowerCase('en-US');
}

/**
 * The ordered distribution of section titles. A paper counts once per title (at its first section of that title);
 * its relative position is the section's rank among the paper's sections / (sections − 1) (0 for a paper with one
 * section). Null and empty titles are skipped but still count as sections of their paper. The most frequent titles
 * are kept (see {@link StructureOptions}) and listed by median position, then by how many papers use them.
 */
export function sectionStructure(rows: readonly SectionTitleRow[], options: StructureOptions = {}): SectionStructure {
  const byPaper = new Map<string, SectionTitleRow[]>();
  for (const r of rows) {
    const list = byPaper.get(r.paperId) ?? [];
    list.push(r);
    byPaper.set(r.paperId, list);
  }
  const groups = new Map<string, { positions: number[]; spellings: Map<string, number>; clean: Map<string, number> }>();
  let papers = 0;
  for (const sections of byPaper.values()) {
    const indexes = [...new Set(sections.map((s) => s.sectionIndex))].sort((a, b) => a - b);
    const rank = new Map(indexes.map((index, i) => [index, i]));
    const last = indexes.length - 1;
    const seen = new Set<string>();
    let titled = false;
    for (const s of [...sections].sort((a, b) => a.sectionIndex - b.sectionIndex)) {
      const raw = s.title?.replace(/\s+/g, ' ').trim();
      if (!raw) continue;
      const key = normalizeSectionTitle(raw);
      if (!key) continue;
      titled = true;
      const g = groups.get(key) ?? { positions: [] as number[], spellings: new Map<string, number>(), clean: new Map<string, number>() };
      groups.set(key, g);
      g.spellings.set(raw, (g.spellings.get(raw) ?? 0) + 1);
      const clean = cleanSectionTitle(raw);
      g.clean.set(clean, (g.clean.get(clean) ?? 0) + 1);
      if (seen.has(key)) continue;
      seen.add(key);
      g.positions.push(last > 0 ? rank.get(s.sectionIndex)! / last : 0);
    }
    if (titled) papers++;
  }
  const minPapers = options.minPapers ?? (papers < 3 ? 1 : 2);
  const limit = options.limit ?? DEFAULT_STRUCTURE_LIMIT;
  const byCount = (a: [string, number], b: [string, number]) => b[1] - a[1] || a[0].localeCompare(b[0]);
  const sections: SectionStat[] = [...groups.entries()]
    .filter(([, g]) => g.positions.length >= minPapers)
    .map(([key, g]) => {
      const clean = [...g.clean.entries()].sort(
        (a, b) => b[1] - a[1] || Number(shouting(a[0])) - Number(shouting(b[0])) || a[0].localeCompare(b[0]),
      );
      return {
        key,
        title: clean[0][0],
        spellings: [...g.spellings.entries()].sort(byCount).map(([text, count]) => ({ text, count })),
        papers: g.positions.length,
        share: papers ? g.positions.length / papers : 0,
        position: median(g.positions),
      };
    })
    .sort((a, b) => b.papers - a.papers || a.position - b.position || a.key.localeCompare(b.key))
    .slice(0, Math.max(0, limit))
    .sort((a, b) => a.position - b.position || b.papers - a.papers || a.key.localeCompare(b.key));
  return { papers, sections };
}

/**
 * `\section{Title}` (LaTeX) or `## Title` (Markdown), escaped: corpus titles are untrusted plain text. The
 * abstract, which the ingest files as a section "Abstract", is an environment in LaTeX.
 */
export function sectionHeading(format: 'latex' | 'markdown', title: string): string {
  if (format === 'markdown') return `## ${escapeMarkdownProse(title)}`;
  if (/^abstract$/i.test(title.trim())) return '\\begin{abstract}\n\\end{abstract}';
  return `\\section{${escapeLatex(title)}}`;
}
