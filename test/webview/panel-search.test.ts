// The Similar tab's search box and filters in headless Chromium (the real CSP, the built dist/webview.js): what the
// view posts when the author searches or applies filters, and how it shows the host's filters in its header.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { HostMessage } from '../../webview/protocol.js';
import {
  cleanPage,
  ensureWebviewBundle,
  makeHits,
  openPanel,
  resultsMessage,
  startPanelServer,
  waitPosted,
} from '../support/webview-page.js';
import { chromiumFixture, noChromium } from '../support/chromium.js';

describe('panel search box and filters in headless Chromium', { skip: noChromium }, () => {
  const chrome = chromiumFixture(startPanelServer, ensureWebviewBundle);

  test('Enter in the search box posts the text; Escape posts an empty search (back to the cursor)', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await p.page.fill('#cl-search', '  reciprocal rank fusion ');
      await p.page.press('#cl-search', 'Enter');
      await waitPosted(p, (m) => m.type === 'search' && m.text === 'reciprocal rank fusion', 'the search');
      await p.clearPosted();
      await p.page.press('#cl-search', 'Escape');
      await waitPosted(p, (m) => m.type === 'search' && m.text === '', 'the cleared search');
      assert.equal(await p.page.inputValue('#cl-search'), '');
      // A typed search's results say so in the header.
      const typed = resultsMessage(makeHits(3)) as Extract<HostMessage, { type: 'state' }>;
      if (typed.state.kind !== 'results') throw new Error('results state expected');
      await p.send({ ...typed, state: { ...typed.state, query: { clean: 'rank fusion', section: null, typed: true } } });
      await p.page.waitForFunction(() => document.querySelectorAll('#cl-results > .cl-hit').length === 3);
      assert.match((await p.page.textContent('#cl-query')) ?? '', /^Sentences matching rank fusion$/);
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('Apply posts the filters; a year that is not a number is refused in the form', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await p.page.click('#cl-filters-toggle');
      await p.page.fill('#cl-filter-year-min', '20x9');
      await p.page.click('#cl-filter-apply');
      assert.match((await p.page.textContent('#cl-filter-error')) ?? '', /A year is a number/);
      assert.equal((await p.posted()).filter((m) => m.type === 'setFilters').length, 0, 'nothing posted');
      await p.page.fill('#cl-filter-year-min', '2019');
      await p.page.fill('#cl-filter-year-max', '2023');
      await p.page.fill('#cl-filter-venue', ' ACL ');
      await p.page.fill('#cl-filter-section', 'related work');
      await p.page.press('#cl-filter-section', 'Enter'); // Enter in a field submits the form
      const m = await waitPosted(p, (x) => x.type === 'setFilters', 'the filters');
      assert.deepEqual(m, {
        type: 'setFilters',
        filters: { yearMin: 2019, yearMax: 2023, venue: 'ACL', section: 'related work', paper: '' },
      });
      assert.equal(await p.page.textContent('#cl-filter-error'), '');
      await p.clearPosted();
      await p.page.click('#cl-filter-clear');
      const cleared = await waitPosted(p, (x) => x.type === 'setFilters', 'the cleared filters');
      assert.deepEqual(cleared, { type: 'setFilters', filters: { yearMin: null, yearMax: null, venue: '', section: '', paper: '' } });
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test("the host's filters fill the form and show in the header, as text (markup in a filter is not run)", async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      assert.equal(await p.page.isVisible('#cl-filter-summary'), false, 'no filters: no summary line');
      const venue = '<img src=x onerror="window.__pwned=1">ACL';
      await p.send({ type: 'filters', filters: { yearMin: 2019, yearMax: 2023, venue, section: 'Related Work' }, search: 'bm25 baseline' });
      await p.page.waitForFunction(() => !document.querySelector<HTMLElement>('#cl-filter-summary')!.hidden);
      assert.equal(await p.page.textContent('#cl-filter-summary'), `Filtered: 2019–2023 · venue “${venue}” · section “Related Work”`);
      assert.equal(await p.page.evaluate(() => document.querySelector('#cl-filter-summary img')), null, 'no element made from the text');
      assert.equal(await p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
      assert.equal(await p.page.inputValue('#cl-filter-year-min'), '2019');
      assert.equal(await p.page.inputValue('#cl-filter-venue'), venue);
      assert.equal(await p.page.inputValue('#cl-search'), 'bm25 baseline');
      assert.equal(await p.page.textContent('#cl-filters-toggle'), 'Filters (on)');
      // The summary opens the form.
      await p.page.click('#cl-filter-summary');
      assert.equal(await p.page.evaluate(() => (document.querySelector('#cl-filters') as HTMLDetailsElement).open), true);
      await p.send({ type: 'filters', filters: { yearMin: 2020 }, search: '' });
      await p.page.waitForFunction(() => document.querySelector('#cl-filter-summary')?.textContent === 'Filtered: since 2020');
      await p.send({ type: 'filters', filters: {}, search: '' });
      await p.page.waitForFunction(() => document.querySelector<HTMLElement>('#cl-filter-summary')!.hidden);
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('no results within filters says the filters may be why', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await p.send({
        type: 'state',
        state: { kind: 'noResults', threshold: 0.2, query: { clean: 'x y z', section: null }, filtered: true },
      });
      await p.page.waitForFunction(() => /within the filters/.test(document.querySelector('#cl-message')?.textContent ?? ''));
      assert.match((await p.page.textContent('#cl-message')) ?? '', /Widen or clear the filters/);
    } finally {
      await p.close();
    }
  });
});
