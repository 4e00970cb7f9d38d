// Hover over a citation in generated related work: the verified quotes behind it, read back from the provenance
// notes the review wrote under the paragraph (core/review/provenance.ts), so the author can audit a claim where
// it stands, also after closing VS Code or editing the prose.
import * as vscode from 'vscode';
import { provenanceAt } from '../../core/review/provenance.js';
import { escapeMarkdownText } from '../../core/text/escape.js';
import { formatOf } from '../shared/documents.js';

export class ProvenanceHover implements vscode.HoverProvider {
  provideHover(doc: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const format = formatOf(doc);
    if (!format || format === 'text') return undefined;
    const found = provenanceAt(doc.getText(), doc.offsetAt(position), format);
    if (!found) return undefined;
    // Untrusted: quotes are corpus text. No command links, no HTML; escaped as text.
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**Corpus Lens** — verified quotes behind ${found.keys.map(escapeMarkdownText).join(', ')}\n\n`);
    for (const q of found.quotes) {
      const status = q.unsupported ? ' — **flagged unsupported**' : q.support !== null ? ` — support ${q.support.toFixed(2)}` : '';
      md.appendMarkdown(
        `- ${escapeMarkdownText(q.key)}, ${q.id} (for ${q.sentenceId}${status}): *\u201c${escapeMarkdownText(q.text)}\u201d*\n`,
      );
    }
    return new vscode.Hover(md, new vscode.Range(doc.positionAt(found.start), doc.positionAt(found.end)));
  }
}
