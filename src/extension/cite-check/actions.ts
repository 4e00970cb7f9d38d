// The quick fixes of citation diagnostics. Each is one WorkspaceEdit (one undo: the key in the paper and, where the
// chosen paper is new to the .bib, its entry) or a command the author chooses; nothing is changed without the choice.
// Key edits come from core (replaceKeyEdit: the key between the braces / after the `@`, whole, never mid-word).
import * as vscode from 'vscode';
import type { Alternative, CitationSite } from '../../core/cite-check/types.js';
import type { PaperRef } from '../../core/store/types.js';
import type { CorpusService } from '../corpus/corpus.js';
import { heavy } from '../load.js';
import { readSettings } from '../shared/settings.js';
import { CODES, DIAGNOSTIC_SOURCE, clip, paperName, type CitationChecker, type Finding } from './diagnostics.js';
import type { CiteSources, ProjectBib } from './sources.js';
import { openIfExists } from '../cite/cite.js';

export const SHOW_CLOSEST_COMMAND = 'corpusLens.citeCheck.showClosest';
export const ADD_TO_CORPUS_COMMAND = 'corpusLens.citeCheck.addToCorpus';
/** Saves the .bib a quick fix added an entry to (Cite saves it too). */
export const SAVE_BIB_COMMAND = 'corpusLens.citeCheck.saveBib';

export class CitationFixes implements vscode.CodeActionProvider {
  static readonly providedCodeActionKinds = [vscode.CodeActionKind.QuickFix];

  constructor(
    private readonly checker: CitationChecker,
    private readonly sources: CiteSources,
    private readonly corpus: CorpusService,
  ) {}

  async provideCodeActions(
    doc: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): Promise<vscode.CodeAction[]> {
    const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && Object.values(CODES).includes(d.code as never));
    if (!ours.length) return [];
    const findings = this.checker.findingsFor(doc);
    const actions: vscode.CodeAction[] = [];
    for (const d of ours) {
      const f = findings.find((x) => (x.kind === 'cite' ? x.keyRange : x.range).isEqual(d.range));
      if (!f) continue;
      actions.push(...(await this.fixesFor(doc, f, d)));
    }
    return actions;
  }

  private async fixesFor(doc: vscode.TextDocument, f: Finding, d: vscode.Diagnostic): Promise<vscode.CodeAction[]> {
    if (f.kind === 'citationNeeded') {
      const a = f.suggestion;
      const action = fix(`Cite ${paperName(a.paper)}${quoteOf(a)}`, d);
      const { key, entry } = await this.keyFor(a, f.bib);
      const edit = new vscode.WorkspaceEdit();
      const text = doc.getText();
      const placed = heavy().placeCitation(text, f.format, doc.offsetAt(f.range.end), key, {
        command: readSettings(doc.uri).citation.command,
      });
      if (placed.text) edit.insert(doc.uri, doc.positionAt(placed.offset), placed.text);
      if (entry) await appendTo(edit, f.bib, entry);
      action.edit = edit;
      if (entry) action.command = saveBib(f.bib);
      action.isPreferred = true;
      return [action];
    }
    const { cite, site } = f;
    if (cite.status === 'missing-from-bib') return this.addEntryFixes(f.bib, cite.key, cite.paper, d);
    if (cite.status === 'not-in-corpus') {
      const action = fix(`Add "${cite.key}" to the corpus to check it (fetch its open full text)…`, d);
      action.command = { command: ADD_TO_CORPUS_COMMAND, title: 'Add to corpus', arguments: [cite.key, f.bib.files.map((u) => u.fsPath)] };
      return [action];
    }
    const check = cite.check;
    if (!check || check.verdict === 'supported') return [];
    const out: vscode.CodeAction[] = [];
    const closest = fix(`Show where ${paperName(check.paper)} comes closest`, d);
    closest.command = {
      command: SHOW_CLOSEST_COMMAND,
      title: 'Show where it comes closest',
      arguments: [{ sentence: site.sentence.text, paper: check.paper, evidence: check.evidence }],
    };
    out.push(closest);
    for (const a of cite.alternatives ?? []) {
      const { key, entry } = await this.keyFor(a, f.bib);
      for (const mode of ['instead', 'also'] as const) {
        const edit = await keyEdit(doc, site, cite.key, key, mode, entry ? { bib: f.bib, entry } : undefined);
        if (!edit) continue;
        const action = fix(`Cite ${paperName(a.paper)} ${mode}${quoteOf(a)}`, d);
        action.edit = edit;
        if (entry) action.command = saveBib(f.bib);
        if (mode === 'instead' && out.length === 1) action.isPreferred = true;
        out.push(action);
      }
    }
    return out;
  }

  /** "Add its entry from the corpus / Zotero": the entry written under the key the author cited. */
  private async addEntryFixes(bib: ProjectBib, key: string, paper: PaperRef | null, d: vscode.Diagnostic): Promise<vscode.CodeAction[]> {
    const out: vscode.CodeAction[] = [];
    const h = heavy();
    if (paper) {
      const source = await this.sourceEntry(paper.id);
      const entry = h.formatBibtexEntry({ ...paper, arxivId: null, url: null, bibtex: source }, key);
      const action = fix(`Add the entry of ${paperName(paper)} from the corpus to ${vscode.workspace.asRelativePath(bib.target)}`, d);
      action.edit = await appendTo(new vscode.WorkspaceEdit(), bib, entry);
      action.command = saveBib(bib);
      action.isPreferred = true;
      out.push(action);
    }
    const item = (await this.sources.zoteroItems()).find((i) => i.citationKey === key);
    if (item) {
      const meta = h.zoteroMeta(item);
      const entry = item.citationKey === key && meta.bibtex ? meta.bibtex : h.formatBibtexEntry(meta, key);
      const action = fix(
        `Add the entry of ${paperName(meta as PaperRef)} from Zotero to ${vscode.workspace.asRelativePath(bib.target)}`,
        d,
      );
      action.edit = await appendTo(new vscode.WorkspaceEdit(), bib, entry);
      action.command = saveBib(bib);
      action.isPreferred = !paper;
      out.push(action);
    }
    return out;
  }

  /** The key to cite an alternative by, and the entry to add when the .bib lacks it (planned as Cite plans it). */
  private async keyFor(a: Alternative, bib: ProjectBib): Promise<{ key: string; entry: string | null }> {
    if (a.inBib && a.key) return { key: a.key, entry: null };
    const plan = await heavy().planCitation(bib.text, { ...a.paper, arxivId: null, url: null, bibtex: await this.sourceEntry(a.paper.id) });
    return plan;
  }

  private async sourceEntry(id: string): Promise<string | null> {
    try {
      const { store } = await this.corpus.connection();
      return (await store.paperBibtex?.([id]).catch(() => []))?.[0]?.bibtex ?? null;
    } catch {
      return null;
    }
  }
}

function fix(title: string, d: vscode.Diagnostic): vscode.CodeAction {
  const a = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
  a.diagnostics = [d];
  return a;
}

function saveBib(bib: ProjectBib): vscode.Command {
  return { command: SAVE_BIB_COMMAND, title: 'Save the .bib', arguments: [bib.target.toString()] };
}

function quoteOf(a: Alternative): string {
  const q = a.evidence[0];
  return q ? `: “${clip(q.text, 80)}”` : '';
}

/** Replacing (or adding to) a cited key, plus the new paper's entry: one WorkspaceEdit, one undo. */
export async function keyEdit(
  doc: vscode.TextDocument,
  site: CitationSite,
  oldKey: string,
  newKey: string,
  mode: 'instead' | 'also',
  add?: { bib: ProjectBib; entry: string },
): Promise<vscode.WorkspaceEdit | undefined> {
  const e = heavy().replaceKeyEdit(site, oldKey, newKey, mode);
  if (!e) return undefined;
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(e.range.start), doc.positionAt(e.range.end)), e.text);
  if (add) await appendTo(edit, add.bib, add.entry);
  return edit;
}

/** An entry appended to the project's target .bib (created if missing), inside `edit`. */
export async function appendTo(edit: vscode.WorkspaceEdit, bib: ProjectBib, entry: string): Promise<vscode.WorkspaceEdit> {
  const doc = await openIfExists(bib.target);
  if (!doc) {
    edit.createFile(bib.target, { ignoreIfExists: true });
    edit.insert(bib.target, new vscode.Position(0, 0), `${entry.trimEnd()}\n`);
    return edit;
  }
  const text = doc.getText();
  const gap = text.length === 0 ? '' : text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  edit.insert(bib.target, doc.positionAt(text.length), `${gap}${entry.trimEnd()}\n`);
  return edit;
}
