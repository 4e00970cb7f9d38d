// The bookmarks box: a count badge and the saved results. The host's `bookmarks` message is the truth; a
// Bookmark / Remove click updates the list at once (optimistically) until that message replaces it.
import { el, replace } from './dom.js';
import type { BookmarkView, HitView } from './protocol.js';
import { renderBookmark } from './render.js';

export class BookmarkList {
  private entries: BookmarkView[] = [];
  private ids = new Set<string>();
  private readonly count = el('vscode-badge', { attrs: { variant: 'counter', id: 'cl-bookmarks-count' } });
  readonly list = el('ol', { class: 'cl-bookmark-list', attrs: { id: 'cl-bookmark-list', 'aria-label': 'Bookmarks' } });
  readonly element = el(
    'details',
    { class: 'cl-bookmarks', attrs: { id: 'cl-bookmarks' } },
    el('summary', {}, 'Bookmarks ', this.count),
    this.list,
  );

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** The host's list. */
  set(list: BookmarkView[]): void {
    this.entries = list.filter((b) => b && typeof b.id === 'string');
    this.render();
  }

  add(hit: HitView): void {
    if (this.ids.has(hit.id)) return;
    this.entries = [...this.entries, { id: hit.id, sentence: hit.sentence, paper: hit.paper, addedAt: new Date().toISOString() }];
    this.render();
  }

  remove(id: string): void {
    this.entries = this.entries.filter((b) => b.id !== id);
    this.render();
  }

  /** The index of an entry's list item (before it is removed), for focusAfterRemoval. */
  indexOf(item: HTMLElement): number {
    return Array.from(this.list.children).indexOf(item);
  }

  /** The removed entry held the focus: move it to the entry now at its place, or to the box's summary. */
  focusAfterRemoval(index: number): void {
    if (index < 0) return;
    const entries = this.list.querySelectorAll<HTMLElement>('.cl-bookmark');
    const next = entries[Math.min(index, entries.length - 1)];
    (next?.querySelector<HTMLElement>('[data-action]') ?? this.element.querySelector<HTMLElement>('summary'))?.focus();
  }

  private render(): void {
    this.ids = new Set(this.entries.map((b) => b.id));
    this.count.textContent = String(this.entries.length);
    this.count.setAttribute('aria-label', `${this.entries.length} bookmark${this.entries.length === 1 ? '' : 's'}`);
    if (this.entries.length === 0) {
      replace(this.list, el('li', { class: 'cl-empty' }, 'No bookmarks yet. Use Bookmark on a result to keep it here.'));
      return;
    }
    const frag = document.createDocumentFragment();
    for (const b of this.entries) frag.appendChild(renderBookmark(b));
    this.list.replaceChildren(frag);
  }
}
