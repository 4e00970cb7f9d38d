// The side panel's app: renders the host's `state` messages (see protocol.ts), highlights recurring or rare
// words, and posts the user's actions. Corpus text only ever enters the DOM as text nodes (dom.ts, render.ts).
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
import { highlightTerms, type HighlightRange } from '../src/core/retrieve/recurring.js';
import { el, replace } from './dom.js';
import {
  PROTOCOL_VERSION,
  isHighlightMode,
  isHostMessage,
  isOffset,
  type ActionSource,
  type BookmarkView,
  type HighlightMode,
  type HitView,
  type HostMessage,
  type Offset,
  type ViewMessage,
  type ViewState,
} from './protocol.js';
import { fillHighlighted, renderBookmark, renderHit, setBookmarkButton, shortAuthors, type Action } from './render.js';
import { connectHost, type PersistedState } from './vscode.js';

// lit falls back to <style> elements where constructable stylesheets are missing; give them the CSP nonce.
const scriptNonce = (document.currentScript as HTMLScriptElement | null)?.nonce;
if (scriptNonce) (window as unknown as { litNonce?: string }).litNonce = scriptNonce;

/** Time budget of one rendering slice (ms). */
const SLICE_MS = 8;
/** The slice budget; the Chromium tests lower it (window.__corpusLensSliceMs) to exercise sliced renders. */
const sliceMs = (): number => (window as unknown as { __corpusLensSliceMs?: number }).__corpusLensSliceMs ?? SLICE_MS;

/** Timing of the last completed results render, for tests and the log. */
export interface RenderStats {
  /** Increments with every completed render. */
  seq: number;
  hits: number;
  /** Main-thread time spent building and inserting the list, all slices together (ms). */
  buildMs: number;
  /** How many tasks the render took (1 = one pass). */
  slices: number;
}

class Panel {
  private readonly host = connectHost();
  private highlight: HighlightMode = 'recurring';
  private offset: Offset = 0;
  /** The last state that is not `searching`: what a reload restores. */
  private stable: ViewState = { kind: 'idle' };
  /** The hits on screen (kept while a new search runs). */
  private hits: HitView[] = [];
  private query: string | undefined;
  private bookmarks: BookmarkView[] = [];
  private bookmarked = new Set<string>();
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;
  /** Highlight ranges of the hits on screen, per hit (also used by slices still to come). */
  private ranges: HighlightRange[][] = [];
  private renderToken = 0;
  private renderSeq = 0;
  private pendingReveal: string | undefined;

  // Static skeleton.
  private readonly offsetToggle = el('vscode-checkbox', {
    class: 'cl-toggle',
    attrs: { toggle: true, id: 'cl-offset-toggle', title: 'Show the sentence that follows each match' },
  });
  private readonly rareToggle = el('vscode-checkbox', {
    class: 'cl-toggle',
    attrs: { toggle: true, id: 'cl-rare-toggle', title: 'Highlight words found in only one result instead of recurring ones' },
  });
  private readonly meta = el('div', { class: 'cl-meta', attrs: { id: 'cl-meta' } });
  private readonly queryEl = el('div', { class: 'cl-query', attrs: { id: 'cl-query' } });
  private readonly message = el('div', { class: 'cl-message', attrs: { id: 'cl-message' } });
  private readonly status = el('div', { class: 'cl-sr-only', attrs: { id: 'cl-status', role: 'status', 'aria-live': 'polite' } });
  private readonly notice = el('div', { class: 'cl-notice', attrs: { id: 'cl-notice', 'aria-hidden': 'true' } });
  private readonly list = el('ol', {
    class: 'cl-results',
    attrs: { id: 'cl-results', 'aria-label': 'Similar sentences', hidden: true },
  });
  private readonly bookmarksCount = el('vscode-badge', { attrs: { variant: 'counter', id: 'cl-bookmarks-count' } });
  private readonly bookmarksList = el('ol', { class: 'cl-bookmark-list', attrs: { id: 'cl-bookmark-list', 'aria-label': 'Bookmarks' } });
  private readonly bookmarksBox = el(
    'details',
    { class: 'cl-bookmarks', attrs: { id: 'cl-bookmarks' } },
    el('summary', {}, 'Bookmarks ', this.bookmarksCount),
    this.bookmarksList,
  );

  lastRender: RenderStats | undefined;

  mount(root: HTMLElement): void {
    this.offsetToggle.textContent = 'What authors write next';
    this.rareToggle.textContent = 'Highlight rare words';
    replace(
      root,
      el(
        'header',
        { class: 'cl-header' },
        el('div', { class: 'cl-toolbar', attrs: { role: 'group', 'aria-label': 'View options' } }, this.offsetToggle, this.rareToggle),
        this.meta,
        this.queryEl,
      ),
      this.status,
      this.message,
      this.list,
      this.bookmarksBox,
      this.notice,
    );
    this.offsetToggle.addEventListener('change', () => this.onOffsetToggle());
    this.rareToggle.addEventListener('change', () => this.onRareToggle());
    this.list.addEventListener('keydown', (e) => this.onListKey(e));
    this.list.addEventListener('focusin', (e) => this.onListFocus(e));
    root.addEventListener('click', (e) => this.onClick(e));
    this.bookmarksList.addEventListener('keydown', (e) => this.onActionArrows(e));
    window.addEventListener('message', (e: MessageEvent) => this.onMessage(e.data));

    const saved = this.host.load();
    if (saved) {
      if (isHighlightMode(saved.highlight)) this.highlight = saved.highlight;
      if (isOffset(saved.offset)) this.offset = saved.offset;
    }
    this.syncToggles();
    this.renderBookmarks();
    this.show(saved?.last ?? { kind: 'idle' });
    this.post({ type: 'ready', version: PROTOCOL_VERSION });
  }

  private post(m: ViewMessage): void {
    this.host.post(m);
  }

  private persist(): void {
    const s: PersistedState = { v: 1, highlight: this.highlight, offset: this.offset, last: this.stable };
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
        this.bookmarks = m.list.filter((b) => b && typeof b.id === 'string');
        this.renderBookmarks();
        break;
      case 'settings':
        if (isHighlightMode(m.settings.highlight) && m.settings.highlight !== this.highlight) {
          this.highlight = m.settings.highlight;
          this.rehighlight();
        }
        if (isOffset(m.settings.offset)) this.offset = m.settings.offset;
        this.syncToggles();
        this.persist();
        break;
      case 'notice':
        this.showNotice(m.text);
        break;
      case 'reveal':
        this.reveal(m.hitId);
        break;
    }
  }

  // ---- toggles ----

  private syncToggles(): void {
    (this.offsetToggle as HTMLElement & { checked: boolean }).checked = this.offset === 1;
    (this.rareToggle as HTMLElement & { checked: boolean }).checked = this.highlight === 'rare';
    document.body.dataset.highlight = this.highlight;
  }

  private onOffsetToggle(): void {
    const checked = (this.offsetToggle as HTMLElement & { checked: boolean }).checked;
    this.offset = checked ? 1 : 0;
    this.persist();
    this.post({ type: 'setOffset', offset: this.offset });
  }

  private onRareToggle(): void {
    const checked = (this.rareToggle as HTMLElement & { checked: boolean }).checked;
    this.highlight = checked ? 'rare' : 'recurring';
    document.body.dataset.highlight = this.highlight;
    this.rehighlight();
    this.persist();
    this.post({ type: 'setHighlight', mode: this.highlight });
    this.announce(checked ? 'Highlighting rare words' : 'Highlighting recurring words');
  }

  // ---- states ----

  private show(state: ViewState): void {
    const focusInMessage = this.message.contains(document.activeElement);
    if (state.kind !== 'searching') this.stable = state;
    document.body.dataset.state = state.kind;
    const busy = state.kind === 'searching';
    this.list.setAttribute('aria-busy', busy ? 'true' : 'false');
    this.list.classList.toggle('cl-stale', busy);
    switch (state.kind) {
      case 'idle':
        this.clearResults();
        this.setMessage('cl-info', 'Place the cursor in a sentence of your paper to see how prior papers phrase it.', [
          this.button('Find similar sentences', 'retry', 'Find sentences similar to the one at the cursor'),
        ]);
        this.announce('Corpus Lens is ready.');
        break;
      case 'searching': {
        this.setMessage('cl-searching', null, []);
        const ring = el('vscode-progress-ring', { attrs: { 'aria-label': 'Searching', 'aria-live': 'off', role: 'progressbar' } });
        this.message.append(ring, el('span', {}, 'Searching for sentences like ', el('q', {}, state.query)));
        this.announce('Searching…');
        break;
      }
      case 'results':
        this.renderResults(state);
        break;
      case 'noResults':
        this.clearResults();
        this.setMessage(
          'cl-info',
          `No sentences in the corpus are similar enough (similarity at least ${state.threshold.toFixed(2)}). ` +
            'Try a longer or more specific sentence, or lower the threshold in the corpusLens.results.threshold setting.',
          [],
        );
        if (state.query) this.setQuery(state.query.clean, state.query.section, 0);
        this.announce('No similar sentences above the threshold.');
        break;
      case 'notProse':
        this.clearResults();
        this.setMessage(
          'cl-info',
          state.reason ?? 'The cursor is not in a prose sentence (math, code, a command, a heading or the preamble). Move it into a sentence.',
          [],
        );
        this.announce('Not in a prose sentence.');
        break;
      case 'notConfigured':
        this.clearResults();
        this.setMessage(
          'cl-info',
          `${state.reason ? `${capitalise(state.reason)}. ` : 'No corpus yet. '}Add papers (PDF, LaTeX, Markdown, .bib) to build one, open the sample corpus to try Corpus Lens, or connect to a shared corpus.`,
          [
            this.button('Add Papers…', 'run:addPapers', 'Add papers to the corpus', true),
            this.button('Open Sample Corpus', 'run:openSample', 'Open the sample corpus'),
            this.button('Connect…', 'run:connect', 'Connect to a corpus'),
          ],
        );
        this.announce('No corpus configured.');
        break;
      case 'error': {
        this.clearResults();
        this.setMessage('cl-error', null, []);
        this.message.setAttribute('role', 'alert');
        const where = state.corpus ? `Search in ${state.corpus} failed: ` : 'Search failed: ';
        this.message.append(el('p', { class: 'cl-error-text' }, el('strong', {}, where), state.message));
        if (state.detail) {
          this.message.append(el('details', { class: 'cl-error-detail' }, el('summary', {}, 'Details'), el('pre', {}, state.detail)));
        }
        const buttons = state.recover
          ? [this.button(`Go back to ${state.recover}`, 'recover', `Go back to ${state.recover}`, true), this.button('Try again', 'retry', 'Try the search again')]
          : [this.button('Try again', 'retry', 'Try the search again', true)];
        this.message.append(
          el(
            'div',
            { class: 'cl-message-actions' },
            ...buttons,
            this.button('Switch corpus…', 'run:connect', 'Switch to another corpus'),
            this.button('Show log', 'showLog', 'Show the Corpus Lens log'),
          ),
        );
        break;
      }
    }
    // A button the user pressed (Try again, Set up corpus…) was replaced: keep focus in the panel.
    if (focusInMessage && (this.message.hidden || !this.message.contains(document.activeElement))) this.focusAfterStateChange();
    this.persist();
  }

  private focusAfterStateChange(): void {
    const first = this.list.hidden ? null : (this.list.querySelector<HTMLElement>('.cl-hit[tabindex="0"]') ?? null);
    const target = first ?? this.message.querySelector<HTMLElement>('[data-action]');
    if (target) {
      target.focus();
      return;
    }
    this.message.tabIndex = -1;
    this.message.focus();
  }

  private button(label: string, action: string, ariaLabel: string, primary = false): HTMLElement {
    const b = el('vscode-button', { attrs: { 'data-action': action, 'aria-label': ariaLabel, secondary: !primary } });
    b.textContent = label;
    return b;
  }

  private setMessage(cls: string, text: string | null, buttons: HTMLElement[]): void {
    this.message.className = `cl-message ${cls}`;
    this.message.removeAttribute('role');
    this.message.hidden = false;
    replace(this.message, text !== null ? el('p', {}, text) : null, buttons.length ? el('div', { class: 'cl-message-actions' }, ...buttons) : null);
  }

  private clearResults(): void {
    this.renderToken++;
    this.ranges = [];
    this.hits = [];
    this.query = undefined;
    this.list.hidden = true;
    this.list.replaceChildren();
    this.meta.replaceChildren();
    this.queryEl.replaceChildren();
  }

  private setQuery(clean: string, section: string | null, offset: Offset): void {
    replace(
      this.queryEl,
      el('span', { class: 'cl-query-label' }, offset === 1 ? 'What authors write after sentences like ' : 'Sentences like '),
      el('q', {}, clean),
      section ? el('span', { class: 'cl-query-section' }, ` in ${section}`) : null,
    );
  }

  /**
   * Builds the result list in time slices of at most {@link SLICE_MS}: each slice appends one DocumentFragment
   * (the first always holds at least the top result), and if the budget is spent the rest follows in the next
   * task, so a cold first render on a busy machine cannot hold the renderer for long. Warm renders of 25 results
   * fit in one slice (see test/webview/panel.test.ts for the measured times).
   */
  private renderResults(state: Extract<ViewState, { kind: 'results' }>): void {
    const t0 = performance.now();
    const token = ++this.renderToken;
    this.message.hidden = true;
    this.message.removeAttribute('role');
    replace(this.message);
    this.hits = state.hits;
    this.query = state.query.clean;
    if (isOffset(state.offset) && state.offset !== this.offset) {
      this.offset = state.offset;
      this.syncToggles();
    }
    const count = state.hits.length;
    replace(
      this.meta,
      el('span', { class: 'cl-count' }, `${count} similar sentence${count === 1 ? '' : 's'}`),
      el('span', { class: 'cl-corpus', attrs: { title: 'Corpus' } }, state.corpusName),
      el('span', { class: 'cl-embedder', attrs: { title: 'Embedder' } }, state.embedder),
      state.elapsedMs != null ? el('span', { class: 'cl-elapsed' }, `${Math.round(state.elapsedMs)} ms`) : null,
    );
    this.setQuery(state.query.clean, state.query.section, state.offset);
    this.ranges = this.computeRanges();
    const hadFocus = this.list.contains(document.activeElement);
    this.list.replaceChildren();
    this.list.hidden = count === 0;
    if (count === 0) this.setMessage('cl-info', 'No similar sentences were found.', []);
    this.announce(`${count} similar sentence${count === 1 ? '' : 's'}${state.offset === 1 ? ', showing what authors write next' : ''}.`);

    let next = 0;
    let slices = 0;
    let buildMs = 0;
    const slice = (): void => {
      if (token !== this.renderToken) return; // a newer state replaced these results
      const start = performance.now();
      const frag = document.createDocumentFragment();
      const markClass = this.markClass();
      do {
        const hit = state.hits[next];
        const li = renderHit(hit, {
          index: next,
          total: count,
          offset: state.offset,
          ranges: this.ranges[next] ?? [],
          markClass,
          bookmarked: this.bookmarked.has(hit.id),
        });
        if (next === 0) li.tabIndex = 0;
        frag.appendChild(li);
        next++;
      } while (next < count && performance.now() - start < sliceMs());
      this.list.appendChild(frag);
      slices++;
      buildMs += performance.now() - (slices === 1 ? t0 : start);
      if (slices === 1 && hadFocus) (this.list.firstElementChild as HTMLElement | null)?.focus();
      if (next < count) {
        setTimeout(slice, 0);
        return;
      }
      this.lastRender = { seq: ++this.renderSeq, hits: count, buildMs, slices };
      if (this.pendingReveal !== undefined) {
        const id = this.pendingReveal;
        this.pendingReveal = undefined;
        this.reveal(id);
      }
    };
    if (count > 0) slice();
    else this.lastRender = { seq: ++this.renderSeq, hits: 0, buildMs: performance.now() - t0, slices: 0 };
  }

  private markClass(): string {
    return this.highlight === 'rare' ? 'cl-mark cl-mark-rare' : 'cl-mark cl-mark-recurring';
  }

  private computeRanges(): HighlightRange[][] {
    if (this.highlight === 'off' || this.hits.length === 0) return this.hits.map(() => []);
    return highlightTerms(
      {
        texts: this.hits.map((h) => h.sentence.text),
        context: this.hits.map((h) => [h.previous?.text, h.next?.text].filter(Boolean).join(' ')),
        query: this.query,
      },
      { mode: this.highlight },
    ).ranges;
  }

  /** Re-marks the sentences in place (no list rebuild, focus kept). */
  private rehighlight(): void {
    if (this.hits.length === 0) return;
    this.ranges = this.computeRanges(); // slices still to come use these too
    const markClass = this.markClass();
    const items = this.list.children;
    for (let i = 0; i < items.length; i++) {
      const span = items[i].querySelector<HTMLElement>('.cl-sentence');
      const hit = this.hits[i];
      if (span && hit) fillHighlighted(span, hit.sentence.text, this.ranges[i] ?? [], markClass);
    }
  }

  // ---- bookmarks ----

  private renderBookmarks(): void {
    this.bookmarked = new Set(this.bookmarks.map((b) => b.id));
    this.bookmarksCount.textContent = String(this.bookmarks.length);
    this.bookmarksCount.setAttribute('aria-label', `${this.bookmarks.length} bookmark${this.bookmarks.length === 1 ? '' : 's'}`);
    if (this.bookmarks.length === 0) {
      replace(this.bookmarksList, el('li', { class: 'cl-empty' }, 'No bookmarks yet. Use Bookmark on a result to keep it here.'));
    } else {
      const frag = document.createDocumentFragment();
      for (const b of this.bookmarks) frag.appendChild(renderBookmark(b));
      this.bookmarksList.replaceChildren(frag);
    }
    for (const li of Array.from(this.list.children)) {
      const id = (li as HTMLElement).dataset.hitId;
      const btn = li.querySelector('[data-action="bookmark"]');
      const hit = this.hits.find((h) => h.id === id);
      if (id && btn && hit) setBookmarkButton(btn, this.bookmarked.has(id), whoOf(hit));
    }
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
    const from: ActionSource = item.dataset.from === 'bookmarks' ? 'bookmarks' : 'results';
    if (action === 'unbookmark') {
      const index = Array.from(this.bookmarksList.children).indexOf(item);
      this.toggleBookmark(id, false);
      // The removed entry held the focus: move it to the entry now at its place, or to the list's summary.
      if (index >= 0) {
        const entries = this.bookmarksList.querySelectorAll<HTMLElement>('.cl-bookmark');
        const next = entries[Math.min(index, entries.length - 1)];
        (next?.querySelector<HTMLElement>('[data-action]') ?? this.bookmarksBox.querySelector<HTMLElement>('summary'))?.focus();
      }
      return;
    }
    this.act(action as Action, id, from);
  }

  private act(action: Action, id: string, from: ActionSource): void {
    switch (action) {
      case 'copy':
      case 'cite':
      case 'openSource':
        this.post({ type: action, hitId: id, from });
        break;
      case 'bookmark':
        this.toggleBookmark(id, !this.bookmarked.has(id));
        break;
    }
  }

  /** Optimistic: the list updates at once; the host's `bookmarks` message is the truth and replaces it. */
  private toggleBookmark(id: string, on: boolean): void {
    if (on) {
      const hit = this.hits.find((h) => h.id === id);
      if (hit && !this.bookmarked.has(id)) {
        this.bookmarks = [...this.bookmarks, { id, sentence: hit.sentence, paper: hit.paper, addedAt: new Date().toISOString() }];
      }
      this.post({ type: 'bookmark', hitId: id });
      this.announce(`Bookmarked: ${hit ? whoOf(hit) : 'result'}.`);
    } else {
      this.bookmarks = this.bookmarks.filter((b) => b.id !== id);
      this.post({ type: 'unbookmark', hitId: id });
      this.announce('Bookmark removed.');
    }
    this.renderBookmarks();
  }

  // ---- keyboard ----

  private items(): HTMLElement[] {
    return Array.from(this.list.children) as HTMLElement[];
  }

  private onListFocus(e: FocusEvent): void {
    const item = e.target instanceof Element ? e.target.closest<HTMLElement>('.cl-hit') : null;
    if (!item) return;
    for (const li of this.items()) li.tabIndex = li === item ? 0 : -1;
  }

  private focusItem(i: number): void {
    const items = this.items();
    if (items.length === 0) return;
    const target = items[Math.max(0, Math.min(items.length - 1, i))];
    for (const li of items) li.tabIndex = li === target ? 0 : -1;
    target.focus();
    target.scrollIntoView({ block: 'nearest' });
  }

  private onListKey(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target as HTMLElement;
    const item = target.closest<HTMLElement>('.cl-hit');
    if (!item) return;
    const items = this.items();
    const i = items.indexOf(item);
    const onItem = target === item;
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault();
        this.focusItem(i + 1);
        return;
      case 'ArrowUp':
        e.preventDefault();
        this.focusItem(i - 1);
        return;
      case 'Home':
        if (!onItem) return;
        e.preventDefault();
        this.focusItem(0);
        return;
      case 'End':
        if (!onItem) return;
        e.preventDefault();
        this.focusItem(items.length - 1);
        return;
    }
    if (!onItem) {
      this.onActionArrows(e);
      return;
    }
    const id = item.dataset.hitId;
    if (id === undefined) return;
    const shortcut: Record<string, Action> = { Enter: 'copy', c: 'copy', i: 'cite', o: 'openSource', b: 'bookmark' };
    const action = shortcut[e.key.length === 1 ? e.key.toLowerCase() : e.key];
    if (action) {
      e.preventDefault();
      this.act(action, id, 'results');
    }
  }

  /** ArrowLeft/ArrowRight move between the action buttons of one result or bookmark. */
  private onActionArrows(e: KeyboardEvent): void {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    const target = e.target as HTMLElement;
    const group = target.closest('.cl-actions');
    if (!group) return;
    const buttons = Array.from(group.querySelectorAll<HTMLElement>('[data-action]'));
    const i = buttons.indexOf(target);
    if (i < 0) return;
    e.preventDefault();
    buttons[(i + (e.key === 'ArrowRight' ? 1 : buttons.length - 1)) % buttons.length].focus();
  }

  private reveal(hitId: string): void {
    const i = this.items().findIndex((li) => li.dataset.hitId === hitId);
    if (i >= 0) this.focusItem(i);
    else if (this.hits.some((h) => h.id === hitId)) this.pendingReveal = hitId; // not built yet
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

function whoOf(hit: HitView): string {
  return `${shortAuthors(hit.paper.authors)}${hit.paper.year != null ? ` ${hit.paper.year}` : ''}`;
}

const root = document.getElementById('root');
if (root) {
  const panel = new Panel();
  panel.mount(root);
  (window as unknown as { corpusLens?: { lastRender(): RenderStats | undefined } }).corpusLens = {
    lastRender: () => panel.lastRender,
  };
}

/** "the corpus is empty" → "The corpus is empty". */
function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
