// Hover over a prose sentence: its top three matches (from the same cache as the panel, so a sentence
// already looked up costs no embedding call), and a link that opens all of them in the panel.
import * as vscode from 'vscode';
import { documentModel } from '../shared/documents.js';
import type { Lookups } from './lookup.js';
import { readSettings } from '../shared/settings.js';
import { escapeMarkdownText } from '../../core/text/escape.js';
import { toHitView } from '../panel/hit-view.js';
import { CITE_HIT_COMMAND } from './originality.js';

export const SHOW_IN_PANEL_COMMAND = 'corpusLens.showInPanel';

export class SimilarHover implements vscode.HoverProvider {
  constructor(private readonly lookups: Lookups) {}

  async provideHover(
    doc: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.Hover | undefined> {
    if (!readSettings(doc.uri).hoverEnabled) return undefined;
    const sentence = documentModel(doc).sentenceAt(doc.offsetAt(position));
    if (!sentence) return undefined;
    const controller = new AbortController();
    token.onCancellationRequested(() => controller.abort());
    const result = await this.lookups.hitsFor(doc, sentence, 0, controller.signal).catch(() => undefined);
    if (!result || token.isCancellationRequested || !result.hits.length) return undefined;
    const md = new vscode.MarkdownString();
    md.isTrusted = { enabledCommands: [SHOW_IN_PANEL_COMMAND, CITE_HIT_COMMAND] };
    md.appendMarkdown('**Corpus Lens** — similar sentences\n\n');
    for (const hit of result.hits.slice(0, 3)) {
      // Escaped here, not with appendText: that makes every space &nbsp; and the hover breaks lines mid-word.
      const title = `${hit.paper.title ?? 'Untitled'}${hit.paper.year ? ` (${hit.paper.year})` : ''}`;
      // A title a model proposed is said to be one, as in the panel: the author checks it before citing.
      const model = hit.paper.metadataProposedBy;
      const proposed = model ? ` *(title proposed by ${escapeMarkdownText(model)})*` : '';
      // Cite from the hover: the same placement as the panel (end of this sentence), one undoable edit.
      const cite = commandArgs([toHitView(hit), doc.uri.toString(), { line: position.line, character: position.character }]);
      md.appendMarkdown(
        `- ${escapeMarkdownText(title)}${proposed}, ${hit.similarity.toFixed(2)}: *${escapeMarkdownText(hit.sentence.text)}* [Cite](command:${CITE_HIT_COMMAND}?${cite})\n`,
      );
    }
    const args = commandArgs([doc.uri.toString(), sentence.start]);
    md.appendMarkdown(`\n[Open all ${result.hits.length} in the panel](command:${SHOW_IN_PANEL_COMMAND}?${args})`);
    return new vscode.Hover(md, new vscode.Range(doc.positionAt(sentence.start), doc.positionAt(sentence.end)));
  }
}

/** Command-link arguments: JSON, percent-encoded, brackets too (a `)` in corpus text would end the link). */
export function commandArgs(args: unknown[]): string {
  return encodeURIComponent(JSON.stringify(args)).replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'));
}
