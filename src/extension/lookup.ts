// The loop: sentence under the cursor → embedding → match → panel. One lookup at a time: a new one aborts
// the one in flight, and a result never replaces a newer one. Results are cached per sentence, so the
// hover and a return to the same sentence cost no embedding call and no query.
import { errorText } from '../core/redact.js';
import * as vscode from 'vscode';
import { LRUCache } from 'lru-cache';
import type { Hit } from '../core/store/types.js';
import type { Sentence } from '../core/text/index.js';
import { NotConfiguredError, type CorpusService, type Connection } from './corpus.js';
import { documentModel, isPaperDocument } from './documents.js';
import { heavy } from './load.js';
import { readSettings } from './settings.js';
import { choiceLabel as choiceLabelOf } from './switching.js';

export interface LookupResult {
  sentence: Sentence;
  hits: Hit[];
  connection: Connection;
  /** 1: the hits show the sentence after each match ("what authors write next"); the store's `offset`. */
  shift: 0 | 1;
  elapsedMs: number;
}

export type LookupEvent =
  | { kind: 'searching'; sentence: Sentence }
  | { kind: 'results'; result: LookupResult; document: vscode.TextDocument }
  | { kind: 'notProse' }
  | { kind: 'notConfigured'; reason: string }
  /** `corpus`: the corpus that failed; `recover`: the one that last worked, to go back to. */
  | { kind: 'error'; error: Error; corpus?: string; recover?: string };

export class Lookups implements vscode.Disposable {
  private inflight: AbortController | undefined;
  private seq = 0;
  private lastKey: string | undefined;
  private readonly cache = new LRUCache<string, Hit[]>({ max: 500 });
  /** Bumped when the cache is cleared: a lookup that started on the corpus before does not refill it. */
  private generation = 0;
  private readonly emitter = new vscode.EventEmitter<LookupEvent>();
  readonly onDidLookup = this.emitter.event;
  /** 1 = "what authors write next" (the sentence after each match); not a character offset. */
  shift: 0 | 1 = 0;

  constructor(
    private readonly corpus: CorpusService,
    private readonly log: vscode.LogOutputChannel,
  ) {
    corpus.onDidChange(() => this.clear());
  }

  /** Looks up the sentence at the editor's cursor; `force` repeats it even when unchanged. */
  lookupAtCursor(editor: vscode.TextEditor, force = false): Promise<void> {
    return this.lookupAt(editor.document, editor.document.offsetAt(editor.selection.active), force);
  }

  /** Looks up the sentence holding character offset `at` in a paper document. */
  async lookupAt(doc: vscode.TextDocument, at: number, force = false): Promise<void> {
    if (!isPaperDocument(doc)) return;
    const sentence = documentModel(doc).sentenceAt(Math.min(at, doc.getText().length));
    if (!sentence) {
      this.inflight?.abort();
      this.lastKey = undefined;
      this.emitter.fire({ kind: 'notProse' });
      return;
    }
    const key = `${this.shift}\u0000${sentence.clean}`;
    if (!force && key === this.lastKey) return;
    this.lastKey = key;
    await this.run(doc, sentence);
  }

  /** Runs a lookup for a sentence and reports it to listeners, unless a newer lookup started meanwhile. */
  private async run(doc: vscode.TextDocument, sentence: Sentence): Promise<void> {
    this.inflight?.abort();
    const controller = new AbortController();
    this.inflight = controller;
    const seq = ++this.seq;
    this.emitter.fire({ kind: 'searching', sentence });
    try {
      const result = await this.hitsOnCurrentCorpus(doc, sentence, controller.signal);
      if (seq === this.seq) this.emitter.fire({ kind: 'results', result, document: doc });
    } catch (err) {
      if (seq !== this.seq || controller.signal.aborted) return;
      this.lastKey = undefined;
      if (err instanceof NotConfiguredError) this.emitter.fire({ kind: 'notConfigured', reason: err.message });
      else {
        const message = errorText(err);
        this.log.error(`lookup failed: ${message}`);
        const fallback = this.corpus.history.fallback();
        this.emitter.fire({
          kind: 'error',
          error: Object.assign(new Error(message), { name: (err as Error)?.name ?? 'Error' }),
          corpus: this.corpus.label(),
          recover: fallback ? choiceLabelOf(fallback, this.corpus.samplePath) : undefined,
        });
      }
    } finally {
      if (this.inflight === controller) this.inflight = undefined;
    }
  }

  /**
   * A lookup whose corpus was dropped while it ran (settings changed, an indexing run started) failed on the old
   * connection ("the corpus is closed"): it runs once more on the current one instead of showing that error.
   */
  private async hitsOnCurrentCorpus(doc: vscode.TextDocument, sentence: Sentence, signal: AbortSignal): Promise<LookupResult> {
    const generation = this.generation;
    try {
      return await this.hitsFor(doc, sentence, this.shift, signal);
    } catch (err) {
      if (generation === this.generation || signal.aborted) throw err;
      return this.hitsFor(doc, sentence, this.shift, signal);
    }
  }

  /** Hits for a sentence (cached), e.g. for the hover. Throws NotConfiguredError when there is no corpus. */
  async hitsFor(doc: vscode.TextDocument, sentence: Sentence, shift: 0 | 1, signal?: AbortSignal): Promise<LookupResult> {
    const t0 = performance.now();
    const generation = this.generation;
    const connection = await this.corpus.connection();
    const settings = readSettings(doc.uri);
    const title = settings.embedding.prefixTitle ? documentModel(doc).title() : null;
    const text = title ? `${title}. ${sentence.clean}` : sentence.clean;
    const key = JSON.stringify([connection.name, shift, settings.results.count, settings.results.threshold, text]);
    let hits = this.cache.get(key);
    if (!hits) {
      hits = await heavy().search(connection.store, connection.embedder, text, 'vector', {
        k: settings.results.count,
        threshold: settings.results.threshold,
        offset: shift,
        signal,
      });
      signal?.throwIfAborted();
      if (generation === this.generation) this.cache.set(key, hits);
    }
    return { sentence, hits, connection, shift, elapsedMs: performance.now() - t0 };
  }

  /** Forgets cached results (after the corpus changed). */
  clear(): void {
    this.generation++;
    this.cache.clear();
    this.lastKey = undefined;
  }

  dispose(): void {
    this.inflight?.abort();
    this.emitter.dispose();
  }
}
