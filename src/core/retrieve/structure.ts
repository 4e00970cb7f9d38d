// The corpus's section structure (CorpusStudio's ordered distribution of section titles): which section titles
// papers of the corpus use, how many papers use each, and where in a paper each typically comes, in that order;
// with `cluster`, titles that say the same thing at the same place are one row (CorpusStudio's "Positional Diction
// Clustering", arXiv 2503.12436; the rule is at clusterTitles). Pure: the rows come from CorpusStore.sectionTitles().

import type { SectionTitle } from '../store/types.js';
import { escapeLatex, escapeMarkdownProse } from '../text/escape.js';
import { isStopWord } from '../text/stop-words.js';

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
  /**
   * The titles of the row, the row's own first, then by papers (a clustered row lists every title it holds; without
   * clustering, the one title). `papers`: papers with a section of that title.
   */
  variants: { key: string; title: string; papers: number }[];
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
  /** Titles that say the same thing at the same place are one row (clusterTitles; default false: one row a title). */
  cluster?: boolean;
  /**
   * The corpus's paper count, when the caller holds it: the denominator of every share, so that the view says the
   * same number of papers as the rest of the extension (default: the papers with a titled section).
   */
  corpusPapers?: number;
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

/** One title (a normalised key) and where each paper that has it puts it first. */
interface TitleGroup {
  key: string;
  /** Paper id → relative position of its first section of this title. */
  positions: Map<string, number>;
  spellings: Map<string, number>;
  clean: Map<string, number>;
}

/**
 * Words that name the same part of a paper (their first spelling stands for all): a title's wording is compared
 * through them, so "Background" and "Prior Work" say what "Related Work" says. Deliberately small: the parts every
 * field has; anything else is compared by its own words.
 */
const SAME_PART: readonly (readonly string[])[] = [
  ['related', 'prior', 'previous', 'background', 'literature'],
  ['conclusion', 'concluding', 'summary'],
  ['method', 'methodology', 'approach'],
  ['experiment', 'experimental', 'evaluation'],
  ['introduction', 'intro'],
  ['limitation', 'limitations'],
];
const PART_OF = new Map(SAME_PART.flatMap((words) => words.map((w) => [w, words[0]] as const)));
/** Words too general to say which part a title names ("Related Work" and "Future Work" share only "work"). */
const GENERAL = new Set(['work', 'works', 'section', 'sections', 'study', 'paper', 'remarks', 'overview', 'details']);

/** The words a title names its part by: content words, plurals folded, same-part words as one. */
export function titleWords(key: string): Set<string> {
  const words = new Set<string>();
  for (const raw of key.split(/[^\p{L}\p{N}]+/u)) {
    if (!raw || isStopWord(raw) || GENERAL.has(raw)) continue;
    const w = raw.length > 4 && raw.endsWith('s') && !raw.endsWith('ss') ? raw.slice(0, -1) : raw;
    words.add(PART_OF.get(w) ?? PART_OF.get(raw) ?? w);
  }
  return words;
}

/** How far apart (relative position, 0..1) two titles may typically be and still be one row. */
export const CLUSTER_POSITION_WINDOW = 0.2;

const contains = (a: Set<string>, b: Set<string>) => [...b].every((w) => a.has(w));

/**
 * The clustering rule (Positional Diction Clustering): titles are taken from the most used down; a title joins the
 * row of a more used title when (1) the words of one contain the other's (titleWords: content words, plurals folded,
 * same-part words as one, general words such as "work" left out; a title with none joins nothing) and (2) their
 * median positions differ by at most CLUSTER_POSITION_WINDOW; of several such rows, the most used. Otherwise it
 * starts a row of its own. A row takes its most used title's name, so rows never chain: "Discussion and Conclusion"
 * joins Conclusion or Discussion, never both into one.
 */
function clusterTitles(groups: readonly TitleGroup[]): TitleGroup[][] {
  const stats = groups
    .map((g) => ({ g, papers: g.positions.size, position: median([...g.positions.values()]), words: titleWords(g.key) }))
    .sort((a, b) => b.papers - a.papers || a.position - b.position || a.g.key.localeCompare(b.g.key));
  const rows: { head: (typeof stats)[number]; members: TitleGroup[] }[] = [];
  for (const t of stats) {
    const row = t.words.size
      ? rows.find(
          ({ head }) =>
            head.words.size > 0 &&
            Math.abs(head.position - t.position) <= CLUSTER_POSITION_WINDOW &&
            (contains(head.words, t.words) || contains(t.words, head.words)),
        )
      : undefined;
    if (row) row.members.push(t.g);
    else rows.push({ head: t, members: [t.g] });
  }
  return rows.map((r) => r.members);
}

/**
 * The ordered distribution of section titles. A paper counts once per row (at its first section of that row's
 * titles); its relative position is the section's rank among the paper's sections / (sections − 1) (0 for a paper
 * with one section). Null and empty titles are skipped but still count as sections of their paper. The most frequent
 * rows are kept (see {@link StructureOptions}) and listed by median position, then by how many papers use them.
 */
export function sectionStructure(rows: readonly SectionTitleRow[], options: StructureOptions = {}): SectionStructure {
  const byPaper = new Map<string, SectionTitleRow[]>();
  for (const r of rows) {
    const list = byPaper.get(r.paperId) ?? [];
    list.push(r);
    byPaper.set(r.paperId, list);
  }
  const groups = new Map<string, TitleGroup>();
  let papers = 0;
  for (const [paperId, sections] of byPaper) {
    const indexes = [...new Set(sections.map((s) => s.sectionIndex))].sort((a, b) => a - b);
    const rank = new Map(indexes.map((index, i) => [index, i]));
    const last = indexes.length - 1;
    let titled = false;
    for (const s of [...sections].sort((a, b) => a.sectionIndex - b.sectionIndex)) {
      const raw = s.title?.replace(/\s+/g, ' ').trim();
      if (!raw) continue;
      const key = normalizeSectionTitle(raw);
      if (!key) continue;
      titled = true;
      const g = groups.get(key) ?? {
        key,
        positions: new Map<string, number>(),
        spellings: new Map<string, number>(),
        clean: new Map<string, number>(),
      };
      groups.set(key, g);
      g.spellings.set(raw, (g.spellings.get(raw) ?? 0) + 1);
      const clean = cleanSectionTitle(raw);
      g.clean.set(clean, (g.clean.get(clean) ?? 0) + 1);
      if (!g.positions.has(paperId)) g.positions.set(paperId, last > 0 ? rank.get(s.sectionIndex)! / last : 0);
    }
    if (titled) papers++;
  }
  const minPapers = options.minPapers ?? (papers < 3 ? 1 : 2);
  const limit = options.limit ?? DEFAULT_STRUCTURE_LIMIT;
  const total = options.corpusPapers ?? papers;
  const byCount = (a: [string, number], b: [string, number]) => b[1] - a[1] || a[0].localeCompare(b[0]);
  const titleOf = (g: TitleGroup) =>
    [...g.clean.entries()].sort((a, b) => b[1] - a[1] || Number(shouting(a[0])) - Number(shouting(b[0])) || a[0].localeCompare(b[0]))[0][0];
  const clusters = options.cluster ? clusterTitles([...groups.values()]) : [...groups.values()].map((g) => [g]);
  const sections: SectionStat[] = clusters
    .map((members) => {
      const positions = new Map<string, number>();
      const spellings = new Map<string, number>();
      for (const g of members) {
        for (const [paper, p] of g.positions) positions.set(paper, Math.min(p, positions.get(paper) ?? p));
        for (const [text, n] of g.spellings) spellings.set(text, (spellings.get(text) ?? 0) + n);
      }
      const head = members[0];
      return {
        key: head.key,
        title: titleOf(head),
        spellings: [...spellings.entries()].sort(byCount).map(([text, count]) => ({ text, count })),
        papers: positions.size,
        share: total ? positions.size / total : 0,
        position: median([...positions.values()]),
        variants: members
          .map((g) => ({ key: g.key, title: titleOf(g), papers: g.positions.size }))
          .sort((a, b) => Number(b.key === head.key) - Number(a.key === head.key) || b.papers - a.papers || a.key.localeCompare(b.key)),
      };
    })
    .filter((s) => s.papers >= minPapers)
    .sort((a, b) => b.papers - a.papers || a.position - b.position || a.key.localeCompare(b.key))
    .slice(0, Math.max(0, limit))
    .sort((a, b) => a.position - b.position || b.papers - a.papers || a.key.localeCompare(b.key));
  return { papers: total, sections };
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

/**
 * The rows of `structure` the paper already has, by row key: a heading of the paper whose title is one of the row's
 * titles, or whose words hold one of them (titleWords: "Related Works" is Related Work; "Conclusions and Future Work"
 * has the Conclusion). A LaTeX paper's abstract environment is its "Abstract".
 */
export function sectionsInPaper(
  structure: Pick<SectionStructure, 'sections'>,
  paper: { headings: readonly { title: string; start: number }[]; text: string; format: 'latex' | 'markdown' | 'text' },
): Map<string, number> {
  const headings = paper.headings.map((h) => ({ key: normalizeSectionTitle(h.title), start: h.start }));
  if (paper.format === 'latex') {
    const abstract = /\\begin\s*\{abstract\}/.exec(stripLatexComments(paper.text));
    if (abstract) headings.push({ key: 'abstract', start: abstract.index });
  }
  const have = new Map<string, number>();
  for (const row of structure.sections) {
    const named = row.variants.map((v) => ({ key: v.key, words: titleWords(v.key) }));
    const found = headings.find((h) => {
      const words = titleWords(h.key);
      return named.some((v) => v.key === h.key || (v.words.size > 0 && contains(words, v.words)));
    });
    if (found) have.set(row.key, found.start);
  }
  return have;
}

/** LaTeX with its % comments blanked (same length; an escaped \% stays): a commented-out \begin{abstract} is none. */
function stripLatexComments(text: string): string {
  return text.replace(/(^|[^\\])(%.*)$/gm, (_, before: string, comment: string) => before + ' '.repeat(comment.length));
}
