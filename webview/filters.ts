// The search box and the filters of the Similar tab: free text looked up in the corpus (Enter; Escape or the clear
// button goes back to the sentence at the cursor), and a form of filters (year range, venue, section, paper) applied
// to every lookup. The host keeps the filters per workspace and is the truth: the form and the header's summary are
// refilled from its `filters` message. Values enter the DOM as input values and text nodes only.
import { el, replace } from './dom.js';
import { MAX_FILTER_LENGTH, MAX_QUESTION_LENGTH, type FiltersView, type ViewMessage } from './protocol.js';

/** "2019–2023 · venue “ACL” · section “related”": what the header shows while filters are set; '' when none. */
export function filterSummary(f: FiltersView): string {
  const parts: string[] = [];
  const min = f.yearMin ?? null;
  const max = f.yearMax ?? null;
  if (min != null && max != null) parts.push(min === max ? `${min}` : `${min}–${max}`);
  else if (min != null) parts.push(`since ${min}`);
  else if (max != null) parts.push(`until ${max}`);
  if (f.venue) parts.push(`venue “${f.venue}”`);
  if (f.section) parts.push(`section “${f.section}”`);
  if (f.paper) parts.push(`paper “${f.paper}”`);
  return parts.join(' · ');
}

/** A year field's value: a whole number, null when empty; undefined when it is not a year (the form says so). */
function yearOf(raw: string): number | null | undefined {
  const t = raw.trim();
  if (!t) return null;
  return /^\d{1,4}$/.test(t) ? Number(t) : undefined;
}

function field(id: string, label: string, input: HTMLInputElement): HTMLElement {
  return el('label', { class: 'cl-filter-field', attrs: { for: id } }, el('span', {}, label), input);
}

function input(id: string, attrs: Record<string, string | number | boolean>): HTMLInputElement {
  return el('input', { class: 'cl-input', attrs: { id, type: 'text', autocomplete: 'off', spellcheck: false, ...attrs } });
}

export class SearchBar {
  readonly element = el('div', { class: 'cl-search-bar' });
  private readonly box = input('cl-search', {
    type: 'search',
    placeholder: 'Search the corpus (Enter)',
    'aria-label': 'Search the corpus',
    maxlength: MAX_QUESTION_LENGTH,
  });
  private readonly yearMin = input('cl-filter-year-min', { inputmode: 'numeric', placeholder: 'from', maxlength: 4, size: 5 });
  private readonly yearMax = input('cl-filter-year-max', { inputmode: 'numeric', placeholder: 'to', maxlength: 4, size: 5 });
  private readonly venue = input('cl-filter-venue', { placeholder: 'e.g. ACL', maxlength: MAX_FILTER_LENGTH });
  private readonly section = input('cl-filter-section', { placeholder: 'e.g. related work', maxlength: MAX_FILTER_LENGTH });
  private readonly paper = input('cl-filter-paper', { placeholder: 'citation key or title words', maxlength: MAX_FILTER_LENGTH });
  private readonly error = el('div', { class: 'cl-filter-error', attrs: { id: 'cl-filter-error', role: 'alert' } });
  private readonly details = el('details', { class: 'cl-filters', attrs: { id: 'cl-filters' } });
  /** The header line naming the filters in force (a button that opens the form). */
  readonly summary = el('div', { class: 'cl-filter-summary', attrs: { id: 'cl-filter-summary' } });

  constructor(
    private readonly post: (m: ViewMessage) => void,
    private readonly announce: (text: string) => void,
  ) {
    const form = el(
      'form',
      { class: 'cl-filter-form', attrs: { 'aria-label': 'Filters' } },
      el(
        'div',
        { class: 'cl-filter-years', attrs: { role: 'group', 'aria-label': 'Publication years' } },
        field('cl-filter-year-min', 'Years', this.yearMin),
        el('span', { attrs: { 'aria-hidden': 'true' } }, '–'),
        field('cl-filter-year-max', '', this.yearMax),
      ),
      field('cl-filter-venue', 'Venue', this.venue),
      field('cl-filter-section', 'Section', this.section),
      field('cl-filter-paper', 'Paper', this.paper),
      this.error,
      el(
        'div',
        { class: 'cl-message-actions' },
        el('button', { class: 'cl-button', attrs: { type: 'submit', id: 'cl-filter-apply' } }, 'Apply filters'),
        el('button', { class: 'cl-button cl-button-secondary', attrs: { type: 'button', id: 'cl-filter-clear' } }, 'Clear'),
      ),
    );
    this.yearMax.setAttribute('aria-label', 'Years to');
    this.yearMin.setAttribute('aria-label', 'Years from');
    replace(this.details, el('summary', { attrs: { id: 'cl-filters-toggle' } }, 'Filters'), form);
    replace(this.element, this.box, this.details);
    this.box.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        this.submitSearch();
      } else if (e.key === 'Escape' && this.box.value) {
        e.preventDefault();
        this.box.value = '';
        this.submitSearch();
      }
    });
    // The search field's own clear button (×) empties it with an `input` event and no key.
    this.box.addEventListener('input', () => {
      if (!this.box.value) this.submitSearch();
    });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.apply();
    });
    form.querySelector('#cl-filter-clear')?.addEventListener('click', () => {
      for (const i of [this.yearMin, this.yearMax, this.venue, this.section, this.paper]) i.value = '';
      this.apply();
    });
    this.summary.addEventListener('click', () => {
      this.details.open = true;
      this.yearMin.focus();
    });
  }

  /** The host's filters and search text (after `ready` and each change). */
  set(filters: FiltersView, search: string): void {
    this.yearMin.value = filters.yearMin != null ? String(filters.yearMin) : '';
    this.yearMax.value = filters.yearMax != null ? String(filters.yearMax) : '';
    this.venue.value = filters.venue ?? '';
    this.section.value = filters.section ?? '';
    this.paper.value = filters.paper ?? '';
    if (document.activeElement !== this.box) this.box.value = search;
    const text = filterSummary(filters);
    this.summary.hidden = !text;
    replace(this.summary, text ? el('span', { class: 'cl-filter-label' }, 'Filtered: ') : null, text);
    this.summary.setAttribute('title', text ? 'Filters in force (click to change)' : '');
    const active = !!text;
    this.details.querySelector('summary')!.textContent = active ? 'Filters (on)' : 'Filters';
  }

  private submitSearch(): void {
    this.post({ type: 'search', text: this.box.value.trim() });
  }

  private apply(): void {
    const yearMin = yearOf(this.yearMin.value);
    const yearMax = yearOf(this.yearMax.value);
    if (yearMin === undefined || yearMax === undefined) {
      this.error.textContent = 'A year is a number such as 2019.';
      (yearMin === undefined ? this.yearMin : this.yearMax).focus();
      return;
    }
    this.error.textContent = '';
    const filters: FiltersView = {
      yearMin,
      yearMax,
      venue: this.venue.value.trim().slice(0, MAX_FILTER_LENGTH),
      section: this.section.value.trim().slice(0, MAX_FILTER_LENGTH),
      paper: this.paper.value.trim().slice(0, MAX_FILTER_LENGTH),
    };
    this.post({ type: 'setFilters', filters });
    const text = filterSummary({ ...filters, yearMin, yearMax });
    this.announce(text ? `Filters applied: ${text}.` : 'Filters cleared.');
  }
}
