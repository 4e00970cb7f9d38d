// The panel's Ask tab in headless Chromium (the real CSP from panelHtml, the built dist/webview.js, a stub
// acquireVsCodeApi): hostile answer and quote text stays text, a citation reveals its verified quote on hover and on
// keyboard focus, the draft streams, and the buttons post exactly the protocol messages the host acts on.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AskView } from '../../webview/protocol.js';
import { chromiumFixture, noChromium } from '../support/chromium.js';
import { ensureWebviewBundle, openPanel, startPanelServer, waitPosted, type PanelPage } from '../support/webview-page.js';

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

const conversation: AskView = {
  turns: [
    {
      index: 0,
      question: `Which HNSW settings work? ${HOSTILE}`,
      standalone: `Which HNSW settings work? ${HOSTILE}`,
      kind: 'answer',
      text: '',
      sentences: [
        { text: `M = 16 reaches recall 0.98 ${HOSTILE} [1][2].`, citations: [1, 2] },
        { text: 'A marker the sentence does not cite stays text [3].', citations: [] },
      ],
      citations: [1, 2],
      removed: 1,
      model: 'standin',
      filters: `years 2020 on; venue ${HOSTILE}`,
      elements: [
        {
          type: 'table',
          label: 'Table 2',
          caption: `Recall by M ${HOSTILE}`,
          content: 'M | recall',
          title: 'HNSW Tuning',
          year: 2022,
          section: 'Results',
          page: 4,
          match: 'linked',
          source: 1,
          description: `Recall at ten for each M ${HOSTILE}`,
        },
      ],
      cost: {
        estimate: '~3 model calls, ~1.9k tokens, ~8 s',
        total: '3 model calls, 1.6k tokens, 5 s',
        steps: ['search: 0.2 s', 'answer: 1.1k tokens, 3.1 s', `check: 500 tokens, 1.4 s ${HOSTILE}`],
      },
    },
    {
      index: 1,
      question: 'Where did you find that?',
      standalone: 'Where did you find that?',
      kind: 'sources',
      text: '[1] …',
      sentences: [],
      citations: [1, 2],
      removed: 0,
      model: null,
      elements: [],
      filters: null,
      cost: null,
    },
  ],
  sources: [
    {
      n: 1,
      paperId: 'p1',
      citationKey: 'mwangi2022',
      title: `HNSW Tuning <b>bold</b>`,
      authors: ['Amina Mwangi'],
      year: 2022,
      section: 'Results',
      page: 4,
      lineStart: 12,
      lineEnd: 14,
      pageEnd: 4,
      text: `With M = 16, recall@10 reached 0.98. ${HOSTILE}`,
      previous: 'Before it.',
      next: 'After it.',
    },
    {
      n: 2,
      paperId: 'p2',
      citationKey: null,
      title: null,
      authors: [],
      year: null,
      section: null,
      page: null,
      lineStart: null,
      lineEnd: null,
      pageEnd: null,
      text: 'Exact search is as fast below 50,000 vectors.',
      previous: null,
      next: null,
    },
    {
      n: 3,
      paperId: 'p3',
      citationKey: null,
      title: 'Third',
      authors: ['X Y'],
      year: 2020,
      section: null,
      page: null,
      lineStart: null,
      lineEnd: null,
      pageEnd: null,
      text: 'Unused.',
      previous: null,
      next: null,
    },
  ],
};

async function askTab(p: PanelPage): Promise<void> {
  await p.send({ type: 'askFocus' });
  await p.page.waitForFunction(() => !document.querySelector('.cl-ask')?.hasAttribute('hidden'));
}

describe('the Ask tab in headless Chromium', { skip: noChromium }, () => {
  const chrome = chromiumFixture(startPanelServer, ensureWebviewBundle);

  test('askFocus shows the tab with the cursor in the question box; Enter posts the question, the draft streams without paper ids, the answer replaces it', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      assert.equal(await p.page.isVisible('#cl-ask-input'), false, 'the similar-sentences tab is shown first');
      await askTab(p);
      assert.equal(await p.page.evaluate(() => document.activeElement?.id), 'cl-ask-input', 'the question box has the focus');
      await p.page.keyboard.type('What reaches recall 0.98?');
      await p.page.keyboard.press('Enter');
      assert.deepEqual(await waitPosted(p, (m) => m.type === 'ask', 'the question'), {
        type: 'ask',
        question: 'What reaches recall 0.98?',
      });
      assert.equal(await p.page.isVisible('[data-ask-action="cancel"]'), true, 'Stop is offered while it runs');
      await p.send({ type: 'askProgress', progress: { kind: 'start', question: 'What reaches recall 0.98?', llm: 'standin' } });
      await p.send({
        type: 'askProgress',
        progress: { kind: 'estimate', estimate: '~3 model calls, ~1.9k tokens, ~8 s', basis: '8 evidence sentences, verified' },
      });
      assert.equal(
        await p.page.textContent('#cl-ask-status'),
        'Asking (estimate: ~3 model calls, ~1.9k tokens, ~8 s; 8 evidence sentences, verified)…',
        'the cost ahead, before any model call',
      );
      await p.send({ type: 'askProgress', progress: { kind: 'stage', stage: 'answer' } });
      for (const delta of ['M = 16 reaches ', 'recall 0.98 [P', '1]', ` ${HOSTILE}`])
        await p.send({ type: 'askProgress', progress: { kind: 'draft', delta } });
      assert.equal(
        await p.page.textContent('#cl-ask-status'),
        'Writing the answer… (estimate: ~3 model calls, ~1.9k tokens, ~8 s; 8 evidence sentences, verified)',
        'the estimate stays beside each stage',
      );
      const draft = await p.page.textContent('#cl-ask-draft p');
      assert.equal(draft, `M = 16 reaches recall 0.98 ${HOSTILE}`, 'the draft streams as text, the [P1] id left out');
      await p.page.click('[data-ask-action="cancel"]');
      await waitPosted(p, (m) => m.type === 'askCancel', 'askCancel');
      await p.send({ type: 'ask', ask: conversation });
      await p.page.waitForSelector('.cl-ask-turn');
      assert.equal(await p.page.isVisible('#cl-ask-draft'), false, 'the checked answer replaces the draft');
      assert.equal(await p.page.isVisible('[data-ask-action="cancel"]'), false);
      assert.equal(
        await p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
        undefined,
        'no markup from the corpus or the model ran',
      );
      assert.equal(await p.page.locator('.cl-ask img, .cl-ask script, .cl-ask b').count(), 0, 'and none became elements');
      assert.ok((await p.page.textContent('.cl-ask-answer'))!.includes(HOSTILE), 'it is shown as the text it is');
      assert.ok((await p.page.textContent('#cl-ask-source-1'))!.includes('HNSW Tuning <b>bold</b>'));
      const card = await p.page.textContent('.cl-ask-turn[data-turn="0"] .cl-ask-element');
      assert.equal(
        card,
        `Table 2 (table, section “Results”, p. 4) Recall by M ${HOSTILE} Described: Recall at ten for each M ${HOSTILE} — HNSW Tuning 2022, beside [1] Open source`,
        'an element card, its caption and its description as text',
      );
      assert.equal(
        await p.page.textContent('.cl-ask-turn[data-turn="0"] .cl-ask-cost summary'),
        'Cost: 3 model calls, 1.6k tokens, 5 s (estimated ~3 model calls, ~1.9k tokens, ~8 s)',
        'what the answer cost, beside what was estimated',
      );
      await p.page.click('.cl-ask-turn[data-turn="0"] .cl-ask-cost summary');
      assert.deepEqual(
        await p.page.$$eval('.cl-ask-turn[data-turn="0"] .cl-ask-cost li', (li) => li.map((x) => x.textContent)),
        ['search: 0.2 s', 'answer: 1.1k tokens, 3.1 s', `check: 500 tokens, 1.4 s ${HOSTILE}`],
        'and each step, opened',
      );
      assert.equal(await p.page.locator('.cl-ask-turn[data-turn="1"] .cl-ask-cost').count(), 0, 'no cost where no model was asked');
      assert.equal(
        await p.page.textContent('.cl-ask-turn[data-turn="0"] .cl-ask-filters'),
        `Filters from the question: years 2020 on; venue ${HOSTILE}`,
        'the filters the question stated, as text',
      );
      assert.equal(await p.page.locator('.cl-ask-turn[data-turn="1"] .cl-ask-filters').count(), 0, 'none where it stated none');
      assert.deepEqual(await p.violations(), [], 'no CSP violation');
      assert.deepEqual(p.pageErrors, []);
      await p.page.screenshot({ path: chrome.artifact('webview-ask-tab.png'), fullPage: true });
    } finally {
      await p.close();
    }
  });

  test('a citation reveals its verified quote (paper, section, page) on hover and on keyboard focus; only cited markers are citations', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await askTab(p);
      await p.send({ type: 'ask', ask: conversation });
      await p.page.waitForSelector('.cl-ask-turn');
      const cites = await p.page.$$eval('.cl-ask-turn[data-turn="0"] .cl-ask-answer .cl-ask-cite', (bs) => bs.map((b) => b.textContent));
      assert.deepEqual(cites, ['[1]', '[2]'], 'the [3] its sentence does not cite stays plain text');
      assert.equal(await p.page.isVisible('#cl-ask-quote'), false);
      await p.page.hover('.cl-ask-turn[data-turn="0"] .cl-ask-cite[data-source="1"]');
      await p.page.waitForSelector('#cl-ask-quote:not([hidden])');
      const quote = await p.page.textContent('#cl-ask-quote');
      assert.ok(quote!.includes(`With M = 16, recall@10 reached 0.98. ${HOSTILE}`), quote!);
      assert.ok(quote!.includes('[1] HNSW Tuning <b>bold</b> (Mwangi 2022), section “Results”, p. 4, ll. 12–14'), quote!);
      assert.ok(quote!.includes('Before it.') && quote!.includes('After it.'), 'with its context');
      assert.equal(await p.page.locator('#cl-ask-quote img, #cl-ask-quote b').count(), 0);
      await p.page.screenshot({ path: chrome.artifact('webview-ask-quote.png') });
      await p.page.mouse.move(5, 5);
      await p.page.waitForSelector('#cl-ask-quote[hidden]', { state: 'attached' });
      // Keyboard: focus the second citation.
      await p.page.focus('.cl-ask-turn[data-turn="0"] .cl-ask-cite[data-source="2"]');
      await p.page.waitForSelector('#cl-ask-quote:not([hidden])');
      assert.match((await p.page.textContent('#cl-ask-quote'))!, /Exact search is as fast below 50,000 vectors\.\s*\[2\] Untitled paper$/);
      assert.equal(await p.page.getAttribute('.cl-ask-cite[data-source="2"]', 'aria-describedby'), 'cl-ask-quote');
      await p.page.keyboard.press('Escape');
      await p.page.waitForSelector('#cl-ask-quote[hidden]', { state: 'attached' });
      // "Where did you find that?" lists the previous answer's sources with the same numbers.
      assert.match((await p.page.textContent('.cl-ask-turn[data-turn="1"]'))!, /Sources of the previous answer:\s*\[1\] HNSW Tuning/);
    } finally {
      await p.close();
    }
  });

  test('in a short side bar, a scrolled conversation keeps the tab strip and the question box in view, and the tabs still switch', async () => {
    const p = await openPanel(chrome.browser, chrome.server, { height: 360 });
    try {
      await askTab(p);
      const long = { ...conversation, turns: Array.from({ length: 6 }, (_, i) => ({ ...conversation.turns[0], index: i })) };
      await p.send({ type: 'ask', ask: long });
      await p.page.waitForSelector('.cl-ask-turn[data-turn="5"]');
      await p.page.locator('.cl-ask-turn[data-turn="5"] [data-ask-action="insert"]').scrollIntoViewIfNeeded();
      // What the user sees at the top of the panel: the topmost element under the tab header's and the question
      // box's centres must be those controls themselves, not answer text scrolled over or under them.
      // A string, not a function: tsx's transform would add helpers (__name) that do not exist in the page.
      const onTop = await p.page.evaluate(`(() => {
        const at = (el) => {
          if (!el) return 'missing';
          const r = el.getBoundingClientRect();
          if (r.bottom <= 0 || r.top >= innerHeight) return 'scrolled away';
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return hit && (hit === el || el.contains(hit) || hit.contains(el)) ? 'visible' : 'covered by ' + (hit?.className || hit?.tagName);
        };
        return { tab: at(document.querySelector('vscode-tab-header')), question: at(document.querySelector('#cl-ask-input')) };
      })()`);
      assert.deepEqual(onTop, { tab: 'visible', question: 'visible' });
      await p.page.screenshot({ path: chrome.artifact('webview-ask-short.png') });
      // In the scrolled panel a citation's quote opens just under the citation, and scrolling puts it away.
      const cite = p.page.locator('.cl-ask-turn[data-turn="5"] .cl-ask-answer .cl-ask-cite[data-source="1"]');
      await cite.hover();
      await p.page.waitForSelector('#cl-ask-quote:not([hidden])');
      const [c, q] = [await cite.boundingBox(), await p.page.locator('#cl-ask-quote').boundingBox()];
      assert.ok(
        c && q && q.y >= c.y + c.height && q.y <= c.y + c.height + 12,
        `quote at ${q?.y}, citation bottom at ${c ? c.y + c.height : '?'}`,
      );
      await p.page.mouse.wheel(0, -200);
      await p.page.waitForSelector('#cl-ask-quote[hidden]', { state: 'attached' });
      await p.page.click('vscode-tab-header >> nth=0');
      await p.page.waitForFunction(() => document.querySelector('.cl-ask')?.hasAttribute('hidden'));
    } finally {
      await p.close();
    }
  });

  test('a source whose quote cites work says what it cites, as cited in the quoting paper, and opens the cited paper the corpus has', async () => {
    const quoting: AskView = {
      turns: [
        { ...conversation.turns[0], sentences: [{ text: '“Sparse retrieval improves recall.” [1]', citations: [1] }], citations: [1] },
      ],
      sources: [
        {
          ...conversation.sources[0],
          title: `A Survey of Passage Retrieval ${HOSTILE}`,
          text: 'As shown by [cite], sparse lexical retrieval improves recall on long queries.',
          cites: [
            {
              work: 'Smith et al. 2019',
              title: `Sparse Lexical Retrieval ${HOSTILE}`,
              year: 2019,
              inCorpus: { title: 'Sparse Lexical Retrieval' },
            },
            { work: `Lee ${HOSTILE}`, title: null, year: 2020, inCorpus: null },
          ],
        },
        conversation.sources[1],
      ],
    };
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await askTab(p);
      await p.send({ type: 'ask', ask: quoting });
      await p.page.waitForSelector('#cl-ask-source-1 .cl-ask-cites');
      assert.equal(await p.page.textContent('#cl-ask-source-1 .cl-ask-cites-note'), 'This quote reports work it cites:');
      assert.deepEqual(await p.page.$$eval('#cl-ask-source-1 .cl-ask-cited', (li) => li.map((x) => x.textContent)), [
        `Smith et al. 2019, “Sparse Lexical Retrieval ${HOSTILE}”, as cited in A Survey of Passage Retrieval ${HOSTILE} — in your corpus Open cited paper`,
        `Lee ${HOSTILE} (2020), as cited in A Survey of Passage Retrieval ${HOSTILE} — not in your corpus`,
      ]);
      assert.equal(await p.page.locator('#cl-ask-source-2 .cl-ask-cites').count(), 0, 'a quote that cites nothing says nothing');
      assert.equal(await p.page.locator('.cl-ask img, .cl-ask script, .cl-ask b').count(), 0, 'corpus text stays text');
      assert.equal(await p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
      // The citation's quote says so too.
      await p.page.hover('.cl-ask-turn[data-turn="0"] .cl-ask-cite[data-source="1"]');
      await p.page.waitForSelector('#cl-ask-quote:not([hidden])');
      assert.equal(
        await p.page.textContent('#cl-ask-quote .cl-ask-quote-cites'),
        `Reports Smith et al. 2019; Lee ${HOSTILE}, as cited in this paper.`,
      );
      await p.page.mouse.move(5, 5);
      await p.page.screenshot({ path: chrome.artifact('webview-ask-cited.png'), fullPage: true });
      await p.clearPosted();
      assert.equal(
        await p.page.locator('#cl-ask-source-1 [data-ask-action="open-cited"]').count(),
        1,
        'only the work the corpus has opens',
      );
      await p.page.click('#cl-ask-source-1 [data-ask-action="open-cited"]');
      await waitPosted(p, (m) => m.type === 'askOpenCited', 'askOpenCited');
      assert.deepEqual(await p.posted(), [{ type: 'askOpenCited', source: 1, cite: 0 }]);
      assert.deepEqual(await p.violations(), [], 'no CSP violation');
      assert.deepEqual(p.pageErrors, []);
    } finally {
      await p.close();
    }
  });

  test("a source and a card whose paper's title a model proposed carry the panel's mark, as text; a real title none", async () => {
    const model = `gpt-4o-mini ${HOSTILE}`;
    const [first, second, third] = conversation.sources;
    const marked: AskView = {
      turns: [
        {
          ...conversation.turns[0],
          elements: [
            { ...conversation.turns[0].elements[0], metadataProposedBy: model },
            { ...conversation.turns[0].elements[0], label: 'Table 3' },
          ],
        },
      ],
      sources: [{ ...first, metadataProposedBy: model }, second, { ...third, metadataProposedBy: 'its first heading', titleMadeUp: true }],
    };
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await askTab(p);
      await p.send({ type: 'ask', ask: marked });
      await p.page.waitForSelector('.cl-ask-turn');
      const mark = (selector: string) =>
        p.page.$$eval(`${selector} .cl-proposed`, (m) => m.map((x) => [x.textContent, x.getAttribute('title')]));
      assert.deepEqual(await mark('#cl-ask-source-1'), [
        [` (title proposed by ${model})`, `Title, authors and year proposed by ${model}, not read from the paper: check before citing`],
      ]);
      assert.equal(await p.page.getAttribute('#cl-ask-source-1 .cl-paper-title', 'title'), (await mark('#cl-ask-source-1'))[0][1]);
      assert.deepEqual(await mark('#cl-ask-source-2'), [], 'a real title carries no mark');
      assert.deepEqual(await mark('#cl-ask-source-3'), [
        [
          ' (title proposed by its first heading)',
          "The paper's source names no title: shown by its first heading, not its title: check before citing",
        ],
      ]);
      const cards = await p.page.$$eval('.cl-ask-turn[data-turn="0"] .cl-ask-element .cl-byline', (b) => b.map((x) => x.textContent));
      assert.deepEqual(cards, [` — HNSW Tuning (title proposed by ${model}) 2022`, ' — HNSW Tuning 2022'], 'the card says so too');
      await p.page.hover('.cl-ask-turn[data-turn="0"] .cl-ask-cite[data-source="1"]');
      await p.page.waitForSelector('#cl-ask-quote:not([hidden])');
      assert.equal(
        await p.page.textContent('#cl-ask-quote .cl-ask-quote-where'),
        `[1] HNSW Tuning <b>bold</b> (title proposed by ${model}) (Mwangi 2022), section “Results”, p. 4, ll. 12–14`,
        'and the quote a citation reveals',
      );
      assert.equal(await p.page.locator('.cl-ask img, .cl-ask script, .cl-ask b').count(), 0, 'the model name stays text');
      assert.equal(await p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
      assert.deepEqual(await p.violations(), [], 'no CSP violation');
      assert.deepEqual(p.pageErrors, []);
      await p.page.screenshot({ path: chrome.artifact('webview-ask-proposed.png'), fullPage: true });
    } finally {
      await p.close();
    }
  });

  test('Insert answer, Cite, Open source and Clear post the messages the host acts on, and nothing else', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await askTab(p);
      await p.send({ type: 'ask', ask: conversation });
      await p.page.waitForSelector('.cl-ask-turn');
      await p.clearPosted();
      assert.equal(
        await p.page.locator('.cl-ask-turn[data-turn="1"] [data-ask-action="insert"]').count(),
        0,
        'a sources turn has nothing to insert',
      );
      await p.page.click('.cl-ask-turn[data-turn="0"] [data-ask-action="insert"]');
      await p.page.click('#cl-ask-source-2 [data-ask-action="cite"]');
      await p.page.click('#cl-ask-source-1 [data-ask-action="open"]');
      await p.page.click('.cl-ask-turn[data-turn="0"] .cl-ask-element [data-ask-action="open-element"]');
      await p.page.click('[data-ask-action="clear"]');
      await waitPosted(p, (m) => m.type === 'askClear', 'askClear');
      assert.deepEqual(await p.posted(), [
        { type: 'askInsert', turn: 0 },
        { type: 'askCite', source: 2 },
        { type: 'askOpenSource', source: 1 },
        { type: 'askOpenElement', turn: 0, element: 0 },
        { type: 'askClear' },
      ]);
      // The host's cleared conversation empties the tab.
      await p.send({ type: 'ask', ask: { turns: [], sources: [] } });
      await p.page.waitForFunction(() => document.querySelectorAll('.cl-ask-turn').length === 0);
      assert.equal(await p.page.isVisible('#cl-ask-sources'), false);
      // A malformed conversation (a source whose text is not a string) is refused whole: the tab keeps what it had.
      await p.send({ type: 'ask', ask: conversation });
      await p.page.waitForSelector('.cl-ask-turn');
      await p.page.evaluate(
        (c: AskView) => window.postMessage({ type: 'ask', ask: { ...c, sources: [{ ...c.sources[0], text: { toString: null } }] } }, '*'),
        conversation,
      );
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(await p.page.locator('.cl-ask-turn').count(), 2);
      assert.deepEqual(p.pageErrors, []);
      const saved = (await p.savedState()) as { tab?: string };
      assert.equal(saved.tab, 'ask', 'the tab shown is kept across reloads');
    } finally {
      await p.close();
    }
  });
});
