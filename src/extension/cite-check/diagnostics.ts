// Citation diagnostics: each cited key checked against the cited paper's own sentences (core's checkDocument), live
// on save for the saved file and by "Check Citations in This Paper" over the whole project (`\input` files too).
// A supported citation gets no diagnostic (its hover shows the support); each diagnostic names the paper and the
// sentence it judged by. What was found is kept per file for the quick fixes and the hover.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BibIndex } from '../../core/bib/bib-index.js';
import type { CitationSite, SiteCiteResult, Alternative, Evidence } from '../../core/cite-check/types.js';
import { heavy } from '../load.js';
import { CiteSources, type ProjectBib } from './sources.js';
import { mainFileOf } from '../cite/project-bib.js';
import { citationNeededEnabled, citeCommands } from './settings.js';
import { lineStarts, positionAt } from '../../core/text/lines.js';

export const DIAGNOSTIC_SOURCE = 'Corpus Lens';

/** What a diagnostic (or a supported citation, for the hover) was made from. */
export type Finding =
  | { kind: 'cite'; site: CitationSite; cite: SiteCiteResult; keyRange: vscode.Range; format: 'latex' | 'markdown'; bib: ProjectBib }
  | {
      kind: 'citationNeeded';
      sentence: string;
      range: vscode.Range;
      suggestion: Alternative;
      format: 'latex' | 'markdown';
      bib: ProjectBib;
    };

interface FileFindings {
  version: number | null;
  findings: Finding[];
}

export class CitationChecker implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('corpusLens.citations');
  private readonly found = new Map<string, FileFindings>();

  constructor(
    private readonly sources: CiteSources,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The findings for a document (stale ones, from an older version of its text, are dropped). */
  findingsFor(doc: vscode.TextDocument): Finding[] {
    const f = this.found.get(doc.uri.toString());
    if (!f || (f.version !== null && f.version !== doc.version)) return [];
    return f.findings;
  }

  /** Checks one document's own citations (on save). Returns the number of diagnostics. */
  async checkDocument(doc: vscode.TextDocument, token?: vscode.CancellationToken): Promise<number> {
    const format = CiteSources.format(doc);
    if (!format) return 0;
    const bib = await this.sources.bib(doc);
    const ctx = await this.sources.checkContext(bib.index);
    if (!ctx || token?.isCancellationRequested) return 0;
    const notInCorpus = new Set<string>();
    return this.checkText(doc.uri, doc.getText(), doc.version, format, bib, ctx, notInCorpus);
  }

  /**
   * Checks the whole project of a document: a LaTeX main file with its `\input`/`\include` files (the file holding
   * `\documentclass` in the workspace that reaches this one, else this one), or the Markdown paper. Returns the
   * files checked and the number of diagnostics.
   */
  async checkProject(
    doc: vscode.TextDocument,
    progress?: (line: string) => void,
  ): Promise<{ files: string[]; problems: number; warnings: string[] }> {
    const format = CiteSources.format(doc);
    if (!format) throw new Error('open a LaTeX or Markdown paper to check its citations');
    const main = format === 'latex' ? await mainFileOf(doc) : doc.uri.fsPath;
    const project =
      format === 'latex'
        ? heavy().findProjectCitations(main, { commands: citeCommands(doc.uri) })
        : { files: [main], warnings: [] as string[] };
    const mainDoc = main === doc.uri.fsPath ? doc : await vscode.workspace.openTextDocument(vscode.Uri.file(main));
    const bib = await this.sources.bib(mainDoc);
    const ctx = await this.sources.checkContext(bib.index);
    if (!ctx) throw new Error('no corpus to check the citations against: add the cited papers first (Corpus Lens: Add Papers…)');
    const notInCorpus = new Set<string>();
    let problems = 0;
    for (const file of project.files) {
      progress?.(path.basename(file));
      const uri = vscode.Uri.file(file);
      const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file);
      const text = open?.getText() ?? Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
      problems += await this.checkText(open?.uri ?? uri, text, open?.version ?? null, format, bib, ctx, notInCorpus);
    }
    for (const w of project.warnings) this.log.warn(`check citations: ${w}`);
    return { files: project.files, problems, warnings: project.warnings };
  }

  private async checkText(
    uri: vscode.Uri,
    text: string,
    version: number | null,
    format: 'latex' | 'markdown',
    bib: ProjectBib,
    ctx: NonNullable<Awaited<ReturnType<CiteSources['checkContext']>>>,
    notInCorpus: Set<string>,
  ): Promise<number> {
    const started = Date.now();
    const report = await heavy().checkDocument(
      ctx,
      { text, format, file: uri.fsPath, bib: bib.index },
      {
        commands: citeCommands(uri),
        citationNeeded: citationNeededEnabled(uri),
        alternatives: 2,
      },
    );
    const at = positionsOf(text);
    const findings: Finding[] = [];
    const diagnostics: vscode.Diagnostic[] = [];
    for (const { site, cites } of report.sites) {
      for (const cite of cites) {
        const kr = site.keyRanges.find((k) => k.key === cite.key) ?? site.range;
        const finding: Finding = { kind: 'cite', site, cite, keyRange: new vscode.Range(at(kr.start), at(kr.end)), format, bib };
        findings.push(finding);
        const d = diagnosticFor(finding, bib.index, notInCorpus);
        if (d) diagnostics.push(d);
      }
    }
    for (const n of report.citationNeeded) {
      const finding: Finding = {
        kind: 'citationNeeded',
        sentence: n.sentence.text,
        range: new vscode.Range(at(n.sentence.range.start), at(n.sentence.range.end)),
        suggestion: n.suggestion,
        format,
        bib,
      };
      findings.push(finding);
      diagnostics.push(citationNeededDiagnostic(finding));
    }
    this.found.set(uri.toString(), { version, findings });
    this.collection.set(uri, diagnostics);
    this.log.info(
      `check citations: ${path.basename(uri.fsPath)}: ${report.sites.length} citations, ${diagnostics.length} problems (${Date.now() - started} ms)`,
    );
    return diagnostics.length;
  }

  /** Forgets a file's findings (its text changed: the ranges no longer hold). */
  clear(uri: vscode.Uri): void {
    this.found.delete(uri.toString());
  }

  dispose(): void {
    this.collection.dispose();
  }
}

/** Codes the quick fixes dispatch on. */
export const CODES = {
  missing: 'missing-from-bib',
  unsupported: 'unsupported',
  contradicted: 'contradicted',
  notInCorpus: 'not-in-corpus',
  needed: 'citation-needed',
} as const;

function diagnosticFor(f: Extract<Finding, { kind: 'cite' }>, bib: BibIndex, notInCorpus: Set<string>): vscode.Diagnostic | undefined {
  const { cite, site } = f;
  const said = `“${clip(site.sentence.text, 140)}”`;
  if (cite.status === 'missing-from-bib') {
    const from = cite.paper ? `; the corpus has it (${paperName(cite.paper)}): add its entry` : '';
    return diag(f.keyRange, `"${cite.key}" is defined in no .bib of this project${from}.`, vscode.DiagnosticSeverity.Error, CODES.missing);
  }
  if (cite.status === 'not-in-corpus') {
    if (notInCorpus.has(cite.key)) return undefined;
    notInCorpus.add(cite.key);
    const title = bib.match({ citationKey: cite.key })?.title;
    return diag(
      f.keyRange,
      `"${cite.key}"${title ? ` (${clip(title, 80)})` : ''} is not in the corpus — add it to check its citations.`,
      vscode.DiagnosticSeverity.Information,
      CODES.notInCorpus,
    );
  }
  const check = cite.check;
  if (!check || check.verdict === 'supported' || check.verdict === 'not-in-corpus') return undefined;
  const best = check.quote ?? check.evidence[0];
  const closest = best ? ` Closest${where(best)}: “${clip(best.text, 160)}”.` : '';
  const verb = check.verdict === 'contradicted' ? 'contradicts' : 'does not support';
  const judged = check.judgedBy === 'llm' ? ` (${check.reason})` : ` (support ${check.score.toFixed(2)} < ${check.threshold.toFixed(2)})`;
  return diag(
    f.keyRange,
    `${paperName(check.paper)} [${cite.key}] ${verb} the sentence ${said}${judged}.${closest}`,
    vscode.DiagnosticSeverity.Warning,
    check.verdict === 'contradicted' ? CODES.contradicted : CODES.unsupported,
  );
}

function citationNeededDiagnostic(f: Extract<Finding, { kind: 'citationNeeded' }>): vscode.Diagnostic {
  const best = f.suggestion.evidence[0];
  const quote = best ? `: “${clip(best.text, 160)}”${where(best)}` : '';
  return diag(
    f.range,
    `Citation needed? ${paperName(f.suggestion.paper)} supports “${clip(f.sentence, 140)}”${quote}.`,
    vscode.DiagnosticSeverity.Information,
    CODES.needed,
  );
}

function diag(range: vscode.Range, message: string, severity: vscode.DiagnosticSeverity, code: string): vscode.Diagnostic {
  const d = new vscode.Diagnostic(range, message, severity);
  d.source = DIAGNOSTIC_SOURCE;
  d.code = code;
  return d;
}

/** “Title” (Author, year). */
export function paperName(p: { title: string | null; authors: string[]; year: number | null } | null): string {
  if (!p) return 'The cited paper';
  const who = p.authors[0] ? `${p.authors[0].split(/\s+/).pop()}${p.authors.length > 1 ? ' et al.' : ''}` : null;
  const tail = [who, p.year].filter(Boolean).join(', ');
  return `“${clip(p.title ?? 'Untitled', 90)}”${tail ? ` (${tail})` : ''}`;
}

/** ` (p. 3, lines 4–6)`, or '' for a sentence without a page. */
export function where(e: Evidence): string {
  const parts = [e.page ? `p. ${e.page}` : null, e.lines ? `lines ${e.lines.start}–${e.lines.end}` : null].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

export function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

/** Offset → Position over a text that may not be open in an editor. */
function positionsOf(text: string): (offset: number) => vscode.Position {
  const starts = lineStarts(text);
  return (offset) => {
    const { line, character } = positionAt(starts, offset);
    return new vscode.Position(line, character);
  };
}
