// The corpus health report as Markdown: what `corpus-lens stats` prints and the *Corpus Health* document shows.
// Corpus text (titles, paths) is untrusted: it goes into code spans and table cells with its Markdown escaped.
import { escapeMarkdownText as md } from '../text/escape.js';
import type { DuplicateGroup, Fix, HealthReport, PaperBrief, PaperFinding, ProposedFinding } from './report.js';

function paperName(p: PaperBrief): string {
  const title = p.title?.trim() ? md(p.title.trim()) : '_(no title)_';
  // A made-up title is a display name: said to be one.
  const madeUp = p.titleMadeUpFrom ? ` _(made up from ${p.titleMadeUpFrom})_` : '';
  const key = p.citationKey ? ` \`${p.citationKey.replace(/`/g, "'")}\`` : '';
  return `${title}${madeUp}${key} — ${p.kind}, ${p.sentences} sentences`;
}

function fixLines(fix: Fix): string[] {
  // The fix's text is the report's own (no corpus text): written as is.
  const lines = [`  - Fix (${fix.action}): ${fix.text}`];
  // A fenced block: the command is copied as is (paths with Markdown characters stay intact).
  if (fix.command) lines.push('', '    ```sh', `    ${fix.command.replace(/[\r\n]+/g, ' ')}`, '    ```', '');
  return lines;
}

function findings(title: string, list: readonly PaperFinding[], why: string): string[] {
  if (!list.length) return [];
  const out = [`## ${title} (${list.length})`, '', why, ''];
  for (const f of list)
    out.push(`- ${paperName(f.paper)}${f.paper.sourcePath ? `<br>\`${f.paper.sourcePath.replace(/`/g, "'")}\`` : ''}`, ...fixLines(f.fix));
  out.push('');
  return out;
}

function proposedLines(list: readonly ProposedFinding[]): string[] {
  if (!list.length) return [];
  const out = [
    `## Metadata proposed by a model (${list.length})`,
    '',
    'PDFs that had no title: a chat model proposed it from the first page (with authors and year where the reader found none), each printed there; not confirmed.',
    '',
  ];
  for (const f of list) {
    const where = f.paper.sourcePath ? `<br>\`${f.paper.sourcePath.replace(/`/g, "'")}\`` : '';
    out.push(`- ${paperName(f.paper)}: title proposed by \`${f.model.replace(/`/g, "'")}\`${where}`, ...fixLines(f.fix));
  }
  out.push('');
  return out;
}

function duplicateLines(groups: readonly DuplicateGroup[]): string[] {
  if (!groups.length) return [];
  const reason = { doi: 'same DOI', arxiv: 'same arXiv id', title: 'same title', fingerprint: 'same text (share of shingles)' };
  const out = [
    `## Likely duplicates (${groups.length})`,
    '',
    'Papers that look like one work indexed twice; the first has the best text and is what a merge keeps.',
    '',
  ];
  for (const g of groups) {
    out.push(`- ${reason[g.reason]}: \`${g.key.replace(/`/g, "'")}\``);
    for (const p of g.papers) out.push(`  - ${paperName(p)}`);
    out.push(...fixLines(g.fix));
  }
  out.push('');
  return out;
}

/** The whole report, headed by its counts; a healthy corpus says so. */
export function healthMarkdown(r: HealthReport): string {
  const issues =
    r.missingTitle.length +
    r.missingAuthors.length +
    r.missingYear.length +
    r.anonymousKeys.length +
    r.proposedMetadata.length +
    r.stubs.length +
    r.duplicates.length +
    r.missingInputs.length;
  const out = [
    '# Corpus health',
    '',
    `${r.papers} papers, ${r.sentences} sentences; ${issues ? `${issues} findings` : 'nothing to fix'}.`,
    '',
    '| Source | Papers | Sentences |',
    '| --- | ---: | ---: |',
    ...r.bySource.map((s) => `| ${s.kind} | ${s.papers} | ${s.sentences} |`),
    '',
    ...duplicateLines(r.duplicates),
    ...findings(
      'Anonymous keys',
      r.anonymousKeys,
      'Citation keys made without authors (`anon…`): citing them is awkward and their authors are missing.',
    ),
    ...proposedLines(r.proposedMetadata),
    ...findings('Stub papers', r.stubs, 'Papers with few sentences: lookups and Ask find little in them.'),
    ...findings(
      'Without a title',
      r.missingTitle,
      'Papers without a title: shown by their file name or id everywhere (a LaTeX source without `\\title` by a name made up from its first heading or file name).',
    ),
    ...findings('Without authors', r.missingAuthors, 'Papers without authors: cited as "Unknown authors".'),
    ...findings('Without a year', r.missingYear, 'Papers without a year: year filters leave them out.'),
  ];
  if (r.missingInputs.length) {
    out.push(
      `## Missing \\input files (${r.missingInputs.length})`,
      '',
      'LaTeX projects whose main file names files that are not on disk (checked now: ingest does not store its warnings).',
      '',
    );
    for (const m of r.missingInputs) {
      out.push(`- ${paperName(m.paper)}: ${m.missing.map((f) => `\`${f.replace(/`/g, "'")}\``).join(', ')}`, ...fixLines(m.fix));
    }
    out.push('');
  }
  for (const n of r.notes) out.push(`> Note: ${n}`, '');
  return out.filter((line, i, all) => !(line === '' && all[i - 1] === '')).join('\n');
}
