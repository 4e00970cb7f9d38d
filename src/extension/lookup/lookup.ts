// The loop: sentence under the cursor → embedding → match → panel. One lookup at a time: a new one aborts
// the one in flight, and a result never replaces a newer one. Results are cached per sentence, so the
// hover and a return to the same sentence cost no embedding call and no query.
import { errorText } from '../../core/redact.js';
import * as vscode from 'vscode';
import { createHash } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import { SelfPapers, lookupExcludingSelf } from '../../core/retrieve/self.js';
import type { Hit } from '../../core/store/types.js';
import type { Sentence } from '../../core/text/index.js';
import { NotConfiguredError, type CorpusService, type Connection } from '../corpus/corpus.js';
import { documentModel, isPaperDocument } from '../shared/documents.js';
import { heavy, type Heavy } from '../load.js';
import { hasFilters, type SearchFilters } from '../../core/retrieve/filters.js';
import { withTitle } from '../../core/retrieve/index.js';
import { readSettings } from '../shared/settings.js';
import { choiceLabel as choiceLabelOf } from '../corpus/switching.js';

export interface LookupResult {
  sentence: Sentence;
  /** The text came from the panel's search box, not the cursor. */
  typed?: boolean;
  /** The panel's filters were in force. */
  filtered?: boolean;
  hits: Hit[];
  connection: Connection;
  /** 1: the hits show the sentence after each match ("what authors write next"); the store's `offset`. */
  shift: 0 | 1;
  elapsedMs: number;
}

export type LookupEvent =
  | { kind: 'searching'; sentence: Sentence }
  /** `document`: the paper whose sentence was looked up (none for the search box's text). */
  | { kind: 'results'; result: LookupResult; document: vscode.TextDocument | undefined }
  | { kind: 'notProse' }
  | { kind: 'notConfigured'; reason: string }
  /** `corpus`: the corpus that failed; `recover`: the one that last worked, to go back to. */
  | { kind: 'error'; error: Error; corpus?: string; recover?: string };

export class Lookups implements vscode.Disposable {
  private inflight: AbortController | undefined;
  private seq = 0;
  private lastKey: string | undefined;
  /** Made on the first lookup (lru-cache loads with the heavy part, not at activation). */
  private cached: LRUCache<string, Hit[]> | undefined;
  /** Per document and corpus: which corpus papers are the document itself (left out of its lookups). */
  private readonly selves = new Map<string, SelfPapers>();
  /** Bumped when the cache is cleared: a lookup that started on the corpus before does not refill it. */
  private generation = 0;
  private readonly emitter = new vscode.EventEmitter<LookupEvent>();
  readonly onDidLookup = this.emitter.event;
  /** 1 = "what authors write next" (the sentence after each match); not a character offset. */
  shift: 0 | 1 = 0;
  /** The panel's filters (panel/filters.ts keeps them per workspace): every lookup, the hover's too, applies them. */
  filters: SearchFilters = {};
  /** The panel's search box text: while set, the panel shows its hits and the cursor's sentence is not looked up. */
  private searching: string | undefined;
  /** The paper filter's text resolved to paper ids, per corpus (listing the papers costs a statement). */
  private papersNamed: { key: string; ids: Promise<string[]> } | undefined;

  constructor(
    private readonly corpus: CorpusService,
    private readonly log: vscode.LogOutputChannel,
  ) {
    corpus.onDidChange(() => this.clear());
    // The corpus an indexing run wrote may now hold this document (Index This Paper): its own papers are learnt again.
    corpus.onDidFinishIndexing(() => this.clear());
  }

  /** Looks up the sentence at the editor's cursor; `force` repeats it even when unchanged. */
  lookupAtCursor(editor: vscode.TextEditor, force = false): Promise<void> {
    return this.lookupAt(editor.document, editor.document.offsetAt(editor.selection.active), force);
  }

  /** Looks up the sentence holding character offset `at` in a paper document. */
  async lookupAt(doc: vscode.TextDocument, at: number, force = false): Promise<void> {
    if (!isPaperDocument(doc) || this.searching !== undefined) return;
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
    await this.run(doc, sentence, (signal) => this.hitsOnCurrentCorpus(doc, sentence, signal));
  }

  /** The search box's text, or undefined while the panel follows the cursor. */
  get searchText(): string | undefined {
    return this.searching;
  }

  /**
   * Looks up text typed in the panel's search box (hybrid: a few typed words are matched by their terms as well as
   * by meaning); until it is cleared, cursor moves look nothing up. '' clears it (the caller looks up the cursor again).
   */
  async search(text: string): Promise<void> {
    const clean = text.replace(/\s+/g, ' ').trim();
    this.searching = clean || undefined;
    this.lastKey = undefined;
    if (!clean) return;
    const sentence: Sentence = { start: 0, end: 0, text: clean, clean, section: null };
    await this.run(undefined, sentence, async (signal) => {
      const generation = this.generation;
      try {
        return await this.searchHits(sentence, signal);
      } catch (err) {
        if (generation === this.generation || signal.aborted) throw err;
        return this.searchHits(sentence, signal);
      }
    });
  }

  private async searchHits(sentence: Sentence, signal: AbortSignal): Promise<LookupResult> {
    const t0 = performance.now();
    const connection = await this.corpus.connection();
    const settings = readSettings(undefined);
    const filters = await this.filterOptions(connection);
    const hits = await heavy().search(connection.store, connection.embedder, sentence.clean, 'hybrid', {
      k: settings.results.count,
      offset: this.shift,
      ...filters,
      signal,
    });
    signal.throwIfAborted();
    return {
      sentence,
      hits,
      connection,
      shift: this.shift,
      elapsedMs: performance.now() - t0,
      typed: true,
      filtered: hasFilters(this.filters),
    };
  }

  /** The panel's filters as match options, the paper filter resolved on this corpus (once per corpus and text). */
  private async filterOptions(connection: Connection): Promise<Awaited<ReturnType<Heavy['filterOptions']>>> {
    const { paper, ...rest } = this.filters;
    const options = await heavy().filterOptions(connection.store, rest);
    const text = paper?.trim();
    if (!text) return options;
    const key = `${this.generation}\u0000${connection.name}\u0000${text}`;
    if (this.papersNamed?.key !== key) this.papersNamed = { key, ids: heavy().papersNamed(connection.store, text) };
    const ids = this.papersNamed.ids;
    ids.catch(() => (this.papersNamed?.ids === ids ? (this.papersNamed = undefined) : undefined));
    return { ...options, paperIds: await ids };
  }

  /** Runs a lookup and reports it to listeners, unless a newer lookup started meanwhile. */
  private async run(
    doc: vscode.TextDocument | undefined,
    sentence: Sentence,
    lookup: (signal: AbortSignal) => Promise<LookupResult>,
  ): Promise<void> {
    this.inflight?.abort();
    const controller = new AbortController();
    this.inflight = controller;
    const seq = ++this.seq;
    this.emitter.fire({ kind: 'searching', sentence });
    try {
      const result = await lookup(controller.signal);
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
    const text = settings.embedding.prefixTitle ? withTitle(documentModel(doc).title(), sentence.clean) : sentence.clean;
    // Per document: its own papers are left out of its hits, so the same sentence in another document may differ.
    const key = JSON.stringify([
      doc.uri.toString(),
      connection.name,
      shift,
      settings.results.count,
      settings.results.threshold,
      this.filters,
      text,
    ]);
    const cache = (this.cached ??= new (heavy().LRUCache)<string, Hit[]>({ max: 500 }));
    let hits = cache.get(key);
    if (!hits) {
      const filters = await this.filterOptions(connection);
      hits = await lookupExcludingSelf(
        this.selfPapers(doc, connection),
        (excludePaperIds) =>
          heavy().search(connection.store, connection.embedder, text, 'vector', {
            k: settings.results.count,
            threshold: settings.results.threshold,
            offset: shift,
            ...filters,
            excludePaperIds,
            signal,
          }),
        signal,
      );
      signal?.throwIfAborted();
      if (generation === this.generation) cache.set(key, hits);
    }
    return { sentence, hits, connection, shift, elapsedMs: performance.now() - t0, filtered: hasFilters(this.filters) };
  }

  /**
   * The corpus papers that are this document (indexed from its file, from a file with its bytes, or holding its
   * text): its lookups, hover, originality check and Ask leave them out. Kept per document until the corpus changes.
   */
  selfPapers(doc: vscode.TextDocument, connection: Connection): SelfPapers {
    const key = `${connection.name}\u0000${doc.uri.toString()}`;
    let self = this.selves.get(key);
    if (!self) {
      const text = doc.getText();
      self = new SelfPapers(connection.store, {
        paths: doc.uri.scheme === 'file' ? [doc.uri.fsPath] : [],
        // The hash ingest gives a single-file source: of the bytes as saved (a modified document has other bytes).
        contentHash: doc.isDirty ? null : createHash('sha256').update(text, 'utf8').digest('hex'),
        sentences: documentModel(doc)
          .sentences()
          .map((s) => s.clean),
      });
      this.selves.set(key, self);
    }
    return self;
  }

  /** The papers known to be `doc` itself in the current corpus (for Ask), none when there is no corpus. */
  async selfPaperIds(doc: vscode.TextDocument | undefined): Promise<string[]> {
    if (!doc || !isPaperDocument(doc)) return [];
    return this.selfPapers(doc, await this.corpus.connection()).known();
  }

  /** Forgets cached results (after the corpus changed). */
  clear(): void {
    this.generation++;
    this.papersNamed = undefined;
    this.selves.clear();
    this.cached?.clear();
    this.lastKey = undefined;
  }

  dispose(): void {
    this.inflight?.abort();
    this.emitter.dispose();
  }
}
