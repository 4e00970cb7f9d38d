// The corpus and the embedder the user configured, opened on first use (never at activation: PGlite's WASM
// and a fresh initdb take seconds) and reopened when the settings change. The embedded corpus runs in its own
// process (dist/store-host.js, see src/core/store/remote.ts): PGlite's memory and its long WASM work (index
// builds, every lookup) stay out of the extension host that all extensions share.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Embedder } from '../../core/embed/types.js';
import type { OpenStoreOptions } from '../../core/store/index.js';
import type { CorpusStore, StoreError } from '../../core/store/types.js';
import { heavy } from '../load.js';
import { readSettings, type Settings } from '../shared/settings.js';
import type { Secrets } from '../shared/secrets.js';
import { errorText, redactSecrets } from '../../core/redact.js';
import { choiceLabel, CorpusHistory, currentChoice } from './switching.js';
import { connectFailure } from './failure.js';

export interface Connection {
  store: CorpusStore;
  embedder: Embedder;
  /** Shown in the status bar and panel header. */
  name: string;
  /** e.g. "offline" or "openai:text-embedding-3-small". */
  embedderLabel: string;
  sentences: number;
  papers: number;
}

/** The corpus is missing or empty: the panel offers to set it up. */
export class NotConfiguredError extends Error {}

/**
 * The embedded corpus is being indexed or copied: PGlite allows one process on a folder, so lookups wait until
 * the run ends.
 */
export class CorpusBusyError extends Error {
  override name = 'CorpusBusyError';
}

export class CorpusService implements vscode.Disposable {
  private current: { key: string; connection: Promise<Connection> } | undefined;
  /**
   * Closes of dropped connections still under way: a reopen waits for them, or a second process would find the
   * embedded corpus folder still held by the first ("in use").
   */
  private closing: Promise<unknown> = Promise.resolve();
  /** The corpus targets (folders or URLs) indexing runs are writing to, with how many runs each. */
  private readonly writing = new Map<string, number>();
  /** An embedded corpus folder another process is reading (Move to PostgreSQL's copy), and what it is doing. */
  private held: { folder: string; why: string } | undefined;
  private readonly finishedIndexing = new vscode.EventEmitter<void>();
  /** Fires when an indexing run ends, however it ends (views that read the corpus reload then, not during it). */
  readonly onDidFinishIndexing = this.finishedIndexing.event;
  private readonly resumed = new vscode.EventEmitter<void>();
  /** Fires when a corpus held closed (see hold) may be looked up again: the panel repeats its lookup. */
  readonly onDidResume = this.resumed.event;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the connection is dropped (settings changed, corpus re-indexed). */
  readonly onDidChange = this.changed.event;
  private readonly counted = new vscode.EventEmitter<Connection>();
  /**
   * Fires with the connection in use when its papers and sentences were counted: when it opens and after every
   * write (an indexing run's end), so the status bar, the panel and the log say the corpus's size as it is now.
   */
  readonly onDidCount = this.counted.event;

  /** The corpora used recently and the way back after a failed switch. */
  readonly history: CorpusHistory;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly secrets: Secrets,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.history = new CorpusHistory(context.globalState);
  }

  /** Where the sample corpus is built (Set up corpus → sample corpus). */
  get samplePath(): string {
    return path.join(this.context.globalStorageUri.fsPath, 'sample-corpus');
  }

  /** How the user knows the configured corpus ("the sample corpus", a folder name, a database). */
  label(settings = readSettings()): string {
    return choiceLabel(currentChoice(settings), this.samplePath);
  }

  /** The embedded corpus folder: the setting, or one in the extension's global storage. */
  embeddedPath(settings = readSettings()): string {
    return settings.corpus.path || path.join(this.context.globalStorageUri.fsPath, 'corpus');
  }

  /** The corpus target as the core's `openStore` reads it. */
  target(settings = readSettings()): string {
    if (settings.corpus.backend === 'embedded') return this.embeddedPath(settings);
    if (!settings.corpus.url)
      throw new NotConfiguredError(`corpusLens.corpus.url is empty: connect to your ${settings.corpus.backend} corpus first`);
    return settings.corpus.backend === 'supabase' ? `supabase:${settings.corpus.url}` : settings.corpus.url;
  }

  connection(): Promise<Connection> {
    const settings = readSettings();
    if (settings.corpus.backend === 'embedded' && this.isWriting(this.embeddedPath(settings))) {
      return Promise.reject(new CorpusBusyError('the corpus is being indexed: lookups resume when indexing ends'));
    }
    if (settings.corpus.backend === 'embedded' && this.held && samePath(this.held.folder, this.embeddedPath(settings))) {
      return Promise.reject(new CorpusBusyError(`${this.held.why}: lookups resume when it has finished`));
    }
    const key = JSON.stringify([settings.corpus, settings.embedding]);
    if (this.current?.key !== key) {
      void this.drop('the corpus settings changed');
      const connection = this.open(settings);
      this.current = { key, connection };
      const label = this.label(settings);
      connection.then(
        (c) => {
          if (this.current?.connection !== connection) return; // dropped before it opened
          this.log.info(`connected to ${label}: ${c.papers} papers, ${c.sentences} sentences`);
          this.counted.fire(c);
          void this.history.opened(currentChoice(settings));
        },
        (err) => {
          if (this.current?.connection === connection) this.current = undefined; // try again next time
          if (err instanceof NotConfiguredError) this.log.warn(`${label}: ${err.message}`);
          else this.log.error(connectFailure(label, err));
        },
      );
    }
    return this.current.connection;
  }

  private warming: Promise<void> | undefined;

  /**
   * Opens the corpus ahead of the first lookup, when the panel or a paper becomes visible: starting the corpus
   * process, opening the folder and loading the vector index for a first query take seconds the author would
   * otherwise wait for at the first sentence. The status bar says "opening the corpus…" meanwhile. No embedding
   * call (a remote embedder costs money): the warm-up query is a unit vector.
   */
  warm(): void {
    if (this.warming || this.current || this.indexing || this.held) return;
    const settings = readSettings();
    if (settings.corpus.backend === 'embedded' && !existsSync(this.embeddedPath(settings))) return;
    const t0 = performance.now();
    this.warming = Promise.resolve(
      vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Corpus Lens: opening the corpus…' }, async () => {
        const c = await this.connection();
        const meta = await c.store.meta();
        if (!meta) return;
        const unit = new Float32Array(meta.dimensions);
        unit[0] = 1;
        await c.store.matchVector(unit, { count: 1 });
      }),
    )
      .then(
        () => this.log.info(`corpus opened ahead of the first lookup in ${Math.round(performance.now() - t0)} ms`),
        (err) => this.log.info(`opening the corpus ahead of the first lookup: ${errorText(err)}`),
      )
      .finally(() => (this.warming = undefined));
  }

  /** Closes the open corpus (after indexing, on settings change) so the next lookup reopens it. */
  async drop(why = 'indexing or switching corpus'): Promise<void> {
    const old = this.current;
    this.current = undefined;
    if (old) {
      this.log.info(`corpus connection closed (${why})`);
      this.changed.fire();
      const closed = old.connection.then((c) => c.store.close()).catch(() => undefined);
      this.closing = Promise.all([this.closing, closed]);
      await closed;
    }
  }

  /**
   * Opens a corpus: an embedded one (a folder) in a child process, a network one (postgres, supabase: thin clients)
   * here. `onExit` hears of a child that died (crash, out of memory, killed).
   */
  async openStore(target: string, options: OpenStoreOptions, onExit?: (err: StoreError) => void): Promise<CorpusStore> {
    const { openStore, openRemoteStore, targetKind } = heavy();
    if (targetKind(target) !== 'pglite') return openStore(target, { onNotice: (m) => this.notice(m), ...options });
    // The previous corpus process of this window may still be closing (drop() before indexing, a reopen after a
    // crash): wait for its lock (store/lock.ts) a little rather than report the corpus in use.
    return openRemoteStore(target, { lockWaitMs: 10_000, ...options }, { script: path.join(__dirname, 'store-host.js'), onExit });
  }

  /** What a server corpus did differently from what was asked (a serial index build): the user can act on it. */
  private notice(message: string): void {
    this.log.warn(message);
    void vscode.window.showWarningMessage(`Corpus Lens: ${message}`);
  }

  /** A connection whose corpus process died is dropped: the panel shows the error, the next lookup reopens it. */
  private lost(store: () => CorpusStore | undefined, err: StoreError): void {
    const current = this.current;
    const alreadyClosed = () => this.log.info(`${err.message} after its connection was closed`);
    if (!current) return alreadyClosed();
    current.connection.then(
      (c) => {
        if (c.store !== store() || this.current !== current) return alreadyClosed();
        this.log.warn(`${err.message}; the next lookup reopens the corpus`);
        this.current = undefined;
        this.changed.fire();
      },
      () => undefined,
    );
  }

  /**
   * Marks a corpus (an embedded folder or a URL) as being written by an indexing run until the returned function is
   * called: a second PGlite on the same folder would corrupt it, so lookups on it fail with CorpusBusyError meanwhile.
   */
  writingTo(target: string): () => void {
    this.writing.set(target, (this.writing.get(target) ?? 0) + 1);
    return () => {
      const n = (this.writing.get(target) ?? 1) - 1;
      if (n > 0) this.writing.set(target, n);
      else this.writing.delete(target);
      this.finishedIndexing.fire();
      if (!this.indexing) void this.recount();
    };
  }

  /**
   * Counts the corpus in use again (after a write): a server corpus keeps its connection through an indexing run,
   * so its counts from when it opened were stale; an embedded one reopens here with fresh counts.
   */
  async recount(): Promise<void> {
    if (this.indexing || this.held) return;
    try {
      const c = await this.connection();
      const n = await c.store.counts();
      if (n.papers !== c.papers || n.sentences !== c.sentences) {
        this.log.info(`corpus ${c.name}: now ${n.papers} papers, ${n.sentences} sentences`);
        c.papers = n.papers;
        c.sentences = n.sentences;
      }
      this.counted.fire(c);
    } catch {
      // No corpus (yet), or it cannot open: the next lookup reports that.
    }
  }

  /**
   * Closes the embedded corpus in `folder` and keeps it closed until the returned function is called, so another
   * process (the copy of Move to PostgreSQL) can open it: a lookup meanwhile fails with CorpusBusyError saying `why`
   * instead of reopening the folder in this window's corpus process, whose lock would make the other process fail.
   */
  async hold(folder: string, why: string): Promise<() => void> {
    if (this.held) throw new CorpusBusyError(`${this.held.why}; try again when it has finished`);
    const held = { folder, why };
    this.held = held;
    await this.drop(why);
    await this.closing;
    return () => {
      if (this.held !== held) return;
      this.held = undefined;
      this.resumed.fire();
    };
  }

  /** Whether an indexing run is writing to any corpus now. */
  get indexing(): boolean {
    return this.writing.size > 0;
  }

  private isWriting(folder: string): boolean {
    return [...this.writing.keys()].some((k) => samePath(k, folder));
  }

  private async open(settings: Settings): Promise<Connection> {
    await this.closing;
    const target = this.target(settings);
    if (settings.corpus.backend === 'embedded' && !existsSync(target)) {
      throw new NotConfiguredError(`no corpus at ${target} yet`);
    }
    const { url, supabaseKey } = await this.credentials(settings);
    this.log.info(`opening corpus ${redactSecrets(target)} (${settings.corpus.backend}, schema ${settings.corpus.schema})`);
    // Not const: the store's lost-connection callback may run before openStore returns, and must then see undefined.
    // eslint-disable-next-line prefer-const
    let opened: CorpusStore | undefined;
    const store = await this.openStore(url, { schema: settings.corpus.schema, supabaseKey, create: false }, (err) =>
      this.lost(() => opened, err),
    );
    opened = store;
    const meta = await store.meta();
    const counts = await store.counts();
    if (!meta || counts.sentences === 0) {
      await store.close();
      throw new NotConfiguredError('the corpus is empty');
    }
    let embedder: Embedder;
    try {
      embedder = await this.embedder(settings);
      // A model of another size or name than the corpus's is refused here, in one message naming both sizes and what
      // to do, not at every lookup. Another model of unknown size is probed once (through the embedding cache); the
      // corpus's own model is not (no call at open: each lookup checks its vector against the recorded size).
      if (embedder.dimensions || embedder.model !== meta.model) await heavy().embedderDimensions(embedder, meta);
    } catch (err) {
      await store.close();
      throw err;
    }
    const name = settings.corpus.backend === 'embedded' ? path.basename(target) : new URL(settings.corpus.url).host;
    this.log.info(`corpus ${name}: ${counts.papers} papers, ${counts.sentences} sentences, model ${meta.model} (${meta.dimensions}-d)`);
    return { store, embedder, name, embedderLabel: embedder.model, ...counts };
  }

  private async embedder(settings: Settings): Promise<Embedder> {
    const { createEmbedder } = heavy();
    const e = settings.embedding;
    // Neural and endpoint vectors are kept on disk between sessions: re-indexing or a repeated lookup costs no call.
    const cache = { disk: { dir: path.join(this.context.globalStorageUri.fsPath, 'embeddings') } };
    if (e.provider === 'offline' || e.provider === 'neural') return createEmbedder({ provider: e.provider, cache });
    const apiKey = await this.secrets.get('embedding', e.baseUrl);
    const prefixes = e.prefixes === 'custom' ? { query: e.queryPrefix, document: e.documentPrefix } : e.prefixes;
    return createEmbedder({
      provider: 'openai',
      baseURL: e.baseUrl,
      model: e.model,
      apiKey: apiKey ?? 'none',
      dimensions: e.dimensions ?? undefined,
      prefixes,
      cache,
    });
  }

  /**
   * What an indexing run writes with: the configured corpus (with its credentials) and embedder, or a given folder
   * (the sample corpus) with the offline embedder.
   */
  async openForIndexing(folder?: string): Promise<{ store: CorpusStore; embedder: Embedder }> {
    if (folder)
      return { store: await this.openStore(folder, { schema: 'corpusLens' }), embedder: heavy().createEmbedder({ provider: 'offline' }) };
    const settings = readSettings();
    const { url, supabaseKey } = await this.credentials(settings);
    return { store: await this.openStore(url, { schema: 'corpusLens', supabaseKey }), embedder: await this.embedder(settings) };
  }

  /** The corpus target with the credentials kept in SecretStorage: a postgres URL's password, a Supabase key. */
  private async credentials(settings: Settings): Promise<{ url: string; supabaseKey?: string }> {
    const target = this.target(settings);
    if (settings.corpus.backend === 'postgres') return { url: await this.withPassword(target) };
    if (settings.corpus.backend === 'supabase')
      return { url: target, supabaseKey: await this.secrets.get('supabase', settings.corpus.url) };
    return { url: target };
  }

  /** Adds the password kept in SecretStorage for this host to a postgres:// URL that has none. */
  private async withPassword(url: string): Promise<string> {
    const u = new URL(url);
    if (u.password) return url;
    const password = await this.secrets.get('postgres', url);
    if (password) u.password = password;
    return u.toString();
  }

  /** Closes the open corpus and waits for every earlier close (deactivate: PGlite flushes its files before exit). */
  async close(): Promise<void> {
    await this.drop('the extension is deactivated');
    await this.closing;
  }

  dispose(): void {
    void this.drop();
    this.changed.dispose();
    this.resumed.dispose();
    this.finishedIndexing.dispose();
    this.counted.dispose();
  }
}

function samePath(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b);
}
