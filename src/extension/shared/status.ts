// The status-bar item: corpus, size, embedder and state; a click opens the panel.
import * as vscode from 'vscode';
import type { LookupEvent } from '../lookup/lookup.js';
import type { Connection } from '../corpus/corpus.js';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('corpusLens.status', vscode.StatusBarAlignment.Right, 100);
  private corpus = 'Corpus Lens';
  /**
   * The failure shown is only "busy" (a lookup during an indexing run or a move): the corpus counted again after
   * the write is the corpus back in service, so the counts replace it; any other failure stays until a lookup works.
   */
  private busy = false;

  constructor() {
    this.item.name = 'Corpus Lens';
    this.item.command = 'corpusLens.openPanel';
    this.set('$(library) Corpus Lens', 'Corpus Lens: open the panel');
    this.item.show();
  }

  /** The corpus's size as counted now (a connection opened, or the corpus was written): the text, not the state. */
  showCounts(c: Pick<Connection, 'name' | 'papers' | 'sentences'>): void {
    this.corpus = `${c.name} · ${c.sentences.toLocaleString('en')} sentences`;
    if (this.item.text.startsWith('$(error)') && !this.busy) return; // the failure stays until a lookup works
    this.item.text = this.item.text.startsWith('$(sync~spin)') ? `$(sync~spin) ${this.corpus}` : `$(library) ${this.corpus}`;
    this.item.tooltip = `Corpus Lens: ${c.name}, ${c.papers} papers, ${c.sentences} sentences`;
  }

  /** What the status bar says now (for tests). */
  get text(): string {
    return this.item.text;
  }

  show(event: LookupEvent): void {
    this.busy = event.kind === 'error' && event.error.name === 'CorpusBusyError';
    switch (event.kind) {
      case 'searching':
        return this.set(`$(sync~spin) ${this.corpus}`, 'Corpus Lens: searching…');
      case 'results': {
        const c = event.result.connection;
        this.corpus = `${c.name} · ${c.sentences.toLocaleString('en')} sentences`;
        return this.set(
          `$(library) ${this.corpus}`,
          `Corpus Lens: ${c.name}, ${c.papers} papers, ${c.sentences} sentences; embedder ${c.embedderLabel}. ${event.result.hits.length} results.`,
        );
      }
      case 'notProse':
        return this.set(`$(library) ${this.corpus}`, 'Corpus Lens: the cursor is not in a prose sentence');
      case 'notConfigured':
        return this.set('$(library) Corpus Lens: set up a corpus', `Corpus Lens: ${event.reason}`);
      case 'error': {
        // Name the corpus that failed, not the one shown before the switch.
        const name = event.corpus ?? this.corpus;
        return this.set(
          `$(error) ${name}`,
          `Corpus Lens: ${name}: ${event.error.message}${event.recover ? ` (the panel offers to go back to ${event.recover})` : ''}`,
        );
      }
    }
  }

  private set(text: string, tooltip: string): void {
    this.item.text = text;
    this.item.tooltip = tooltip;
  }

  dispose(): void {
    this.item.dispose();
  }
}
