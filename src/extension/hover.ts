// Hover over a prose sentence: its top three matches (from the same cache as the panel, so a sentence
// already looked up costs no embedding call), and a link that opens all of them in the panel.
import * as vscode from 'vscode';
import { documentModel } from './documents.js';
import type { Lookups } from './lookup.js';
import { readSettings } from './settings.js';

export const SHOW_IN_PANEL_COMMAND = 'corpusLens.showInPanel';

export class SimilarHover implements vscode.HoverProvider {
  constructor(private readonly lookups: Lookups) {}

  async provideHover(doc: vscode.TextDocument, position: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    if (!readSettings(doc.uri).hoverEnabled) return undefined;
    const sentence = documentModel(doc).sentenceAt(doc.offsetAt(position));
    if (!sentence) return undefined;
    const controller = new AbortController();
    token.onCancellationRequested(() => controller.abort());
    const result = await this.lookups.hitsFor(doc, sentence, 0, controller.signal).catch(() => undefined);
    if (!result || token.isCancellationRequested || !result.hits.length) return undefined;
    const md = new vscode.MarkdownString();
    md.isTrusted = { enabledCommands: [SHOW_IN_PANEL_COMMAND] };
    md.appendMarkdown('**Corpus Lens** — similar sentences\n\n');
    for (const hit of result.hits.slice(0, 3)) {
      md.appendMarkdown('- ');
      md.appendText(`${hit.paper.title ?? 'Untitled'}${hit.paper.year ? ` (${hit.paper.year})` : ''}`);
      md.appendMarkdown(`, ${hit.similarity.toFixed(2)}: *`);
      md.appendText(hit.sentence.text);
      md.appendMarkdown('*\n');
    }
    const args = encodeURIComponent(JSON.stringify([doc.uri.toString(), sentence.start]));
    md.appendMarkdown(`\n[Open all ${result.hits.length} in the panel](command:${SHOW_IN_PANEL_COMMAND}?${args})`);
    return new vscode.Hover(md, new vscode.Range(doc.positionAt(sentence.start), doc.positionAt(sentence.end)));
  }
}
