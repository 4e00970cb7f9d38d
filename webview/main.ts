// The side panel's app: renders the host's messages (see protocol.ts) and posts the user's actions. Its parts are
// modules of their own: the state screens (screens.ts), the result list (results.ts), the bookmarks box
// (bookmarks.ts) and the keyboard model (keyboard.ts); this file wires them to the host and the toolbar. Corpus
// text only ever enters the DOM as text nodes (dom.ts, render.ts).
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import { AskTab } from './ask-tab.js';
import type { CropScript } from './element-images.js';
import { el, replace } from './dom.js';
import {
  isHighlightMode,
  isHostMessage,
  isOffset,
  type HighlightMode,
  type HostMessage,
  type Offset,
  type ViewMessage,
  type ViewState,
} from './protocol.js';
import { whoOf, type Action } from './render.js';
import { BookmarkList } from './bookmarks.js';
import { onActionArrows, onListFocus, onListKey } from './keyboard.js';
import { ResultList, type RenderStats } from './results.js';
import { StateScreens } from './screens.js';
import { SearchBar } from './filters.js';
import { connectHost, type PersistedState } from './vscode.js';

// lit falls back to <style> elements where constructable stylesheets are missing; give them the CSP nonce.
const scriptNonce = (document.currentScript as HTMLScriptElement | null)?.nonce;
if (scriptNonce) (window as unknown as { litNonce?: string }).litNonce = scriptNonce;

type Checkbox = HTMLElement & { checked: boolean };

/** The crop script for element images, as the panel's HTML names it on #root (absent: cards stay text). */
function cropScript(): CropScript | null {
  const root = document.getElementById('root');
  const src = root?.dataset.crop;
  const worker = root?.dataset.worker;
  return src && worker && scriptNonce ? { src, worker, nonce: scriptNonce } : null;
}

class Panel {
  private readonly host = connectHost();
  private highlight: HighlightMode = 'recurring';
  private offset: Offset = 0;
  /** The last state that is not `searching`: what a reload restores. */
  private stable: ViewState = { kind: 'idle' };
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;

  private readonly bookmarks = new BookmarkList();
  private readonly results = new ResultList(this.highlight, (id) => this.bookmarks.has(id));
  private readonly screens = new StateScreens();
  private readonly offsetToggle = el('vscode-checkbox', {
    class: 'cl-toggle',
    attrs: { toggle: true, id: 'cl-offset-toggle', title: 'Show the sentence that follows each match' },
  }) as Checkbox;
  private readonly rareToggle = el('vscode-checkbox', {
    class: 'cl-toggle',
    attrs: { toggle: true, id: 'cl-rare-toggle', title: 'Highlight words found in only one result instead of recurring ones' },
  }) as Checkbox;
  private readonly status = el('div', { class: 'cl-sr-only', attrs: { id: 'cl-status', role: 'status', 'aria-live': 'polite' } });
  private readonly notice = el('div', { class: 'cl-notice', attrs: { id: 'cl-notice', 'aria-hidden': 'true' } });

  private readonly searchBar = new SearchBar(
    (m) => this.post(m),
    (text) => this.announce(text),
  );
  private readonly askTab = new AskTab((m) => this.post(m), cropScript());
  private readonly askPanel = el('vscode-tab-panel', { class: 'cl-ask' });
  private readonly tabs = el('vscode-tabs', { attrs: { id: 'cl-tabs' } }) as HTMLElement & { selectedIndex: number };
  private tab: 'similar' | 'ask' = 'similar';

  get lastRender(): RenderStats | undefined {
    return this.results.lastRender;
  }

  mount(root: HTMLElement): void {
    this.offsetToggle.textContent = 'What authors write next';
    this.rareToggle.textContent = 'Highlight rare words';
    this.askTab.mount(this.askPanel);
    replace(
      this.tabs,
      el('vscode-tab-header', { attrs: { slot: 'header' } }, 'Similar sentences'),
      el(
        'vscode-tab-panel',
        { class: 'cl-similar' },
        el(
          'header',
          { class: 'cl-header' },
          this.searchBar.element,
          el('div', { class: 'cl-toolbar', attrs: { role: 'group', 'aria-label': 'View options' } }, this.offsetToggle, this.rareToggle),
          this.searchBar.summary,
          this.results.meta,
          this.results.queryEl,
        ),
        this.status,
        this.screens.element,
        this.results.list,
        this.bookmarks.element,
      ),
      el('vscode-tab-header', { attrs: { slot: 'header' } }, 'Ask'),
      this.askPanel,
    );
    replace(root, this.tabs, this.notice);
    this.tabs.addEventListener('vsc-tabs-select', (e) => {
      this.tab = (e as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex === 1 ? 'ask' : 'similar';
      this.persist();
    });
    this.offsetToggle.addEventListener('change', () => this.onOffsetToggle());
    this.rareToggle.addEventListener('change', () => this.onRareToggle());
    this.results.list.addEventListener('keydown', (e) => onListKey(e, this.results, (action, id) => this.act(action, id)));
    this.results.list.addEventListener('focusin', (e) => onListFocus(e, this.results));
    root.addEventListener('click', (e) => this.onClick(e));
    this.bookmarks.list.addEventListener('keydown', (e) => onActionArrows(e));
    window.addEventListener('message', (e: MessageEvent) => this.onMessage(e.data));

    const saved = this.host.load();
    if (saved) {
      if (isHighlightMode(saved.highlight)) this.setHighlight(saved.highlight);
      if (isOffset(saved.offset)) this.offset = saved.offset;
      if (saved.tab === 'ask') this.selectTab('ask');
    }
    this.syncToggles();
    this.bookmarks.set([]);
    this.show(saved?.last ?? { kind: 'idle' });
    this.post({ type: 'ready' });
  }

  private post(m: ViewMessage): void {
    this.host.post(m);
  }

  private selectTab(tab: 'similar' | 'ask'): void {
    this.tab = tab;
    this.tabs.selectedIndex = tab === 'ask' ? 1 : 0;
  }

  private persist(): void {
    const s: PersistedState = { v: 1, highlight: this.highlight, offset: this.offset, last: this.stable, tab: this.tab };
    this.host.save(s);
  }

  private onMessage(data: unknown): void {
    if (!isHostMessage(data)) return;
    const m: HostMessage = data;
    switch (m.type) {
      case 'state':
        this.show(m.state);
        break;
      case 'bookmarks':
        this.bookmarks.set(m.list);
        this.results.syncBookmarkButtons();
        break;
      case 'settings':
        if (isOffset(m.settings.offset)) this.offset = m.settings.offset;
        this.syncToggles();
        this.persist();
        break;
      case 'notice':
        this.showNotice(m.text);
        break;
      case 'reveal':
        this.selectTab('similar');
        this.results.reveal(m.hitId);
        break;
      case 'ask':
        this.askTab.show(m.ask);
        break;
      case 'askProgress':
        this.askTab.progress(m.progress);
        break;
      case 'askCropData':
      case 'askCropFailed':
        this.askTab.crop(m);
        break;
      case 'filters':
        this.searchBar.set(m.filters, m.search);
        break;
      case 'askFocus':
        this.selectTab('ask');
        this.persist();
        // The tab panel is shown by the tabs' own update: focus once it is rendered.
        requestAnimationFrame(() => this.askTab.focus());
        break;
      default:
        assertNever(m);
    }
  }

  // ---- toolbar ----

  private syncToggles(): void {
    this.offsetToggle.checked = this.offset === 1;
    this.rareToggle.checked = this.highlight === 'rare';
    document.body.dataset.highlight = this.highlight;
  }

  private setHighlight(mode: HighlightMode): void {
    this.highlight = mode;
    this.results.setHighlight(mode);
  }

  private onOffsetToggle(): void {
    this.offset = this.offsetToggle.checked ? 1 : 0;
    this.persist();
    this.post({ type: 'setOffset', offset: this.offset });
  }

  /** Recurring / rare words: the view's own setting, kept in its webview state (the host has no part in it). */
  private onRareToggle(): void {
    const checked = this.rareToggle.checked;
    this.setHighlight(checked ? 'rare' : 'recurring');
    document.body.dataset.highlight = this.highlight;
    this.persist();
    this.announce(checked ? 'Highlighting rare words' : 'Highlighting recurring words');
  }

  // ---- states ----

  private show(state: ViewState): void {
    const t0 = performance.now();
    const focusInMessage = this.screens.element.contains(document.activeElement);
    if (state.kind !== 'searching') this.stable = state;
    document.body.dataset.state = state.kind;
    this.results.setBusy(state.kind === 'searching');
    if (state.kind === 'results') {
      this.screens.hide();
      if (isOffset(state.offset) && state.offset !== this.offset) {
        this.offset = state.offset;
        this.syncToggles();
      }
      const count = this.results.render(state, t0);
      if (count === 0) this.screens.info('No similar sentences were found.');
      this.announce(`${count} similar sentence${count === 1 ? '' : 's'}${state.offset === 1 ? ', showing what authors write next' : ''}.`);
    } else {
      if (state.kind !== 'searching') this.results.clear();
      const announcement = this.screens.show(state);
      if (state.kind === 'noResults' && state.query) this.results.setQuery(state.query.clean, state.query.section, 0, state.query.typed);
      if (announcement) this.announce(announcement);
    }
    // A button the user pressed (Try again, Set up corpus…) was replaced: keep focus in the panel.
    if (focusInMessage && (this.screens.element.hidden || !this.screens.element.contains(document.activeElement))) {
      const first = this.results.firstItem();
      if (first) first.focus();
      else this.screens.focus();
    }
    this.persist();
  }

  // ---- actions ----

  private onClick(e: MouseEvent): void {
    const target = e.target instanceof Element ? e.target.closest<HTMLElement>('[data-action]') : null;
    if (!target) return;
    const action = target.dataset.action ?? '';
    if (action.startsWith('run:')) {
      const next = action.slice(4);
      if (next === 'addPapers' || next === 'openSample' || next === 'connect') this.post({ type: 'run', action: next });
      return;
    }
    if (action === 'configure' || action === 'retry' || action === 'showLog' || action === 'recover') {
      this.post({ type: action });
      return;
    }
    const item = target.closest<HTMLElement>('[data-hit-id]');
    const id = item?.dataset.hitId;
    if (!item || id === undefined) return;
    if (action === 'unbookmark') {
      const index = this.bookmarks.indexOf(item);
      this.toggleBookmark(id, false);
      this.bookmarks.focusAfterRemoval(index);
      return;
    }
    this.act(action as Action, id);
  }

  private act(action: Action, id: string): void {
    switch (action) {
      case 'copy':
      case 'cite':
      case 'openSource':
        this.post({ type: action, hitId: id });
        break;
      case 'bookmark':
        this.toggleBookmark(id, !this.bookmarks.has(id));
        break;
    }
  }

  /** Optimistic: the list updates at once; the host's `bookmarks` message is the truth and replaces it. */
  private toggleBookmark(id: string, on: boolean): void {
    if (on) {
      const hit = this.results.hit(id);
      if (hit) this.bookmarks.add(hit);
      this.post({ type: 'bookmark', hitId: id });
      this.announce(`Bookmarked: ${hit ? whoOf(hit) : 'result'}.`);
    } else {
      this.bookmarks.remove(id);
      this.post({ type: 'unbookmark', hitId: id });
      this.announce('Bookmark removed.');
    }
    this.results.syncBookmarkButtons();
  }

  // ---- announcements ----

  private announce(text: string): void {
    // Re-set so that the same text twice is still announced.
    this.status.textContent = '';
    this.status.textContent = text;
  }

  private showNotice(text: string): void {
    this.announce(text);
    this.notice.textContent = text;
    this.notice.classList.add('cl-notice-visible');
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => this.notice.classList.remove('cl-notice-visible'), 2500);
  }
}

const root = document.getElementById('root');
if (root) {
  const panel = new Panel();
  panel.mount(root);
  (window as unknown as { corpusLens?: { lastRender(): RenderStats | undefined } }).corpusLens = {
    lastRender: () => panel.lastRender,
  };
}

/** The exhaustiveness check: a host message type added to the protocol and not handled above fails the typecheck. */
function assertNever(m: never): void {
  void m;
}
