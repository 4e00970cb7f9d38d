// Step 9: emit — LaTeX (\subsection or \paragraph headings, \cite-family commands per setting) or Markdown
// (### headings, [@key]), the BibTeX entries of exactly the cited papers, and optional comparison tables for
// list sections. Short ids are mapped to keys here, and only here.
import type { PaperRef } from '../store/types.js';
import { findExisting, formatBibtexEntry, makeCitationKey } from './bibtex.js';
import type { CiteCommand, CitedPaper, CopiedSpan, ExistingBibEntry, OutputFormat, PaperCandidate, SectionFormat } from './types.js';

/** Escapes model prose for LaTeX (it was told to write plain text). */
export function escapeLatex(s: string): string {
  return s
    .replace(/\\/g, '\u0000')
    .replace(/([&%$#_{}])/g, '\\$1')
    .replace(/~/g, '\\textasciitilde{}')
    .replace(/\^/g, '\\textasciicircum{}')
    .replace(/\u0000/g, '\\textbackslash{}');
}

/** Assigns keys to the cited papers (first citation first), reusing existing .bib keys by DOI/title. */
export function assignKeys(
  citedShortIds: readonly string[],
  papers: readonly PaperCandidate[],
  existing: readonly ExistingBibEntry[] = [],
): CitedPaper[] {
  const byShort = new Map(papers.map((p) => [p.shortId, p]));
  const taken = new Set(existing.map((e) => e.key));
  const out: CitedPaper[] = [];
  for (const id of citedShortIds) {
    const p = byShort.get(id);
    if (!p || out.some((c) => c.shortId === id)) continue;
    out.push(citedPaper(p.paper, id, existing, taken));
  }
  return out;
}

export function citedPaper(paper: PaperRef, shortId: string, existing: readonly ExistingBibEntry[], taken: Set<string>): CitedPaper {
  const found = findExisting(paper, existing);
  const key = found?.key ?? makeCitationKey(paper, taken);
  taken.add(key);
  return { key, shortId, paper, bibtex: formatBibtexEntry(paper, key), reused: !!found };
}

const SHORT_RUN = /(\s*)((?:\[P\d+\])+)/g;

/** Replaces short-id citation runs with the format's citation syntax; the rest of the text via `escape`. */
export function renderCitations(
  text: string,
  keyOf: ReadonlyMap<string, string>,
  format: OutputFormat,
  cite: CiteCommand,
  escape: (s: string) => string,
): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(SHORT_RUN)) {
    out += escape(text.slice(last, m.index));
    last = m.index! + m[0].length;
    const keys = [...m[2].matchAll(/\[(P\d+)\]/g)].map((x) => keyOf.get(x[1])).filter((k): k is string => !!k);
    if (!keys.length) continue; // (the check step removed these already)
    if (format === 'latex') out += `${m[1] ? '~' : ''}\\${cite}{${keys.join(',')}}`;
    else out += `${m[1] ? ' ' : ''}[${keys.map((k) => `@${k}`).join('; ')}]`;
  }
  return out + escape(text.slice(last));
}

function listItems(text: string): { items: string[]; rest: string[] } {
  const items: string[] = [];
  const rest: string[] = [];
  for (const raw of text.split('\n')) {
    const l = raw.trim();
    if (!l) continue;
    const m = /^(?:[-*•]|\d+[.)])\s+(.*)$/.exec(l);
    if (m) items.push(m[1]);
    else if (items.length) items[items.length - 1] += ` ${l}`;
    else rest.push(l);
  }
  return { items, rest };
}

export interface EmitOptions {
  format: OutputFormat;
  cite: CiteCommand;
  sectionCommand: 'subsection' | 'paragraph';
  tables: boolean;
}

function flagLines(spans: readonly CopiedSpan[], keyOfPaper: ReadonlyMap<string, string>, format: OutputFormat): string[] {
  return spans.map((s) => {
    const head = s.text.split(' ').slice(0, 6).join(' ');
    const key = keyOfPaper.get(s.paperId) ?? s.paperId;
    const msg = `Corpus Lens check: ${s.words} consecutive words ("${head} …") are copied from a sentence of ${key}: rephrase, or quote them explicitly with a citation.`;
    return format === 'latex' ? `% ${msg}` : `<!-- ${msg.replace(/--/g, '- -')} -->`;
  });
}

/** One section's emitted body: heading, prose or list (citations as keys), flags for copied spans, optional table. */
export function renderSection(
  section: { title: string; format: SectionFormat; text: string; copiedSpans: readonly CopiedSpan[] },
  keyOf: ReadonlyMap<string, string>,
  keyOfPaper: ReadonlyMap<string, string>,
  cited: readonly CitedPaper[],
  o: EmitOptions,
): { body: string; table?: string } {
  const latex = o.format === 'latex';
  const esc = latex ? escapeLatex : (s: string) => s;
  const r = (t: string) => renderCitations(t, keyOf, o.format, o.cite, esc);
  const lines: string[] = [];
  lines.push(latex ? `\\${o.sectionCommand}{${escapeLatex(section.title)}}` : `### ${section.title}`);
  let table: string | undefined;
  const { items, rest } = section.format === 'list' ? listItems(section.text) : { items: [], rest: [] };
  if (section.format === 'list' && items.length) {
    if (rest.length) lines.push(r(rest.join(' ')), '');
    if (latex) lines.push('\\begin{itemize}', ...items.map((i) => `  \\item ${r(i)}`), '\\end{itemize}');
    else lines.push(...items.map((i) => `- ${r(i)}`));
    if (o.tables) table = comparisonTable(section.title, items, keyOf, cited, o);
  } else {
    const paragraphs = section.text.split(/\n\s*\n/).map((p) => p.replace(/\s*\n\s*/g, ' ').trim()).filter(Boolean);
    lines.push(paragraphs.map(r).join('\n\n'));
  }
  if (table) lines.push('', table);
  const flags = flagLines(section.copiedSpans, keyOfPaper, o.format);
  if (flags.length) lines.push(...flags);
  return { body: lines.join('\n'), table };
}

/** A comparison table for a list section: one row per cited paper — citation, year, venue, the item citing it. */
export function comparisonTable(
  title: string,
  items: readonly string[],
  keyOf: ReadonlyMap<string, string>,
  cited: readonly CitedPaper[],
  o: Pick<EmitOptions, 'format' | 'cite'>,
): string | undefined {
  const rows: { key: string; paper: PaperRef; point: string }[] = [];
  for (const item of items) {
    const point = item.replace(/\s*(?:\[P\d+\])+/g, '').trim();
    for (const m of item.matchAll(/\[(P\d+)\]/g)) {
      const key = keyOf.get(m[1]);
      const c = cited.find((x) => x.key === key);
      if (key && c && !rows.some((r) => r.key === key)) rows.push({ key, paper: c.paper, point });
    }
  }
  if (!rows.length) return undefined;
  if (o.format === 'latex') {
    const cell = (s: string) => escapeLatex(s);
    return [
      '\\begin{table}[htbp]',
      '  \\centering\\small',
      '  \\begin{tabular}{p{0.2\\linewidth}p{0.07\\linewidth}p{0.15\\linewidth}p{0.48\\linewidth}}',
      '    \\hline',
      '    Work & Year & Venue & Approach \\\\',
      '    \\hline',
      ...rows.map((r) => `    \\${o.cite}{${r.key}} & ${r.paper.year ?? ''} & ${cell(r.paper.venue ?? '')} & ${cell(r.point)} \\\\`),
      '    \\hline',
      '  \\end{tabular}',
      `  \\caption{${escapeLatex(title)}: comparison.}`,
      '\\end{table}',
    ].join('\n');
  }
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| Work | Year | Venue | Approach |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| [@${r.key}] | ${r.paper.year ?? ''} | ${cell(r.paper.venue ?? '')} | ${cell(r.point)} |`),
  ].join('\n');
}
