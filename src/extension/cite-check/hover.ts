// Hover over a cited key: what the cited paper says for the sentence — its supporting sentence with page and lines,
// and a link that adds the page locator (`\cite[p.~3]{key}`, `[@key, p. 3]`) as one undoable edit. A key the last
// check judged is shown from that check; any other is checked on the spot (one citation, one paper).
import * as vscode from 'vscode';
import type { CitationCheck, CitationSite } from '../../core/cite-check/types.js';
import { escapeMarkdownText } from '../../core/text/escape.js';
import { commandArgs } from '../lookup/hover.js';
import { heavy } from '../load.js';
import { clip, paperName, where, type CitationChecker } from './diagnostics.js';
import { SHOW_CLOSEST_COMMAND } from './actions.js';
import { siteForLocator } from './locator.js';
import { CiteSources } from './sources.js';
import { citeCommands } from './settings.js';

export const ADD_LOCATOR_COMMAND = 'corpusLens.citeCheck.addLocator';

export class CitationHover implements vscode.HoverProvider {
  constructor(
    private readonly checker: CitationChecker,
    private readonly sources: CiteSources,
  ) {}

  async provideHover(
    doc: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.Hover | undefined> {
    const format = CiteSources.format(doc);
    if (!format) return undefined;
    const offset = doc.offsetAt(position);
    const found = siteAt(doc, offset);
    if (!found) return undefined;
    const { site, key } = found;
    const checked = this.checker
      .findingsFor(doc)
      .find((f) => f.kind === 'cite' && f.cite.key === key.key && f.site.range.start === site.range.start);
    let result: CitationCheck | undefined = checked?.kind === 'cite' ? checked.cite.check : undefined;
    if (!checked) {
      const bib = await this.sources.bib(doc);
      const ctx = await this.sources.checkContext(bib.index);
      if (!ctx || token.isCancellationRequested) return undefined;
      result = await heavy()
        .checkCitation(ctx, { sentence: site.sentence.text, cite: key.key })
        .catch(() => undefined);
    }
    if (!result || token.isCancellationRequested || result.verdict === 'not-in-corpus') return undefined;
    const md = new vscode.MarkdownString();
    md.isTrusted = { enabledCommands: [ADD_LOCATOR_COMMAND, SHOW_CLOSEST_COMMAND] };
    const best = result.quote ?? result.evidence[0];
    const name = escapeMarkdownText(paperName(result.paper));
    if (result.verdict === 'supported') {
      md.appendMarkdown(`**Corpus Lens** — ${name} supports this sentence (${result.score.toFixed(2)})\n\n`);
    } else {
      md.appendMarkdown(
        `**Corpus Lens** — ${name} ${result.verdict === 'contradicted' ? 'contradicts' : 'does not support'} this sentence (${result.score.toFixed(2)} < ${result.threshold.toFixed(2)}); closest:\n\n`,
      );
    }
    if (best)
      md.appendMarkdown(
        `> ${escapeMarkdownText(clip(best.text, 400))}\n\n${escapeMarkdownText(
          where(best)
            .trim()
            .replace(/^\(|\)$/g, '') || 'no page recorded',
        )}`,
      );
    if (result.verdict === 'supported' && best?.page && siteForLocator(doc.getText(), site, key.key)?.locator === null) {
      const args = commandArgs([doc.uri.toString(), doc.version, site.range.start, key.key, best.page]);
      md.appendMarkdown(` · [Add page locator p. ${best.page}](command:${ADD_LOCATOR_COMMAND}?${args})`);
    }
    if (result.evidence.length > 1 || result.verdict !== 'supported') {
      const args = commandArgs([{ sentence: site.sentence.text, paper: result.paper, evidence: result.evidence }]);
      md.appendMarkdown(` · [Show in the panel](command:${SHOW_CLOSEST_COMMAND}?${args})`);
    }
    return new vscode.Hover(md, new vscode.Range(doc.positionAt(key.start), doc.positionAt(key.end)));
  }
}

/** The citation and key under an offset of a paper. */
export function siteAt(
  doc: vscode.TextDocument,
  offset: number,
): { site: CitationSite; key: CitationSite['keyRanges'][number] } | undefined {
  const format = CiteSources.format(doc);
  if (!format) return undefined;
  const line = doc.lineAt(doc.positionAt(offset).line);
  // Only a line that can hold a citation is read in full.
  if (format === 'latex' ? !line.text.includes('\\') : !line.text.includes('@')) return undefined;
  const sites = heavy().findCitations(doc.getText(), format, { commands: citeCommands(doc.uri) });
  for (const site of sites) {
    if (offset < site.range.start || offset > site.range.end) continue;
    const key =
      site.keyRanges.find((k) => offset >= k.start && offset <= k.end) ?? (site.keyRanges.length === 1 ? site.keyRanges[0] : undefined);
    if (key) return { site, key };
  }
  return undefined;
}

/** The locator command: the citation found again in the text as it is now (it may have moved), the locator edit applied. */
export async function addLocator(uri: string, _version: number, citationStart: number, key: string, page: number): Promise<boolean> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  const format = CiteSources.format(doc);
  if (!format) return false;
  const sites = heavy()
    .findCitations(doc.getText(), format, { commands: citeCommands(doc.uri) })
    .filter((s) => s.keys.includes(key));
  const site = sites.sort((a, b) => Math.abs(a.range.start - citationStart) - Math.abs(b.range.start - citationStart))[0];
  if (!site) throw new Error(`the citation of ${key} is not in ${vscode.workspace.asRelativePath(doc.uri)} any more`);
  const own = siteForLocator(doc.getText(), site, key);
  const e = own && heavy().locatorEdit(own, format, page);
  if (!e) {
    void vscode.window.showInformationMessage(
      `Corpus Lens: this citation of ${key} has a locator already, or is one LaTeX citation of several papers (its note would be for all).`,
    );
    return false;
  }
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(e.range.start), doc.positionAt(e.range.end)), e.text);
  return vscode.workspace.applyEdit(edit);
}
