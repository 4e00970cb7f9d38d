// The panel's keyboard model: one tab stop for the result list (roving tabindex), arrows, Home and End between
// results, single-key actions on a focused result (Enter/C copy, I cite, O open source, B bookmark), and
// ArrowLeft/ArrowRight between the action buttons of one result or bookmark.
import type { Action } from './render.js';

/** What the keys move through: the result list's items. */
export interface ListNavigation {
  items(): HTMLElement[];
  focusItem(i: number): void;
}

const SHORTCUTS: Record<string, Action> = { Enter: 'copy', c: 'copy', i: 'cite', o: 'openSource', b: 'bookmark' };

/** Keys on the result list; `act` runs a shortcut's action on the focused result's hit id. */
export function onListKey(e: KeyboardEvent, list: ListNavigation, act: (action: Action, hitId: string) => void): void {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const target = e.target as HTMLElement;
  const item = target.closest<HTMLElement>('.cl-hit');
  if (!item) return;
  const items = list.items();
  const i = items.indexOf(item);
  const onItem = target === item;
  switch (e.key) {
    case 'ArrowDown':
      e.preventDefault();
      list.focusItem(i + 1);
      return;
    case 'ArrowUp':
      e.preventDefault();
      list.focusItem(i - 1);
      return;
    case 'Home':
      if (!onItem) return;
      e.preventDefault();
      list.focusItem(0);
      return;
    case 'End':
      if (!onItem) return;
      e.preventDefault();
      list.focusItem(items.length - 1);
      return;
  }
  if (!onItem) {
    onActionArrows(e);
    return;
  }
  const id = item.dataset.hitId;
  if (id === undefined) return;
  const action = SHORTCUTS[e.key.length === 1 ? e.key.toLowerCase() : e.key];
  if (action) {
    e.preventDefault();
    act(action, id);
  }
}

/** The focused result becomes the list's one tab stop. */
export function onListFocus(e: FocusEvent, list: ListNavigation): void {
  const item = e.target instanceof Element ? e.target.closest<HTMLElement>('.cl-hit') : null;
  if (!item) return;
  for (const li of list.items()) li.tabIndex = li === item ? 0 : -1;
}

/** ArrowLeft/ArrowRight move between the action buttons of one result or bookmark. */
export function onActionArrows(e: KeyboardEvent): void {
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
