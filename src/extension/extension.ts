// The VS Code face. For now it shows the sentence under the cursor and its section in the status bar;
// the results panel, hover and commands arrive with the extension issue.
import * as vscode from 'vscode';
import { TextModel, type Format } from '../core/text/index.js';

const FORMAT_BY_LANGUAGE: Record<string, Format> = { latex: 'latex', markdown: 'markdown', quarto: 'markdown', rmd: 'markdown' };

export function activate(context: vscode.ExtensionContext): void {
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.name = 'Corpus Lens';
  const models = new WeakMap<vscode.TextDocument, { version: number; model: TextModel }>();

  const modelOf = (doc: vscode.TextDocument, format: Format): TextModel => {
    const cached = models.get(doc);
    if (cached && cached.version === doc.version) return cached.model;
    const model = new TextModel(doc.getText(), format);
    models.set(doc, { version: doc.version, model });
    return model;
  };

  const update = (editor: vscode.TextEditor | undefined) => {
    const format = editor && FORMAT_BY_LANGUAGE[editor.document.languageId];
    if (!editor || !format) {
      status.hide();
      return;
    }
    const sentence = modelOf(editor.document, format).sentenceAt(editor.document.offsetAt(editor.selection.active));
    status.text = sentence ? `$(book) ${sentence.section ?? 'no section'}` : '$(book) not in prose';
    status.tooltip = sentence ? sentence.clean : 'Corpus Lens: the cursor is not in a prose sentence';
    status.show();
  };

  context.subscriptions.push(
    status,
    vscode.window.onDidChangeTextEditorSelection((e) => update(e.textEditor)),
    vscode.window.onDidChangeActiveTextEditor(update),
  );
  update(vscode.window.activeTextEditor);
}

export function deactivate(): void {}
