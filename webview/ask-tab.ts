// The panel's Ask tab: a question box, the running question's stages and the model's draft as it streams, the
// conversation (each answer's sentences with numbered citations that reveal their verified quote on hover or
// focus), the conversation's one source list with Cite and Open source, Insert answer at cursor, Clear. Everything
// from the corpus or a model is untrusted and enters the DOM as text nodes only (dom.ts); the host re-checks every
// message this tab posts (protocol.ts).
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { el, replace, type Child } from './dom.js';
import { ElementImages, type CropScript } from './element-images.js';
import {
  MAX_QUESTION_LENGTH,
  type AskCiteView,
  type AskCostView,
  type AskElementView,
  type AskProgressView,
  type AskSourceView,
  type AskStage,
  type AskTurnView,
  type AskView,
  type HostMessage,
  type ViewMessage,
} from './protocol.js';
import { proposedMark, shortAuthors, titleWithMark } from './render.js';
import { pageAndLines } from '../src/core/ask/location.js';

const STAGE_TEXT: Record<AskStage, string> = {
  rewrite: 'Reading the conversation to make the follow-up stand alone…',
  search: 'Searching the corpus…',
  answer: 'Writing the answer…',
  check: 'Checking each sentence against its quotes…',
};

/** The model's draft as shown while it streams: without the prompt's paper ids (the check turns them into [n]). */
export function draftForDisplay(draft: string): string {
  return draft.replace(/\s*\[P\d+\]/g, '').replace(/\s*\[P\d*$/, '');
}

/** "Title (title proposed by m) (Smith et al. 2020), section “Results”, p. 4, ll. 12–14": the mark only for a proposed title. */
export function sourceWhere(s: AskSourceView): string {
  const who = [s.authors.length ? shortAuthors(s.authors) : null, s.year !== null ? String(s.year) : null].filter(Boolean).join(' ');
  const where = [s.section ? `section “${s.section}”` : null, pageAndLines(s)].filter(Boolean).join(', ');
  return `${s.title?.trim() || 'Untitled paper'}${proposedMark(s) ?? ''}${who ? ` (${who})` : ''}${where ? `, ${where}` : ''}`;
}

/** "Smith et al. 2019, “Title”" (the year only when the name lacks it): a work a quote cites. */
function citedWork(c: AskCiteView): string {
  const title = (c.title ?? c.inCorpus?.title)?.trim();
  const year = c.year !== null && !c.work.includes(String(c.year)) ? ` (${c.year})` : '';
  return `${c.work}${title && title !== c.work ? `, “${title}”` : ''}${year}`;
}

export class AskTab {
  private view: AskView = { turns: [], sources: [] };
  private running = false;
  /** The running question's cost ahead (with a chat model), kept beside each stage it goes through. */
  private ahead = '';
  private draft = '';
  private readonly input = el('vscode-textfield', {
    attrs: {
      id: 'cl-ask-input',
      placeholder: 'Ask a question your papers answer…',
      'aria-label': 'Question for the corpus',
      maxlength: MAX_QUESTION_LENGTH,
    },
  }) as HTMLElement & { value: string };
  private readonly submit = this.button('Ask', 'ask', 'Ask the corpus', true);
  private readonly stop = this.button('Stop', 'cancel', 'Stop the question');
  private readonly clear = this.button('Clear conversation', 'clear', 'Clear the conversation and its sources');
  private readonly status = el('div', { class: 'cl-ask-status', attrs: { id: 'cl-ask-status', role: 'status', 'aria-live': 'polite' } });
  private readonly draftBox = el('div', { class: 'cl-ask-draft', attrs: { id: 'cl-ask-draft', hidden: true } });
  private readonly turns = el('ol', { class: 'cl-ask-turns', attrs: { id: 'cl-ask-turns', 'aria-label': 'Questions and answers' } });
  private readonly sources = el('ol', {
    class: 'cl-ask-sources',
    attrs: { id: 'cl-ask-source-list', 'aria-label': 'Sources of the conversation' },
  });
  private readonly sourcesBox = el(
    'section',
    { class: 'cl-ask-sources-box', attrs: { id: 'cl-ask-sources', 'aria-labelledby': 'cl-ask-sources-title', hidden: true } },
    el('h3', { attrs: { id: 'cl-ask-sources-title' } }, 'Sources'),
    this.sources,
  );
  /** One shared popup for the citation under the pointer or focus. */
  private readonly quote = el('div', { class: 'cl-ask-quote', attrs: { id: 'cl-ask-quote', role: 'tooltip', hidden: true } });

  private readonly images: ElementImages;

  constructor(
    private readonly post: (m: ViewMessage) => void,
    cropScript: CropScript | null = null,
  ) {
    this.images = new ElementImages(post, cropScript);
  }

  /** The host's answer to an element card's `askCrop`: the PDF to draw its region from, or why there is none. */
  crop(m: Extract<HostMessage, { type: 'askCropData' | 'askCropFailed' }>): void {
    if (m.type === 'askCropData') this.images.data(m);
    else this.images.refused(m.key, m.message);
  }

  mount(root: HTMLElement): void {
    this.stop.hidden = true;
    replace(
      root,
      el(
        'form',
        { class: 'cl-ask-form', attrs: { id: 'cl-ask-form', role: 'search', 'aria-label': 'Ask the corpus' } },
        this.input,
        el('div', { class: 'cl-ask-form-actions' }, this.submit, this.stop),
      ),
      this.status,
      this.draftBox,
      this.turns,
      this.sourcesBox,
      el('div', { class: 'cl-ask-footer' }, this.clear),
      this.quote,
    );
    root.querySelector('form')!.addEventListener('submit', (e) => {
      e.preventDefault();
      this.ask();
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.ask();
      }
    });
    root.addEventListener('click', (e) => this.onClick(e));
    root.addEventListener('mouseover', (e) => this.onPoint(e));
    root.addEventListener('mouseout', (e) => this.onLeave(e));
    root.addEventListener('focusin', (e) => this.onPoint(e));
    root.addEventListener('focusout', (e) => this.onLeave(e));
    root.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.quote.hidden) this.hideQuote();
    });
    // A popup left behind by scrolling would show a quote beside text it does not belong to.
    root.addEventListener('scroll', () => this.hideQuote(), { passive: true });
    this.render();
  }

  focus(): void {
    this.input.focus();
  }

  /** The host's conversation (after `ready`, each answer, a clear): the running question, if any, has ended. */
  show(view: AskView): void {
    this.view = view;
    this.setRunning(false);
    this.draft = '';
    this.draftBox.hidden = true;
    this.draftBox.replaceChildren();
    this.render();
    const last = this.turns.lastElementChild as HTMLElement | null;
    last?.scrollIntoView?.({ block: 'nearest' });
    const turn = view.turns.at(-1);
    this.say(turn ? this.turnSummary(turn) : '');
  }

  progress(p: AskProgressView): void {
    switch (p.kind) {
      case 'start':
        this.setRunning(true);
        this.ahead = '';
        this.draft = '';
        replace(this.draftBox);
        this.draftBox.hidden = true;
        this.say(p.llm ? `Asking with ${p.llm}…` : 'Asking (no LLM configured: the answer is an extract of the best evidence)…');
        return;
      case 'estimate':
        this.ahead = ` (estimate: ${p.estimate}; ${p.basis})`;
        this.say(`Asking${this.ahead}…`);
        return;
      case 'stage':
        this.say(`${STAGE_TEXT[p.stage]}${this.ahead}`);
        return;
      case 'standalone':
        this.say(`Searching as: ${p.standalone}${this.ahead}`);
        return;
      case 'draft':
        this.draft += p.delta;
        this.draftBox.hidden = false;
        replace(
          this.draftBox,
          el('div', { class: 'cl-ask-draft-label' }, 'Draft, not yet checked'),
          el('p', {}, draftForDisplay(this.draft)),
        );
        return;
      case 'stopped':
        this.setRunning(false);
        this.draftBox.hidden = true;
        this.say(p.reason === 'cancelled' ? 'Stopped.' : `The question failed: ${p.message ?? 'see the log'}`);
        return;
    }
  }

  private ask(): void {
    const question = String(this.input.value ?? '').trim();
    if (!question || this.running) return;
    if (question.length > MAX_QUESTION_LENGTH) {
      this.say(`A question is at most ${MAX_QUESTION_LENGTH} characters.`);
      return;
    }
    this.post({ type: 'ask', question });
    this.input.value = '';
    this.setRunning(true);
    this.say('Asking…');
  }

  private setRunning(on: boolean): void {
    this.running = on;
    this.stop.hidden = !on;
    this.submit.toggleAttribute('disabled', on);
    this.turns.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  private say(text: string): void {
    this.status.textContent = '';
    this.status.textContent = text;
  }

  private button(
    label: string,
    action: string,
    ariaLabel: string,
    primary = false,
    data: Record<string, string | number> = {},
  ): HTMLElement {
    const attrs: Record<string, string | number | boolean> = { 'data-ask-action': action, 'aria-label': ariaLabel, secondary: !primary };
    for (const [k, v] of Object.entries(data)) attrs[`data-${k}`] = v;
    const b = el('vscode-button', { attrs });
    b.textContent = label;
    return b;
  }

  // ---- rendering ----

  private render(): void {
    const frag = document.createDocumentFragment();
    for (const t of this.view.turns) frag.appendChild(this.renderTurn(t));
    this.turns.replaceChildren(frag);
    this.turns.hidden = this.view.turns.length === 0;
    if (!this.view.turns.length && !this.running) this.say('');
    this.sourcesBox.hidden = this.view.sources.length === 0;
    const list = document.createDocumentFragment();
    for (const s of this.view.sources) list.appendChild(this.renderSource(s));
    this.sources.replaceChildren(list);
    this.clear.toggleAttribute('disabled', this.view.turns.length === 0);
  }

  private turnSummary(t: AskTurnView): string {
    if (t.kind === 'unknown') return 'I don’t know: the corpus does not answer that.';
    if (t.kind === 'sources') return `${t.citations.length} source${t.citations.length === 1 ? '' : 's'} of the previous answer.`;
    return `Answered with ${t.citations.length} citation${t.citations.length === 1 ? '' : 's'}.`;
  }

  private renderTurn(t: AskTurnView): HTMLLIElement {
    const body: Child[] = [];
    if (t.kind === 'answer' || t.kind === 'extract') {
      if (t.kind === 'extract')
        body.push(el('p', { class: 'cl-ask-note' }, 'No LLM configured: the best evidence sentences, word for word.'));
      const p = el('p', { class: 'cl-ask-answer' });
      t.sentences.forEach((s, i) => {
        if (i > 0) p.append(t.kind === 'extract' ? el('br') : ' ');
        p.append(this.renderSentence(s.text, s.citations));
      });
      body.push(p);
      if (t.removed)
        body.push(
          el(
            'p',
            { class: 'cl-ask-note' },
            `${t.removed} sentence${t.removed === 1 ? '' : 's'} the quotes did not support ${t.removed === 1 ? 'was' : 'were'} removed.`,
          ),
        );
      body.push(
        el(
          'div',
          { class: 'cl-ask-turn-actions' },
          this.button('Insert answer at cursor', 'insert', `Insert answer ${t.index + 1} at the cursor, with its citations`, false, {
            turn: t.index,
          }),
        ),
      );
    } else if (t.kind === 'sources' && t.citations.length) {
      body.push(el('p', { class: 'cl-ask-answer' }, 'Sources of the previous answer:'));
      body.push(
        el(
          'ul',
          { class: 'cl-ask-turn-sources' },
          ...t.citations
            .map((n) => this.view.sources[n - 1])
            .filter((s): s is AskSourceView => !!s)
            .map((s) => el('li', {}, this.citation(s.n), ' ', sourceWhere(s), ': ', el('q', {}, s.text))),
        ),
      );
    } else {
      body.push(el('p', { class: t.kind === 'unknown' ? 'cl-ask-answer cl-ask-unknown' : 'cl-ask-answer' }, t.text));
    }
    if (t.cost) body.push(this.renderCost(t.cost));
    if (t.elements.length && t.kind !== 'unknown') {
      body.push(
        el(
          'ul',
          { class: 'cl-ask-elements', attrs: { 'aria-label': 'Figures, tables and equations' } },
          ...t.elements.map((e, i) => this.renderElement(e, t.index, i)),
        ),
      );
    }
    return el(
      'li',
      { class: `cl-ask-turn cl-ask-${t.kind}`, attrs: { 'data-turn': t.index } },
      el('p', { class: 'cl-ask-question' }, el('span', { class: 'cl-sr-only' }, 'Question: '), t.question),
      t.standalone !== t.question ? el('p', { class: 'cl-ask-standalone' }, 'Searched as: ', el('q', {}, t.standalone)) : null,
      t.filters ? el('p', { class: 'cl-ask-standalone cl-ask-filters' }, `Filters from the question: ${t.filters}`) : null,
      ...body,
    );
  }

  /** What the turn cost with the model: the total (and the estimate told before it) on one line, each step under it. */
  private renderCost(c: AskCostView): HTMLElement {
    return el(
      'details',
      { class: 'cl-ask-cost' },
      el('summary', {}, `Cost: ${c.total}${c.estimate ? ` (estimated ${c.estimate})` : ''}`),
      el('ul', { class: 'cl-ask-cost-steps', attrs: { 'aria-label': 'Cost per step' } }, ...c.steps.map((s) => el('li', {}, s))),
    );
  }

  /**
   * A figure, table or equation card: label, type and place, caption (a table's first row, an equation's LaTeX), and for
   * a PDF element the image of its region beside Open source.
   */
  private renderElement(e: AskElementView, turn: number, index: number): HTMLLIElement {
    const where = [e.type, e.section ? `section “${e.section}”` : null, e.page !== null ? `p. ${e.page}` : null].filter(Boolean).join(', ');
    const text = e.caption ?? e.content?.split('\n')[0] ?? null;
    return el(
      'li',
      { class: `cl-ask-element cl-ask-element-${e.type}` },
      el('span', { class: 'cl-ask-element-label' }, e.label ?? `Unnumbered ${e.type}`),
      ` (${where})`,
      text ? el('span', { class: 'cl-ask-element-caption' }, ' ', text) : null,
      e.description ? el('span', { class: 'cl-ask-element-description' }, ' Described: ', e.description) : null,
      // A title a model proposed is marked as in the panel (render.ts): the card is no surer of it than a source.
      el('span', { class: 'cl-byline' }, ' — ', ...titleWithMark(e), e.year !== null ? ` ${e.year}` : ''),
      e.source !== null && this.view.sources[e.source - 1] ? el('span', {}, ', beside ', this.citation(e.source)) : null,
      ' ',
      this.button(
        'Open source',
        'open-element',
        `Open ${e.label ?? `the ${e.type}`} in its paper${e.page !== null ? ` (page ${e.page})` : ''}`,
        false,
        { turn, element: index },
      ),
      this.images.slot(e.image, e.label ?? `Unnumbered ${e.type}`),
    );
  }

  /** A sentence whose [n] markers (of its own citations only) become citation buttons. */
  private renderSentence(text: string, citations: readonly number[]): HTMLElement {
    const span = el('span', { class: 'cl-ask-sentence' });
    const parts = text.split(/\[(\d+)\]/);
    parts.forEach((part, i) => {
      if (i % 2 === 0) {
        if (part) span.append(part);
        return;
      }
      const n = Number(part);
      const source = this.view.sources[n - 1];
      span.append(citations.includes(n) && source ? this.citation(n) : `[${part}]`);
    });
    return span;
  }

  private citation(n: number): HTMLElement {
    const s = this.view.sources[n - 1];
    return el(
      'button',
      {
        class: 'cl-ask-cite',
        attrs: {
          type: 'button',
          'data-source': n,
          'aria-label': `Source ${n}: ${s ? sourceWhere(s) : ''}`,
          'aria-describedby': 'cl-ask-quote',
        },
      },
      `[${n}]`,
    );
  }

  private renderSource(s: AskSourceView): HTMLLIElement {
    const who = `${shortAuthors(s.authors)}${s.year !== null ? ` ${s.year}` : ''}`;
    return el(
      'li',
      { class: 'cl-ask-source', attrs: { 'data-source': s.n, id: `cl-ask-source-${s.n}` } },
      el('span', { class: 'cl-ask-source-n' }, `[${s.n}]`),
      ' ',
      ...titleWithMark(s),
      ' ',
      el('span', { class: 'cl-byline' }, who),
      s.section || s.page !== null ? el('span', { class: 'cl-section' }, [s.section, pageAndLines(s)].filter(Boolean).join(', ')) : null,
      el('p', { class: 'cl-text' }, el('q', { class: 'cl-sentence' }, s.text)),
      this.renderCites(s),
      el(
        'div',
        { class: 'cl-actions', attrs: { role: 'group', 'aria-label': `Source ${s.n} actions` } },
        el(
          'button',
          {
            class: 'cl-action',
            attrs: { type: 'button', 'data-ask-action': 'cite', 'data-source': s.n, 'aria-label': `Cite ${who} at the cursor` },
          },
          'Cite',
        ),
        el(
          'button',
          {
            class: 'cl-action',
            attrs: { type: 'button', 'data-ask-action': 'open', 'data-source': s.n, 'aria-label': `Open the source of ${who}` },
          },
          'Open source',
        ),
      ),
    );
  }

  /**
   * The works a quote itself cites: its claim is theirs, reported by this paper ("as cited in"), never the quoting
   * paper's own. One line per work, whether the corpus has it, and Open cited paper when it does.
   */
  private renderCites(s: AskSourceView): HTMLElement | null {
    if (!s.cites?.length) return null;
    const quoting = s.title?.trim() || 'this paper';
    return el(
      'div',
      { class: 'cl-ask-cites' },
      el('p', { class: 'cl-ask-cites-note' }, 'This quote reports work it cites:'),
      el(
        'ul',
        { attrs: { 'aria-label': `Works source ${s.n} cites` } },
        ...s.cites.map((c, i) =>
          el(
            'li',
            { class: c.inCorpus ? 'cl-ask-cited cl-ask-cited-in' : 'cl-ask-cited' },
            `${citedWork(c)}, as cited in ${quoting} — ${c.inCorpus ? 'in your corpus' : 'not in your corpus'}`,
            c.inCorpus ? ' ' : null,
            c.inCorpus
              ? el(
                  'button',
                  {
                    class: 'cl-action',
                    attrs: {
                      type: 'button',
                      'data-ask-action': 'open-cited',
                      'data-source': s.n,
                      'data-cite': i,
                      'aria-label': `Open ${c.work}, the paper source ${s.n}'s quote cites`,
                    },
                  },
                  'Open cited paper',
                )
              : null,
          ),
        ),
      ),
    );
  }

  // ---- the quote popup ----

  private onPoint(e: Event): void {
    const cite = e.target instanceof Element ? e.target.closest<HTMLElement>('.cl-ask-cite') : null;
    if (!cite) return;
    const s = this.view.sources[Number(cite.dataset.source) - 1];
    if (!s) return;
    replace(
      this.quote,
      el(
        'p',
        { class: 'cl-ask-quote-text' },
        s.previous ? el('span', { class: 'cl-context' }, s.previous, ' ') : null,
        el('q', { class: 'cl-sentence' }, s.text),
        s.next ? el('span', { class: 'cl-context' }, ' ', s.next) : null,
      ),
      el('p', { class: 'cl-ask-quote-where' }, `[${s.n}] ${sourceWhere(s)}`),
      s.cites?.length
        ? el('p', { class: 'cl-ask-quote-cites' }, `Reports ${s.cites.map((c) => c.work).join('; ')}, as cited in this paper.`)
        : null,
    );
    this.quote.hidden = false;
    this.quote.dataset.source = String(s.n);
    // Under the citation, kept inside the panel's width (CSSOM styles: the CSP allows them, unlike style attributes).
    const r = cite.getBoundingClientRect();
    const parent = this.quote.offsetParent as HTMLElement | null;
    const box = parent?.getBoundingClientRect() ?? { left: 0, top: 0 };
    const room = (parent?.clientWidth ?? window.innerWidth) - this.quote.offsetWidth - 4;
    // The tab's panel scrolls (panel.css): positions inside it count from its content's top, not its visible top.
    this.quote.style.left = `${Math.max(4, Math.min(r.left - box.left + (parent?.scrollLeft ?? 0), room))}px`;
    this.quote.style.top = `${r.bottom - box.top + (parent?.scrollTop ?? 0) + 4}px`;
  }

  private onLeave(e: Event): void {
    const cite = e.target instanceof Element ? e.target.closest('.cl-ask-cite') : null;
    const to = (e as MouseEvent | FocusEvent).relatedTarget;
    if (cite && !(to instanceof Element && to.closest('.cl-ask-cite') === cite)) this.hideQuote();
  }

  private hideQuote(): void {
    this.quote.hidden = true;
    delete this.quote.dataset.source;
  }

  // ---- actions ----

  private onClick(e: MouseEvent): void {
    const target = e.target instanceof Element ? e.target.closest<HTMLElement>('[data-ask-action]') : null;
    if (!target || target.hasAttribute('disabled')) return;
    const source = Number(target.dataset.source);
    switch (target.dataset.askAction) {
      case 'ask':
        return this.ask();
      case 'cancel':
        return this.post({ type: 'askCancel' });
      case 'clear':
        return this.post({ type: 'askClear' });
      case 'insert':
        return this.post({ type: 'askInsert', turn: Number(target.dataset.turn) });
      case 'cite':
        return this.post({ type: 'askCite', source });
      case 'open':
        return this.post({ type: 'askOpenSource', source });
      case 'open-cited':
        return this.post({ type: 'askOpenCited', source, cite: Number(target.dataset.cite) });
      case 'open-element':
        return this.post({ type: 'askOpenElement', turn: Number(target.dataset.turn), element: Number(target.dataset.element) });
    }
  }
}
