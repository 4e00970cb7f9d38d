// The paper the author is writing: the active editor when it shows one, else the last one that did (running a
// command from the panel, a tree view or the palette moves the focus off the paper, not the author's intent).
import * as vscode from 'vscode';
import { isPaperDocument } from './documents.js';

export class PaperEditors implements vscode.Disposable {
  private lastPaper: vscode.TextEditor | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    const active = vscode.window.activeTextEditor;
    this.lastPaper = active && isPaperDocument(active.document) ? active : undefined;
    this.subscriptions = [
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (isPaperDocument(e.textEditor.document)) this.lastPaper = e.textEditor;
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor && isPaperDocument(editor.document)) this.lastPaper = editor;
      }),
    ];
  }

  /** The last editor that showed a paper (it may not be visible any more). */
  get last(): vscode.TextEditor | undefined {
    return this.lastPaper;
  }

  /** The active editor if it shows a paper, else the last one that did. */
  current(): vscode.TextEditor | undefined {
    const active = vscode.window.activeTextEditor;
    return active && isPaperDocument(active.document) ? active : this.lastPaper;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
