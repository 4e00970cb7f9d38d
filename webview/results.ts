// The result list and its header (count, corpus, embedder, time; the looked-up sentence): built in time slices,
// re-marked in place when the highlight mode changes, with the focus helpers the keyboard model moves through.
import { highlightTerms, type HighlightRange } from '../src/core/retrieve/recurring.js';
import { el, replace } from './dom.js';
import type { HighlightMode, HitView, Offset, ViewState } from './protocol.js';
import { fillHighlighted, renderHit, setBookmarkButton, whoOf } from './render.js';
import type { ListNavigation } from './keyboard.js';

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

export class ResultList implements ListNavigation {
  readonly meta = el('div', { class: 'cl-meta', attrs: { id: 'cl-meta' } });
  readonly queryEl = el('div', { class: 'cl-query', attrs: { id: 'cl-query' } });
  readonly list = el('ol', {
    class: 'cl-results',
    attrs: { id: 'cl-results', 'aria-label': 'Similar sentences', hidden: true },
  });
  /** The hits on screen (kept while a new search runs). */
  private hits: HitView[] = [];
  private query: string | undefined;
  /** Highlight ranges of the hits on screen, per hit (also used by slices still to come). */
  private ranges: HighlightRange[][] = [];
  private renderToken = 0;
  private renderSeq = 0;
  private pendingReveal: string | undefined;
  lastRender: RenderStats | undefined;

  constructor(
    private highlight: HighlightMode,
    /** Whether a hit is bookmarked (its Bookmark button's state). */
    private readonly bookmarked: (id: string) => boolean,
  ) {}

  hit(id: string): HitView | undefined {
    return this.hits.find((h) => h.id === id);
  }

  /** Marks stale (a search is running) or not. */
  setBusy(busy: boolean): void {
    this.list.setAttribute('aria-busy', busy ? 'true' : 'false');
    this.list.classList.toggle('cl-stale', busy);
  }

  clear(): void {
    this.renderToken++;
    this.ranges = [];
    this.hits = [];
    this.query = undefined;
    this.list.hidden = true;
    this.list.replaceChildren();
    this.meta.replaceChildren();
    this.queryEl.replaceChildren();
  }

  setQuery(clean: string, section: string | null, offset: Offset, typed = false): void {
    const label = typed
      ? offset === 1
        ? 'What authors write after sentences matching '
        : 'Sentences matching '
      : offset === 1
        ? 'What authors write after sentences like '
        : 'Sentences like ';
    replace(
      this.queryEl,
      el('span', { class: 'cl-query-label' }, label),
      el('q', {}, clean),
      section ? el('span', { class: 'cl-query-section' }, ` in ${section}`) : null,
    );
  }

  /**
   * Builds the result list in time slices of at most {@link SLICE_MS}: each slice appends one DocumentFragment
   * (the first always holds at least the top result), and if the budget is spent the rest follows in the next
   * task, so a cold first render on a busy machine cannot hold the renderer for long. Warm renders of 25 results
   * fit in one slice (see test/webview/panel.test.ts for the measured times). Returns the number of hits.
   */
  render(state: Extract<ViewState, { kind: 'results' }>, t0 = performance.now()): number {
    const token = ++this.renderToken;
    this.hits = state.hits;
    this.query = state.query.clean;
    const count = state.hits.length;
    replace(
      this.meta,
      el('span', { class: 'cl-count' }, `${count} similar sentence${count === 1 ? '' : 's'}`),
      el('span', { class: 'cl-corpus', attrs: { title: 'Corpus' } }, state.corpusName),
      el('span', { class: 'cl-embedder', attrs: { title: 'Embedder' } }, state.embedder),
      state.elapsedMs != null ? el('span', { class: 'cl-elapsed' }, `${Math.round(state.elapsedMs)} ms`) : null,
    );
    this.setQuery(state.query.clean, state.query.section, state.offset, state.query.typed);
    this.ranges = this.computeRanges();
    const hadFocus = this.list.contains(document.activeElement);
    this.list.replaceChildren();
    this.list.hidden = count === 0;

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
          bookmarked: this.bookmarked(hit.id),
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
    return count;
  }

  /** Switches recurring / rare words: the sentences are re-marked in place (no list rebuild, focus kept). */
  setHighlight(mode: HighlightMode): void {
    this.highlight = mode;
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

  /** The Bookmark buttons of the results on screen, after the bookmarks changed. */
  syncBookmarkButtons(): void {
    for (const li of this.items()) {
      const id = li.dataset.hitId;
      const btn = li.querySelector('[data-action="bookmark"]');
      const hit = id === undefined ? undefined : this.hit(id);
      if (id && btn && hit) setBookmarkButton(btn, this.bookmarked(id), whoOf(hit));
    }
  }

  items(): HTMLElement[] {
    return Array.from(this.list.children) as HTMLElement[];
  }

  focusItem(i: number): void {
    const items = this.items();
    if (items.length === 0) return;
    const target = items[Math.max(0, Math.min(items.length - 1, i))];
    for (const li of items) li.tabIndex = li === target ? 0 : -1;
    target.focus();
    target.scrollIntoView({ block: 'nearest' });
  }

  /** The first result (the list's tab stop), if the list is shown. */
  firstItem(): HTMLElement | null {
    return this.list.hidden ? null : this.list.querySelector<HTMLElement>('.cl-hit[tabindex="0"]');
  }

  reveal(hitId: string): void {
    const i = this.items().findIndex((li) => li.dataset.hitId === hitId);
    if (i >= 0) this.focusItem(i);
    else if (this.hits.some((h) => h.id === hitId)) this.pendingReveal = hitId; // not built yet
  }

  private markClass(): string {
    return this.highlight === 'rare' ? 'cl-mark cl-mark-rare' : 'cl-mark cl-mark-recurring';
  }

  private computeRanges(): HighlightRange[][] {
    if (this.hits.length === 0) return [];
    return highlightTerms(
      {
        texts: this.hits.map((h) => h.sentence.text),
        context: this.hits.map((h) => [h.previous?.text, h.next?.text].filter(Boolean).join(' ')),
        query: this.query,
      },
      { mode: this.highlight },
    ).ranges;
  }
}
