// Step 9: emit — LaTeX (\subsection or \paragraph headings, \cite-family commands per setting) or Markdown
// (### headings, [@key]), the BibTeX entries of exactly the cited papers, and optional comparison tables for
// list sections. Short ids are mapped to keys here, and only here.
import type { PaperRef } from '../store/types.js';
import { formatBibtexEntry, makeCitationKey } from '../bib/format.js';
import type { BibIndex } from '../bib/bib-index.js';
import { assessSupport, type SectionUnit } from '../grounding/index.js';
import type { CitationCommand } from '../bib/cite.js';
import { escapeLatex, escapeMarkdownCell, escapeMarkdownProse } from '../text/escape.js';
import { mendDroppedReferences } from '../text/references.js';
import type { CitedPaper, CopiedSpan, OutputFormat, PaperCandidate, SectionFormat, SentenceReport, VerifiedQuote } from './types.js';

/** Assigns keys to the cited papers (first citation first), reusing the keys of papers the .bib has (BibIndex.find). */
export function assignKeys(citedShortIds: readonly string[], papers: readonly PaperCandidate[], existing?: BibIndex): CitedPaper[] {
  const byShort = new Map(papers.map((p) => [p.shortId, p]));
  const taken = new Set(existing?.keys ?? []);
  const out: CitedPaper[] = [];
  for (const id of citedShortIds) {
    const p = byShort.get(id);
    if (!p || out.some((c) => c.shortId === id)) continue;
    out.push(citedPaper(p.paper, id, existing, taken));
  }
  return out;
}

/** The key of the entry the .bib has for the paper (the answer Cite gets from the same index), else a new one. */
export function citedPaper(paper: PaperRef, shortId: string, existing: BibIndex | undefined, taken: Set<string>): CitedPaper {
  const found = existing?.find(paper);
  const key = found?.key ?? makeCitationKey(paper, taken);
  taken.add(key);
  return { key, shortId, paper, bibtex: formatBibtexEntry(paper, key), reused: !!found };
}

/**
 * The entries "Append BibTeX" adds to the .bib as it is now (it may have changed since the run): those of the cited
 * papers whose key it does not use yet. A paper it holds under the key the draft cites is not added twice.
 */
export function entriesToAppend(cited: readonly CitedPaper[], bib: BibIndex): string[] {
  return cited.filter((c) => !bib.hasKey(c.key)).map((c) => c.bibtex);
}

const SHORT_RUN = /(\s*)((?:\[P\d+\])+)/g;

/** Replaces short-id citation runs with the format's citation syntax; the rest of the text via `escape`. */
export function renderCitations(
  text: string,
  keyOf: ReadonlyMap<string, string>,
  format: OutputFormat,
  cite: CitationCommand,
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

export interface EmitOptions {
  format: OutputFormat;
  cite: CitationCommand;
  sectionCommand: 'subsection' | 'paragraph';
  tables: boolean;
  /** Backing quotes under each paragraph (LaTeX comments / Markdown footnotes). */
  provenance?: boolean;
}

/** What a section's sentences rest on, for the provenance notes. */
export interface ProvenanceContext {
  quotes: ReadonlyMap<string, VerifiedQuote>;
  /** Corpus paper id → citation key. */
  keyOfPaper: ReadonlyMap<string, string>;
}

const FLAG = 'Corpus Lens: unsupported';

function oneLine(s: string, max = 400): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The provenance note of one sentence: its backing quotes (and, when flagged, why it is unsupported). */
function provenanceLine(s: SentenceReport, ctx: ProvenanceContext, format: OutputFormat): string | null {
  const backing = s.quoteIds
    .map((id) => ctx.quotes.get(id))
    .filter((q): q is VerifiedQuote => !!q)
    .map((q) => {
      const key = ctx.keyOfPaper.get(q.paperId) ?? q.paperId;
      return format === 'latex'
        ? `${q.id} (${key}): "${oneLine(q.text)}"`
        : `${q.id} [@${key}]: \u201c${escapeMarkdownProse(oneLine(q.text))}\u201d`;
    });
  const reasons = format === 'latex' ? s.reasons.join('; ') : escapeMarkdownProse(s.reasons.join('; '));
  const why = s.verdict === 'unsupported' ? `UNSUPPORTED (kept by the setting corpusLens.review.unsupported = flag): ${reasons}` : '';
  if (!backing.length && !why) return null;
  const body = [why, backing.length ? `backed by ${backing.join('; ')}` : ''].filter(Boolean).join(' — ');
  return `${s.id} (support ${s.support.toFixed(2)}${s.llmVerdict ? `, model: ${s.llmVerdict}` : ''}): ${body}`;
}

function flagLines(spans: readonly CopiedSpan[], keyOfPaper: ReadonlyMap<string, string>, format: OutputFormat): string[] {
  return spans.map((s) => {
    const head = s.text.split(' ').slice(0, 6).join(' ');
    const key = keyOfPaper.get(s.paperId) ?? s.paperId;
    const msg = `Corpus Lens check: ${s.words} consecutive words ("${head} …") are copied from a sentence of ${key}: rephrase, or quote them explicitly with a citation.`;
    return format === 'latex' ? `% ${msg}` : `<!-- ${msg.replace(/--/g, '- -')} -->`;
  });
}

/**
 * One section's emitted body from its checked sentences: heading, paragraphs or a list (citations as keys, copied
 * quote runs as quotations, unsupported sentences that are kept flagged visibly), each paragraph/list followed by
 * its sentences' backing quotes when `provenance` is on (LaTeX % comments; Markdown footnotes), optional table.
 */
export function renderUnits(
  section: {
    title: string;
    format: SectionFormat;
    units: readonly SectionUnit[];
    keep: (s: SentenceReport) => boolean;
    copiedSpans: readonly CopiedSpan[];
  },
  keyOf: ReadonlyMap<string, string>,
  cited: readonly CitedPaper[],
  o: EmitOptions,
  ctx: ProvenanceContext,
): { body: string; table?: string } {
  const latex = o.format === 'latex';
  const esc = latex ? escapeLatex : escapeMarkdownProse;
  const r = (t: string) => renderCitations(t, keyOf, o.format, o.cite, esc);
  const lines: string[] = [latex ? `\\${o.sectionCommand}{${escapeLatex(section.title)}}` : `### ${escapeMarkdownProse(section.title)}`];
  const notes: string[] = [];
  const sentence = (s: SentenceReport) => {
    const flag = s.verdict === 'unsupported' ? (latex ? `\\textbf{[${FLAG}]} ` : `**[${FLAG}]** `) : '';
    const note = o.provenance ? provenanceLine(s, ctx, o.format) : null;
    const mark = note && !latex ? `[^${s.id.replace('.', '-')}]` : '';
    if (note) notes.push(latex ? `% ${note}` : `${mark}: ${note}`);
    else if (flag) notes.push(latex ? `% ${s.id}: UNSUPPORTED: ${oneLine(s.reasons.join('; '))}` : '');
    return `${flag}${r(mendDroppedReferences(s.text))}${mark}`;
  };
  const flushNotes = () => {
    const kept = notes.filter(Boolean);
    if (kept.length) lines.push(...(latex ? kept : ['', ...kept]));
    notes.length = 0;
  };
  const items: SentenceReport[][] = [];
  let inList = false;
  for (const u of section.units) {
    const kept = u.sentences.filter(section.keep);
    if (!kept.length) continue;
    if (u.kind === 'item') {
      // Pandoc (the Markdown that reads [@key]) starts a list only after a blank line.
      if (!inList && !latex && lines.length > 1) lines.push('');
      if (!inList && latex) lines.push('\\begin{itemize}');
      inList = true;
      const text = kept.map(sentence).join(' ');
      items.push(kept);
      lines.push(latex ? `  \\item ${text}` : `- ${text}`);
      continue;
    }
    if (inList) {
      if (latex) lines.push('\\end{itemize}');
      inList = false;
      flushNotes();
    }
    if (lines.length > 1) lines.push('');
    lines.push(kept.map(sentence).join(' '));
    flushNotes();
  }
  if (inList) {
    if (latex) lines.push('\\end{itemize}');
    flushNotes();
  }
  let table: string | undefined;
  if (o.tables && section.format === 'list' && items.length) table = comparisonTable(section.title, items, keyOf, cited, o, ctx.quotes);
  if (table) lines.push('', table);
  const flags = flagLines(section.copiedSpans, ctx.keyOfPaper, o.format);
  if (flags.length) lines.push(...flags);
  return { body: lines.join('\n'), table };
}

/**
 * A comparison table for a list section: one row per cited paper — citation, year, venue, and what the list says
 * of it: the first kept sentence citing it, citations removed. Each such cell is checked like prose, against the
 * verified quotes of that paper alone (a sentence citing two papers may be supported only by both together): a
 * cell they do not support leaves the paper out of the table.
 */
export function comparisonTable(
  title: string,
  items: readonly (readonly SentenceReport[])[],
  keyOf: ReadonlyMap<string, string>,
  cited: readonly CitedPaper[],
  o: Pick<EmitOptions, 'format' | 'cite'>,
  quotes: ReadonlyMap<string, VerifiedQuote>,
): string | undefined {
  const rows: { key: string; paper: PaperRef; point: string }[] = [];
  for (const s of items.flat()) {
    const point = s.text.replace(/\s*(?:\[P\d+\])+/g, '').trim();
    for (const m of s.text.matchAll(/\[(P\d+)\]/g)) {
      const key = keyOf.get(m[1]);
      const c = cited.find((x) => x.key === key);
      if (!key || !c || rows.some((r) => r.key === key)) continue;
      const own = s.quoteIds.map((id) => quotes.get(id)).filter((q): q is VerifiedQuote => q?.paperId === c.paper.id);
      if (
        !own.length ||
        assessSupport(
          point,
          own.map((q) => q.text),
          { allowedNumbers: c.paper.year ? [c.paper.year] : [] },
        ).verdict !== 'supported'
      )
        continue;
      rows.push({ key, paper: c.paper, point });
    }
  }
  if (!rows.length) return undefined;
  if (o.format === 'latex') {
    return [
      '\\begin{table}[htbp]',
      '  \\centering\\small',
      '  \\begin{tabular}{p{0.2\\linewidth}p{0.07\\linewidth}p{0.15\\linewidth}p{0.48\\linewidth}}',
      '    \\hline',
      '    Work & Year & Venue & Approach \\\\',
      '    \\hline',
      ...rows.map(
        (r) => `    \\${o.cite}{${r.key}} & ${r.paper.year ?? ''} & ${escapeLatex(r.paper.venue ?? '')} & ${escapeLatex(r.point)} \\\\`,
      ),
      '    \\hline',
      '  \\end{tabular}',
      `  \\caption{${escapeLatex(title)}: comparison.}`,
      '\\end{table}',
    ].join('\n');
  }
  return [
    '| Work | Year | Venue | Approach |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (r) => `| [@${r.key}] | ${r.paper.year ?? ''} | ${escapeMarkdownCell(r.paper.venue ?? '')} | ${escapeMarkdownCell(r.point)} |`,
    ),
  ].join('\n');
}
