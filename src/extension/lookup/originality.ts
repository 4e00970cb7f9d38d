// A diagnostic on a sentence of the author's that nearly copies a corpus sentence, with a quick fix that
// cites the paper. It runs on the sentences the author looked up (their results are at hand), not on
// every keystroke, and goes away when the sentence changes.
import * as vscode from 'vscode';
import { findNearCopy } from '../../core/retrieve/originality.js';
import type { LookupResult } from './lookup.js';
import { toHitView } from '../panel/hit-view.js';
import type { HitView } from '../../../webview/protocol.js';
import { readSettings } from '../shared/settings.js';
import { formatOf, sentenceRange } from '../shared/documents.js';
import { heavy } from '../load.js';
import type { Sentence } from '../../core/text/index.js';

export const CITE_HIT_COMMAND = 'corpusLens.citeHit';

interface Finding {
  diagnostic: vscode.Diagnostic;
  hit: HitView;
  /** The sentence text when the finding was made: a later edit of it drops the finding. */
  text: string;
}

/** A citation right after a sentence's end (`… text.~\cite{x}`, `… text [@x].`) still belongs to it. */
const TRAILING_CITATION = /^[\s~]*(?:(?:\\[a-zA-Z]*cite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{[^}]*\}[\s~,;]*)+|\[[^\]]*@[^\]]*\])/;

/** The keys a sentence of the document cites (LaTeX \cite… or Pandoc [@key]). */
function citedBy(doc: vscode.TextDocument, sentence: Sentence): string[] {
  const after = doc.getText(new vscode.Range(doc.positionAt(sentence.end), doc.positionAt(sentence.end + 300)));
  const text = sentence.text + (TRAILING_CITATION.exec(after)?.[0] ?? '');
  return heavy().citedKeys(text, formatOf(doc) === 'markdown' ? 'markdown' : 'latex');
}

export class OriginalityGuard implements vscode.CodeActionProvider, vscode.Disposable {
  static readonly providedCodeActionKinds = [vscode.CodeActionKind.QuickFix];
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('corpusLens');
  private readonly findings = new Map<string, Finding[]>();
  private readonly subscription: vscode.Disposable;

  constructor() {
    this.subscription = vscode.workspace.onDidChangeTextDocument((e) => this.prune(e.document));
  }

  /** Checks the sentence of a finished lookup and updates its diagnostic. */
  check(doc: vscode.TextDocument, result: LookupResult): void {
    const settings = readSettings(doc.uri);
    const uri = doc.uri.toString();
    const range = sentenceRange(doc, result.sentence);
    const others = (this.findings.get(uri) ?? []).filter((f) => !f.diagnostic.range.intersection(range));
    // A sentence that already cites the paper it matches is attributed: only the papers it does not cite are checked.
    const cited = new Set(result.shift === 0 ? citedBy(doc, result.sentence) : []);
    const uncited = result.hits.filter((h) => !h.paper.citationKey || !cited.has(h.paper.citationKey));
    const copy = settings.originality.enabled && result.shift === 0 ? findNearCopy(result.sentence.clean, uncited) : null;
    if (copy) {
      const hit = toHitView(copy.hit);
      const paper = `${hit.paper.title ?? 'a corpus paper'}${hit.paper.year ? ` (${hit.paper.year})` : ''}`;
      const why = copy.sharedWords ? `shares ${copy.sharedWords} consecutive words` : `similarity ${copy.similarity.toFixed(2)}`;
      const severity =
        settings.originality.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information;
      const diagnostic = new vscode.Diagnostic(range, `Closely matches ${paper}: cite or rephrase (${why}).`, severity);
      diagnostic.source = 'Corpus Lens';
      diagnostic.code = 'near-copy';
      others.push({ diagnostic, hit, text: doc.getText(range) });
    }
    this.set(doc.uri, others);
  }

  provideCodeActions(doc: vscode.TextDocument, range: vscode.Range | vscode.Selection): vscode.CodeAction[] {
    return (this.findings.get(doc.uri.toString()) ?? [])
      .filter((f) => f.diagnostic.range.intersection(range))
      .map((f) => {
        const action = new vscode.CodeAction(`Cite ${f.hit.paper.title ?? 'this paper'}`, vscode.CodeActionKind.QuickFix);
        action.diagnostics = [f.diagnostic];
        action.isPreferred = true;
        action.command = { command: CITE_HIT_COMMAND, title: 'Cite', arguments: [f.hit, doc.uri.toString(), f.diagnostic.range.end] };
        return action;
      });
  }

  /** Drops the findings whose sentence no longer reads as it did. */
  private prune(doc: vscode.TextDocument): void {
    const list = this.findings.get(doc.uri.toString());
    if (!list) return;
    const kept = list.filter((f) => doc.getText(f.diagnostic.range) === f.text);
    if (kept.length !== list.length) this.set(doc.uri, kept);
  }

  private set(uri: vscode.Uri, list: Finding[]): void {
    this.findings.set(uri.toString(), list);
    this.diagnostics.set(
      uri,
      list.map((f) => f.diagnostic),
    );
  }

  dispose(): void {
    this.subscription.dispose();
    this.diagnostics.dispose();
  }
}
