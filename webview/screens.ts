// The panel's state screens: the message area for every state but `results` (idle, searching, no results, not
// prose, no corpus, error), with the buttons each offers. A button names its action in data-action; main.ts
// turns clicks on them into messages.
import { el, replace } from './dom.js';
import type { ViewState } from './protocol.js';

export class StateScreens {
  readonly element = el('div', { class: 'cl-message', attrs: { id: 'cl-message' } });

  /** Shows the screen of `state` (not `results`); returns what to announce to a screen reader, if anything. */
  show(state: Exclude<ViewState, { kind: 'results' }>): string | null {
    switch (state.kind) {
      case 'idle':
        this.set('cl-info', 'Place the cursor in a sentence of your paper to see how prior papers phrase it.', [
          button('Find similar sentences', 'retry', 'Find sentences similar to the one at the cursor'),
        ]);
        return 'Corpus Lens is ready.';
      case 'searching': {
        this.set('cl-searching', null, []);
        const ring = el('vscode-progress-ring', { attrs: { 'aria-label': 'Searching', 'aria-live': 'off', role: 'progressbar' } });
        this.element.append(ring, el('span', {}, 'Searching for sentences like ', el('q', {}, state.query)));
        return 'Searching…';
      }
      case 'noResults':
        if (state.query?.typed) {
          this.set('cl-info', `Nothing in the corpus matches this search${state.filtered ? ' within the filters' : ''}.`, []);
          return 'No results for the search.';
        }
        this.set(
          'cl-info',
          `No sentences in the corpus are similar enough (similarity at least ${state.threshold.toFixed(2)})${state.filtered ? ' within the filters' : ''}. ` +
            (state.filtered
              ? 'Widen or clear the filters, or try a longer or more specific sentence.'
              : 'Try a longer or more specific sentence, or lower the threshold in the corpusLens.results.threshold setting.'),
          [],
        );
        return 'No similar sentences above the threshold.';
      case 'notProse':
        this.set(
          'cl-info',
          state.reason ??
            'The cursor is not in a prose sentence (math, code, a command, a heading or the preamble). Move it into a sentence.',
          [],
        );
        return 'Not in a prose sentence.';
      case 'notConfigured':
        this.set(
          'cl-info',
          `${state.reason ? `${capitalise(state.reason)}. ` : 'No corpus yet. '}Add papers (PDF, LaTeX, Markdown, .bib) to build one, open the sample corpus to try Corpus Lens, or connect to a shared corpus.`,
          [
            button('Add Papers…', 'run:addPapers', 'Add papers to the corpus', true),
            button('Open Sample Corpus', 'run:openSample', 'Open the sample corpus'),
            button('Connect…', 'run:connect', 'Connect to a corpus'),
          ],
        );
        return 'No corpus configured.';
      case 'error': {
        this.set('cl-error', null, []);
        this.element.setAttribute('role', 'alert');
        const where = state.corpus ? `Search in ${state.corpus} failed: ` : 'Search failed: ';
        this.element.append(el('p', { class: 'cl-error-text' }, el('strong', {}, where), state.message));
        if (state.detail) {
          this.element.append(el('details', { class: 'cl-error-detail' }, el('summary', {}, 'Details'), el('pre', {}, state.detail)));
        }
        const buttons = state.recover
          ? [
              button(`Go back to ${state.recover}`, 'recover', `Go back to ${state.recover}`, true),
              button('Try again', 'retry', 'Try the search again'),
            ]
          : [button('Try again', 'retry', 'Try the search again', true)];
        this.element.append(
          el(
            'div',
            { class: 'cl-message-actions' },
            ...buttons,
            button('Switch corpus…', 'run:connect', 'Switch to another corpus'),
            button('Show log', 'showLog', 'Show the Corpus Lens log'),
          ),
        );
        return null; // role=alert announces it
      }
    }
  }

  /** A plain informational message (e.g. results that came back empty). */
  info(text: string): void {
    this.set('cl-info', text, []);
  }

  hide(): void {
    this.element.hidden = true;
    this.element.removeAttribute('role');
    replace(this.element);
  }

  /** Where focus goes when the screen replaced the button that had it: its first action, else the message. */
  focus(): void {
    const action = this.element.querySelector<HTMLElement>('[data-action]');
    if (action) {
      action.focus();
      return;
    }
    this.element.tabIndex = -1;
    this.element.focus();
  }

  private set(cls: string, text: string | null, buttons: HTMLElement[]): void {
    this.element.className = `cl-message ${cls}`;
    this.element.removeAttribute('role');
    this.element.hidden = false;
    replace(
      this.element,
      text !== null ? el('p', {}, text) : null,
      buttons.length ? el('div', { class: 'cl-message-actions' }, ...buttons) : null,
    );
  }
}

function button(label: string, action: string, ariaLabel: string, primary = false): HTMLElement {
  const b = el('vscode-button', { attrs: { 'data-action': action, 'aria-label': ariaLabel, secondary: !primary } });
  b.textContent = label;
  return b;
}

/** "the corpus is empty" → "The corpus is empty". */
function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
