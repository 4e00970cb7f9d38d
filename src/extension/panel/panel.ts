// The side panel: a webview view that renders what the lookup loop reports and turns the user's clicks
// into actions. Messages are typed in webview/protocol.ts; corpus text only ever travels as data.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { toBookmark, toHitView } from './hit-view.js';
import { panelHtml } from './panel-html.js';
import {
  isViewMessage,
  type AskProgressView,
  type AskView,
  type BookmarkView,
  type FiltersView,
  type HitView,
  type HostMessage,
  type NextAction,
  type QueryView,
  type ViewMessage,
  type ViewState,
} from '../../../webview/protocol.js';
import type { LookupEvent } from '../lookup/lookup.js';
import { RESULTS_VIEW_ID } from '../command-table.js';

/** What the panel asks the rest of the extension to do. */
export interface PanelActions {
  cite(hit: HitView): Promise<void>;
  openSource(hit: HitView): Promise<void>;
  setOffset(offset: 0 | 1): void;
  configure(): void;
  retry(): void;
  showLog(): void;
  /** Go back to the corpus that last worked. */
  recover(): void;
  /** A next action a first-run or error state names. */
  run(action: NextAction): void;
  /** The Ask tab: the conversation now, and what its controls do (none awaited: failures are reported). */
  askView(): Promise<AskView>;
  ask(question: string): void;
  askCancel(): void;
  askClear(): void;
  askInsert(turn: number): void;
  askCite(source: number): void;
  askOpenSource(source: number): void;
  /** Open the corpus paper that work `cite` of source `source`'s quote is. */
  askOpenCited(source: number, cite: number): void;
  /** Open source of element card `element` of turn `turn`. */
  askOpenElement(turn: number, element: number): void;
  /** An element card's image: the PDF to draw it from (the reply is posted to the view), and the drawing to keep. */
  askCrop(key: string): Promise<Extract<HostMessage, { type: 'askCropData' | 'askCropFailed' }>>;
  askCropDone(key: string, png: string | null, message?: string): void;
  /** The search box's text ('' = back to the cursor's sentence). */
  search(text: string): void;
  /** The filter form's Apply / Clear. */
  setFilters(filters: FiltersView): void;
  /** The filters in force and the search box's text. */
  filters(): { filters: FiltersView; search: string };
}

export class ResultsPanel implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private state: ViewState = { kind: 'idle' };
  private hits = new Map<string, HitView>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly shown = new vscode.EventEmitter<void>();
  /** The view's script has said `ready` (it receives messages). */
  private ready = false;
  private askFocusPending = false;
  /** Fires when the panel appears (opened, or its tab selected again): a moment to look up the cursor's sentence. */
  readonly onDidShow = this.shown.event;

  /** What the panel's buttons run: bound by the panel feature (panel/index.ts), after the features they call, which show this panel. */
  private actions!: PanelActions;

  constructor(private readonly context: vscode.ExtensionContext) {}

  bind(actions: PanelActions): void {
    this.actions = actions;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const roots = [vscode.Uri.joinPath(this.context.extensionUri, 'dist'), vscode.Uri.joinPath(this.context.extensionUri, 'media')];
    view.webview.options = { enableScripts: true, localResourceRoots: roots };
    view.webview.html = panelHtml({
      cspSource: view.webview.cspSource,
      nonce: randomBytes(16).toString('base64'),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'webview.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'media', 'panel.css')).toString(),
      cropUri: view.webview.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'pdf-crop.js')).toString(),
      workerUri: view.webview.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'pdf.worker.mjs')).toString(),
    });
    this.disposables.push(
      view.webview.onDidReceiveMessage((m: unknown) => {
        if (isViewMessage(m)) void this.onMessage(m);
      }),
      view.onDidDispose(() => {
        this.view = undefined;
        this.ready = false;
      }),
      view.onDidChangeVisibility(() => {
        if (view.visible) this.shown.fire();
      }),
    );
    this.shown.fire();
  }

  get visible(): boolean {
    return !!this.view?.visible;
  }

  /** Shows the panel (and creates it the first time). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${RESULTS_VIEW_ID}.focus`);
  }

  /** The current state, for tests and the status bar. */
  get current(): ViewState {
    return this.state;
  }

  show(event: LookupEvent): void {
    switch (event.kind) {
      case 'searching':
        return this.setState({ kind: 'searching', query: event.sentence.clean });
      case 'notProse':
        return this.setState({ kind: 'notProse' });
      case 'notConfigured':
        return this.setState({ kind: 'notConfigured', reason: event.reason });
      case 'error':
        return this.setState({ kind: 'error', message: event.error.message, corpus: event.corpus, recover: event.recover });
      case 'results': {
        const { result } = event;
        const query = { clean: result.sentence.clean, section: result.sentence.section, ...(result.typed ? { typed: true } : {}) };
        if (!result.hits.length) {
          return this.setState({
            kind: 'noResults',
            threshold: vscode.workspace.getConfiguration('corpusLens').get('results.threshold', 0.2),
            query,
            ...(result.filtered ? { filtered: true } : {}),
          });
        }
        const hits = result.hits.map((h) => toHitView(h));
        this.hits = new Map(hits.map((h) => [h.id, h]));
        return this.setState({
          kind: 'results',
          query,
          hits,
          offset: result.shift,
          corpusName: `${result.connection.name} (${result.connection.papers} papers)`,
          embedder: result.connection.embedderLabel,
          elapsedMs: Math.round(result.elapsedMs),
        });
      }
    }
  }

  /**
   * Shows sentences the extension chose rather than a lookup found (where a cited paper comes closest to a
   * sentence); the next lookup replaces them as usual.
   */
  showHits(query: QueryView, hits: HitView[], heading: string): void {
    this.hits = new Map(hits.map((h) => [h.id, h]));
    this.setState({ kind: 'results', query, hits, offset: 0, corpusName: heading, embedder: '' });
  }

  /** The Ask tab's conversation (after each answer and a clear). */
  showAsk(ask: AskView): void {
    void this.post({ type: 'ask', ask });
  }

  askProgress(progress: AskProgressView): void {
    void this.post({ type: 'askProgress', progress });
  }

  /** Shows the panel on its Ask tab with the cursor in the question box. */
  async focusAsk(): Promise<void> {
    await this.reveal();
    // A panel opened just now has no script running yet: the focus request waits for its `ready`.
    if (this.ready) await this.post({ type: 'askFocus' });
    else this.askFocusPending = true;
  }

  /** The filters and the search box's text as they are now (after a change). */
  showFilters(): void {
    const { filters, search } = this.actions.filters();
    void this.post({ type: 'filters', filters, search });
  }

  notice(text: string): void {
    void this.post({ type: 'notice', text });
  }

  revealHit(hitId: string): void {
    void this.post({ type: 'reveal', hitId });
  }

  private setState(state: ViewState): void {
    this.state = state;
    void this.post({ type: 'state', state });
  }

  private post(message: HostMessage): Thenable<boolean> | undefined {
    return this.view?.webview.postMessage(message);
  }

  private bookmarks(): BookmarkView[] {
    return this.context.workspaceState.get<BookmarkView[]>('corpusLens.bookmarks', []);
  }

  private findHit(id: string): HitView | undefined {
    const b = this.bookmarks().find((x) => x.id === id);
    return (
      this.hits.get(id) ?? (b ? { id: b.id, similarity: 0, sentence: b.sentence, previous: null, next: null, paper: b.paper } : undefined)
    );
  }

  private async onMessage(m: ViewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        await this.post({ type: 'settings', settings: { offset: this.hitsOffset() } });
        await this.post({ type: 'bookmarks', list: this.bookmarks() });
        await this.post({ type: 'filters', ...this.actions.filters() });
        await this.post({ type: 'state', state: this.state });
        await this.post({ type: 'ask', ask: await this.actions.askView() });
        this.ready = true;
        if (this.askFocusPending) {
          this.askFocusPending = false;
          await this.post({ type: 'askFocus' });
        }
        return;
      case 'copy': {
        const hit = this.findHit(m.hitId);
        if (hit) {
          await vscode.env.clipboard.writeText(hit.sentence.text);
          this.notice('Copied');
        }
        return;
      }
      case 'cite':
      case 'openSource': {
        const hit = this.findHit(m.hitId);
        if (hit) await (m.type === 'cite' ? this.actions.cite(hit) : this.actions.openSource(hit));
        return;
      }
      case 'bookmark':
      case 'unbookmark':
        return this.toggleBookmark(m.hitId, m.type === 'bookmark');
      case 'setOffset':
        return this.actions.setOffset(m.offset);
      case 'configure':
        return this.actions.configure();
      case 'retry':
        return this.actions.retry();
      case 'showLog':
        return this.actions.showLog();
      case 'recover':
        return this.actions.recover();
      case 'run':
        return this.actions.run(m.action);
      case 'ask':
        return this.actions.ask(m.question);
      case 'askCancel':
        return this.actions.askCancel();
      case 'askClear':
        return this.actions.askClear();
      case 'askInsert':
        return this.actions.askInsert(m.turn);
      case 'askCite':
        return this.actions.askCite(m.source);
      case 'askOpenSource':
        return this.actions.askOpenSource(m.source);
      case 'askOpenCited':
        return this.actions.askOpenCited(m.source, m.cite);
      case 'askOpenElement':
        return this.actions.askOpenElement(m.turn, m.element);
      case 'askCrop':
        await this.post(await this.actions.askCrop(m.key));
        return;
      case 'askCropDone':
        return this.actions.askCropDone(m.key, m.png, m.message);
      case 'search':
        return this.actions.search(m.text);
      case 'setFilters':
        return this.actions.setFilters(m.filters);
      default:
        return assertNever(m);
    }
  }

  private hitsOffset(): 0 | 1 {
    return this.state.kind === 'results' ? this.state.offset : 0;
  }

  private async toggleBookmark(id: string, on: boolean): Promise<void> {
    const list = this.bookmarks().filter((b) => b.id !== id);
    const hit = this.hits.get(id);
    if (on && hit) list.unshift(toBookmark(hit));
    await this.context.workspaceState.update('corpusLens.bookmarks', list);
    await this.post({ type: 'bookmarks', list });
  }

  dispose(): void {
    this.shown.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/** The exhaustiveness check: a view message type added to the protocol and not handled above fails the typecheck. */
function assertNever(m: never): void {
  void m;
}
