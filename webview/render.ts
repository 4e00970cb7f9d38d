// Builds the DOM of one result or bookmark. Every corpus string goes in as a text node (see dom.ts).
import { segments, type HighlightRange } from '../src/core/retrieve/recurring.js';
import { el, type Child } from './dom.js';
import type { BookmarkView, HitView, Offset, PaperView } from './protocol.js';

/** "Smith", "Smith & Lee", "Smith et al." from full names ("Ada Smith" or "Smith, Ada"). */
export function shortAuthors(authors: readonly string[]): string {
  const names = authors.map(surname).filter((s) => s.length > 0);
  if (names.length === 0) return 'Unknown authors';
  if (names.length === 1) return names[0];
  if (names.length === 2) return `${names[0]} & ${names[1]}`;
  return `${names[0]} et al.`;
}

function surname(name: string): string {
  const n = name.trim();
  if (n.includes(',')) return n.slice(0, n.indexOf(',')).trim();
  const parts = n.split(/\s+/);
  // Keep lowercase particles with the surname: "Ludwig van Beethoven" → "van Beethoven".
  let i = parts.length - 1;
  while (i > 0 && /^(van|von|der|den|de|da|di|la|le|du|del|dos|ter)$/.test(parts[i - 1])) i--;
  return parts.slice(i).join(' ');
}

/** "Smith et al. 2020": who a hit is by, for labels and announcements. */
export function whoOf(hit: { paper: PaperView }): string {
  return `${shortAuthors(hit.paper.authors)}${hit.paper.year != null ? ` ${hit.paper.year}` : ''}`;
}

export function formatSimilarity(s: number): string {
  return Number.isFinite(s) ? s.toFixed(2) : '–';
}

/** "Smith et al. · 2020 · ACL" */
export function byline(paper: PaperView): string {
  return [shortAuthors(paper.authors), paper.year != null ? String(paper.year) : null, paper.venue || null]
    .filter((x): x is string => x !== null)
    .join(' · ');
}

export function paperTitle(paper: Pick<PaperView, 'title'>): string {
  return paper.title && paper.title.trim() ? paper.title : 'Untitled paper';
}

/** What the proposed-title mark reads (" (title proposed by gpt-4o-mini)"), or null for a paper's own title. */
export function proposedMark(paper: TitleMark): string | null {
  return paper.metadataProposedBy ? ` (title proposed by ${paper.metadataProposedBy})` : null;
}

/** A paper's title and its proposed-title mark: the panel's PaperView, or an Ask source or element card. */
type TitleMark = Pick<PaperView, 'title' | 'metadataProposedBy' | 'titleMadeUp'>;

/**
 * The title, and where a model proposed it (the PDF gave none) or the reader made it up (a LaTeX source without
 * \title), a muted mark naming the model or the heading: the author checks it before citing. Corpus text, so set as text (el), never as markup.
 */
export function titleWithMark(paper: TitleMark): Child[] {
  const model = paper.metadataProposedBy;
  // A made-up name (its first heading) is no model's: only the title is not the paper's own.
  const note = !model
    ? null
    : paper.titleMadeUp
      ? `The paper's source names no title: shown by ${model}, not its title: check before citing`
      : `Title, authors and year proposed by ${model}, not read from the paper: check before citing`;
  return [
    el('span', { class: 'cl-paper-title', attrs: note ? { title: note } : {} }, paperTitle(paper)),
    model ? el('span', { class: 'cl-proposed', attrs: { title: note! } }, proposedMark(paper)!) : null,
  ];
}

/** Appends `text` to `parent` with the given ranges wrapped in <mark> elements. */
export function fillHighlighted(parent: HTMLElement, text: string, ranges: readonly HighlightRange[], markClass: string): void {
  if (ranges.length === 0) {
    parent.textContent = text;
    return;
  }
  const frag = document.createDocumentFragment();
  for (const seg of segments(text, ranges)) {
    if (!seg.range) {
      frag.appendChild(document.createTextNode(seg.text));
      continue;
    }
    const mark = document.createElement('mark');
    mark.className = markClass;
    mark.dataset.term = seg.range.term;
    mark.textContent = seg.text;
    frag.appendChild(mark);
  }
  parent.replaceChildren(frag);
}

export type Action = 'copy' | 'cite' | 'openSource' | 'bookmark';

// Per-result actions are native <button>s styled like vscode-button's secondary look (media/panel.css): 25
// results carry 100 of them, and as lit custom elements (one shadow root and render each) they tripled the
// cost of a results render in the Chromium test. The panel's other buttons are vscode-button.
function actionButton(action: Action | 'unbookmark', label: string, ariaLabel: string, shortcut?: string): HTMLButtonElement {
  return el(
    'button',
    {
      class: 'cl-action',
      attrs: { type: 'button', 'data-action': action, 'aria-label': ariaLabel, title: shortcut ? `${ariaLabel} (${shortcut})` : ariaLabel },
    },
    label,
  );
}

/** Sets the Bookmark button of a result to its bookmarked / not bookmarked look and label. */
export function setBookmarkButton(button: Element, on: boolean, who: string): void {
  button.textContent = on ? 'Bookmarked' : 'Bookmark';
  button.setAttribute('aria-pressed', on ? 'true' : 'false');
  const label = on ? `Remove bookmark: sentence from ${who}` : `Bookmark sentence from ${who}`;
  button.setAttribute('aria-label', label);
  button.setAttribute('title', `${label} (B)`);
}

export interface HitRenderOptions {
  index: number;
  total: number;
  offset: Offset;
  ranges: readonly HighlightRange[];
  markClass: string;
  bookmarked: boolean;
}

/** One result as a list item. The item itself is focusable (roving tabindex set by the caller). */
export function renderHit(hit: HitView, o: HitRenderOptions): HTMLLIElement {
  const who = `${shortAuthors(hit.paper.authors)}${hit.paper.year != null ? ` ${hit.paper.year}` : ''}`;
  const sim = formatSimilarity(hit.similarity);
  const sentence = el('span', { class: 'cl-sentence' });
  fillHighlighted(sentence, hit.sentence.text, o.ranges, o.markClass);

  const simEl = el('span', { class: 'cl-sim', attrs: { title: 'Cosine similarity of the match to your sentence' } }, sim);

  const bookmark = actionButton('bookmark', 'Bookmark', '', 'B');
  setBookmarkButton(bookmark, o.bookmarked, who);

  const li = el(
    'li',
    {
      class: 'cl-hit',
      attrs: {
        'data-hit-id': hit.id,
        tabindex: -1,
        'aria-label': `Result ${o.index + 1} of ${o.total}, similarity ${sim}, ${who}: ${hit.sentence.text}`,
        'aria-keyshortcuts': 'C I O B',
      },
    },
    el(
      'div',
      { class: 'cl-hit-head' },
      simEl,
      hit.sentence.sectionTitle ? el('span', { class: 'cl-section', attrs: { title: 'Section' } }, hit.sentence.sectionTitle) : null,
      hit.location ? el('span', { class: 'cl-section cl-location', attrs: { title: 'Where in the paper' } }, hit.location) : null,
      o.offset === 1 ? el('span', { class: 'cl-offset-tag' }, 'next sentence') : null,
    ),
    el(
      'p',
      { class: 'cl-text' },
      contextSpan(hit.previous, 'cl-prev', o.offset === 1 ? 'Matched sentence: ' : 'Before: '),
      sentence,
      contextSpan(hit.next, 'cl-next', 'After: '),
    ),
    el(
      'div',
      { class: 'cl-paper' },
      ...titleWithMark(hit.paper),
      ' ',
      el('span', { class: 'cl-byline', attrs: { title: hit.paper.authors.join(', ') || 'Unknown authors' } }, byline(hit.paper)),
    ),
    el(
      'div',
      { class: 'cl-actions', attrs: { role: 'group', 'aria-label': 'Actions' } },
      actionButton('copy', 'Copy', `Copy sentence from ${who}`, 'C'),
      actionButton('cite', 'Cite', `Cite ${who} at the cursor`, 'I'),
      actionButton('openSource', 'Open source', `Open the source of ${who}`, 'O'),
      bookmark,
    ),
  );
  return li;
}

function contextSpan(ctx: { text: string } | null, cls: string, srLabel: string): Child {
  if (!ctx || !ctx.text) return null;
  return el('span', { class: `cl-context ${cls}` }, el('span', { class: 'cl-sr-only' }, srLabel), ctx.text);
}

/** One bookmark as a list item (plain tab order: its buttons). */
export function renderBookmark(b: BookmarkView): HTMLLIElement {
  const who = `${shortAuthors(b.paper.authors)}${b.paper.year != null ? ` ${b.paper.year}` : ''}`;
  return el(
    'li',
    { class: 'cl-bookmark', attrs: { 'data-hit-id': b.id } },
    el('p', { class: 'cl-text' }, el('span', { class: 'cl-sentence' }, b.sentence.text)),
    el(
      'div',
      { class: 'cl-paper' },
      ...titleWithMark(b.paper),
      ' ',
      el('span', { class: 'cl-byline' }, byline(b.paper)),
      b.sentence.sectionTitle ? el('span', { class: 'cl-section' }, b.sentence.sectionTitle) : null,
    ),
    el(
      'div',
      { class: 'cl-actions', attrs: { role: 'group', 'aria-label': 'Bookmark actions' } },
      actionButton('copy', 'Copy', `Copy bookmarked sentence from ${who}`, 'C'),
      actionButton('cite', 'Cite', `Cite ${who} at the cursor`, 'I'),
      actionButton('openSource', 'Open source', `Open the source of ${who}`, 'O'),
      actionButton('unbookmark', 'Remove', `Remove bookmark: sentence from ${who}`),
    ),
  );
}
