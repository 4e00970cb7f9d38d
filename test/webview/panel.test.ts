// The side-panel webview in headless Chromium (Debian's /usr/bin/chromium via playwright-core), served with the
// real CSP from panelHtml and the built dist/webview.js, talking to a stub acquireVsCodeApi.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { HitView, HostMessage, ViewState } from '../../webview/protocol.js';
import { tokenize } from '../../src/core/retrieve/recurring.js';
import {
  cleanPage,
  SENTENCES,
  ensureWebviewBundle,
  makeHits,
  openPanel,
  resultsMessage,
  startPanelServer,
  waitPosted,
  type PanelPage,
  type ThemeName,
} from '../support/webview-page.js';
import { chromiumFixture, noChromium } from '../support/chromium.js';

async function showResults(p: PanelPage, hits: HitView[] = makeHits(25), offset: 0 | 1 = 0): Promise<void> {
  await p.send(resultsMessage(hits, offset));
  await p.page.waitForFunction((n) => document.querySelectorAll('#cl-results > .cl-hit').length === n, hits.length);
}

async function activeHitId(p: PanelPage): Promise<string | null> {
  return p.page.evaluate(() => (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('.cl-hit')?.dataset.hitId ?? null);
}

describe('side-panel webview in headless Chromium', { skip: noChromium }, () => {
  const chrome = chromiumFixture(startPanelServer, ensureWebviewBundle);

  test('posts ready, shows the idle state, and vscode-elements render under the CSP', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      assert.deepEqual(await p.posted(), [{ type: 'ready' }]);
      assert.match((await p.page.textContent('#cl-message')) ?? '', /Place the cursor in a sentence/);
      assert.equal(await p.page.textContent('#cl-status'), 'Corpus Lens is ready.');
      const styled = await p.page.evaluate(() => {
        const b = document.querySelector('#cl-message vscode-button');
        const t = document.querySelector('#cl-offset-toggle');
        return {
          defined: !!customElements.get('vscode-button') && !!customElements.get('vscode-checkbox'),
          buttonSheets: b?.shadowRoot?.adoptedStyleSheets.length ?? 0,
          toggleSheets: t?.shadowRoot?.adoptedStyleSheets.length ?? 0,
          buttonBg: b ? getComputedStyle(b).backgroundColor : '',
          role: t?.shadowRoot?.querySelector('input')?.getAttribute('role'),
        };
      });
      assert.ok(styled.defined);
      assert.ok(styled.buttonSheets > 0 && styled.toggleSheets > 0, 'shadow styles adopted');
      assert.equal(styled.role, 'switch');
      // The stylesheet link and the script tag both carry the page's nonce; nothing inline without it.
      const csp = await p.page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
      assert.match(csp ?? '', /script-src 'nonce-[^']+'; /);
      assert.doesNotMatch(csp ?? '', /unsafe-inline|unsafe-eval/);
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('a title a model proposed carries a muted mark naming the model (as text, escaped); a real title none; bookmarks too', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      const [real, proposed] = makeHits(2);
      const model = '<img src=m onerror=alert(8)>';
      proposed.paper = { ...proposed.paper, title: 'Sparse Retrieval for Long Queries', metadataProposedBy: model };
      real.paper = { ...real.paper, metadataProposedBy: null };
      await showResults(p, [real, proposed]);
      const shown = (id: string) =>
        p.page.evaluate((hitId) => {
          const li = document.querySelector(`.cl-hit[data-hit-id="${hitId}"]`)!;
          const mark = li.querySelector('.cl-proposed');
          return {
            title: li.querySelector('.cl-paper-title')?.textContent,
            tooltip: li.querySelector('.cl-paper-title')?.getAttribute('title') ?? null,
            mark: mark?.textContent ?? null,
            muted: mark ? getComputedStyle(mark).color !== getComputedStyle(li.querySelector('.cl-sentence')!).color : null,
          };
        }, id);
      const marked = await shown(proposed.id);
      assert.equal(marked.title, 'Sparse Retrieval for Long Queries');
      assert.equal(marked.mark, ` (title proposed by ${model})`);
      assert.match(marked.tooltip ?? '', /proposed by <img src=m onerror=alert\(8\)>, not read from the paper/);
      assert.equal(marked.muted, true, 'muted, as the byline');
      assert.deepEqual(await shown(real.id), { title: real.paper.title, tooltip: null, mark: null, muted: null });
      assert.equal(await p.page.evaluate(() => document.querySelectorAll('#cl-results img').length), 0, 'no markup from the model name');

      await p.send({
        type: 'bookmarks',
        list: [{ id: proposed.id, sentence: proposed.sentence, paper: proposed.paper, addedAt: new Date().toISOString() }],
      });
      await p.page.waitForSelector('.cl-bookmark .cl-proposed', { state: 'attached' });
      assert.equal(await p.page.textContent('.cl-bookmark .cl-proposed'), ` (title proposed by ${model})`);

      // A name made up for a LaTeX source without \title: said to be its first heading's, its authors and year not doubted.
      const [madeUp] = makeHits(1);
      madeUp.paper = { ...madeUp.paper, title: 'Introduction', metadataProposedBy: 'its first heading', titleMadeUp: true };
      await showResults(p, [madeUp]);
      const heading = await shown(madeUp.id);
      assert.equal(heading.mark, ' (title proposed by its first heading)');
      assert.equal(heading.tooltip, "The paper's source names no title: shown by its first heading, not its title: check before citing");
    } finally {
      await p.close();
    }
  });

  test('renders 25 results with context, section, paper, authors, year, venue and similarity', async (t) => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      const hits = makeHits(25);
      // Time the render in the page: message dispatch → list built (sync) → the next task → the next frame.
      // The first render is cold (fresh page, JIT); the second replaces 25 results with 25 others.
      const measure = (batch: HitView[]) =>
        p.page.evaluate(
          `new Promise((resolve) => {
            const longTasks = [];
            const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
            observer.observe({ type: 'longtask' });
            const before = window.corpusLens.lastRender()?.seq ?? 0;
            let task = -1;
            const t0 = performance.now();
            window.postMessage(${JSON.stringify(resultsMessage(batch))}, '*');
            setTimeout(() => { task = performance.now() - t0; }, 0);
            const check = () => {
              const r = window.corpusLens.lastRender();
              if (!r || r.seq <= before || task < 0) return void setTimeout(check, 0);
              requestAnimationFrame(() => setTimeout(() => {
                const frame = performance.now() - t0;
                setTimeout(() => {
                  for (const e of observer.takeRecords()) longTasks.push(e.duration);
                  observer.disconnect();
                  resolve({
                    build: r.buildMs,
                    slices: r.slices,
                    task,
                    frame,
                    longest: Math.max(0, ...longTasks),
                    count: document.querySelectorAll('#cl-results > .cl-hit').length,
                  });
                }, 50);
              }, 0));
            };
            check();
          })`,
        ) as Promise<{ build: number; slices: number; task: number; frame: number; longest: number; count: number }>;
      const cold = await measure(hits.map((h) => ({ ...h, id: `${h.id}-cold` })));
      const warm = await measure(hits);
      assert.equal(cold.count, 25);
      assert.equal(warm.count, 25);
      for (const [name, r] of [
        ['first', cold],
        ['second', warm],
      ] as const) {
        const line =
          `${name} render of 25 results: DOM built in ${r.build.toFixed(1)} ms over ${r.slices} task(s), ` +
          `input could run again after ${r.task.toFixed(1)} ms, all painted after ${r.frame.toFixed(1)} ms, ` +
          `longest task ${r.longest ? `${r.longest.toFixed(0)} ms` : 'under 50 ms (no long task)'}`;
        t.diagnostic(line);
        console.log(`# webview: ${line}`);
      }

      const items = await p.page.$$eval('#cl-results > .cl-hit', (lis) =>
        lis.map((li) => ({
          id: (li as HTMLElement).dataset.hitId,
          sim: li.querySelector('.cl-sim')?.textContent,
          section: li.querySelector('.cl-section')?.textContent ?? null,
          prev: li.querySelector('.cl-prev')?.textContent ?? null,
          sentence: li.querySelector('.cl-sentence')?.textContent,
          next: li.querySelector('.cl-next')?.textContent ?? null,
          title: li.querySelector('.cl-paper-title')?.textContent,
          byline: li.querySelector('.cl-byline')?.textContent,
          authorsTitle: li.querySelector('.cl-byline')?.getAttribute('title'),
          label: li.getAttribute('aria-label'),
          tabindex: li.getAttribute('tabindex'),
          buttons: Array.from(li.querySelectorAll('button')).map((b) => b.getAttribute('aria-label')),
        })),
      );
      assert.equal(items.length, 25);
      assert.deepEqual(items[0], {
        id: 's1000',
        sim: '0.91',
        section: 'Introduction',
        prev: 'Before: This is the sentence before result 1.',
        sentence: SENTENCES[0],
        next: 'After: This is the sentence after result 1.',
        title: 'Low-Resource Machine Translation with Pretrained Language Models',
        byline: 'Lovelace · 2012 · ACL',
        authorsTitle: 'Ada Lovelace',
        label: `Result 1 of 25, similarity 0.91, Lovelace 2012: ${SENTENCES[0]}`,
        tabindex: '0',
        buttons: [
          'Copy sentence from Lovelace 2012',
          'Cite Lovelace 2012 at the cursor',
          'Open the source of Lovelace 2012',
          'Bookmark sentence from Lovelace 2012',
        ],
      });
      assert.equal(items[1].byline, 'Hopper & Turing · 2013 · EMNLP');
      assert.equal(items[2].byline, 'Turing et al. · 2014 · NAACL');
      assert.equal(items[3].byline, 'Liskov · 2015', 'no venue: omitted');
      assert.equal(items[3].prev, null, 'no previous sentence at a section start');
      assert.equal(items[4].next, null, 'no next sentence at a section end');
      assert.equal(items[5].section, null, 'no section title');
      assert.deepEqual(
        items.map((i) => i.sentence),
        SENTENCES,
      );
      assert.ok(
        items.slice(1).every((i) => i.tabindex === '-1'),
        'roving tabindex: one tab stop',
      );
      // The faded context is visibly fainter than the match.
      const [ctxOpacity, mainOpacity] = await p.page.evaluate(() => [
        getComputedStyle(document.querySelector('.cl-prev')!).opacity,
        getComputedStyle(document.querySelector('.cl-sentence')!).opacity,
      ]);
      assert.ok(Number(ctxOpacity) < Number(mainOpacity));
      const meta = await p.page.textContent('#cl-meta');
      assert.match(meta ?? '', /25 similar sentences/);
      assert.match(meta ?? '', /Sample corpus \(30 papers\)/);
      assert.match(meta ?? '', /offline \(hashed n-grams\)/);
      assert.match((await p.page.textContent('#cl-query')) ?? '', /Pretrained language models help machine translation/);
      assert.equal(await p.page.textContent('#cl-status'), '25 similar sentences.');
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('sliced render: results arrive in order, a newer state cancels the rest, reveal waits for its item', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      // One result per slice (a budget of 0 ms), as on a very slow machine.
      await p.page.evaluate(() => void ((window as unknown as { __corpusLensSliceMs: number }).__corpusLensSliceMs = 0));
      const hits = makeHits(25);
      await p.send(resultsMessage(hits));
      await p.send({ type: 'reveal', hitId: 's1020' });
      await p.page.waitForFunction(
        () =>
          (window as unknown as { corpusLens: { lastRender(): { slices: number } | undefined } }).corpusLens.lastRender()?.slices === 25,
      );
      assert.deepEqual(
        await p.page.$$eval('.cl-hit', (l) => l.map((x) => (x as HTMLElement).dataset.hitId)),
        hits.map((h) => h.id),
      );
      assert.equal(await activeHitId(p), 's1020', 'the revealed result is focused once built');

      // A newer state during a sliced render: nothing of the older one is appended afterwards.
      const newer = makeHits(3).map((h) => ({ ...h, id: `new-${h.id}` }));
      await p.page.evaluate(
        ([a, b]) => {
          window.postMessage(a, '*');
          window.postMessage(b, '*');
        },
        [resultsMessage(hits.map((h) => ({ ...h, id: `old-${h.id}` }))), resultsMessage(newer)] as const,
      );
      await p.page.waitForFunction(() => document.querySelectorAll('.cl-hit').length === 3);
      await p.page.waitForTimeout(100);
      assert.deepEqual(
        await p.page.$$eval('.cl-hit', (l) => l.map((x) => (x as HTMLElement).dataset.hitId)),
        newer.map((h) => h.id),
      );
      // Same for a non-results state.
      await p.send(resultsMessage(hits));
      await p.send({ type: 'state', state: { kind: 'notProse' } });
      await p.page.waitForTimeout(100);
      assert.equal(await p.page.locator('.cl-hit').count(), 0);
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('screen readers: named landmarks, switches, list, items, buttons and a live status', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await showResults(p, makeHits(25));
      const page = p.page;
      assert.equal(await page.getByRole('switch', { name: 'What authors write next' }).count(), 1);
      assert.equal(await page.getByRole('switch', { name: 'Highlight rare words' }).count(), 1);
      const list = page.getByRole('list', { name: 'Similar sentences' });
      assert.equal(await list.getByRole('listitem').count(), 25);
      assert.equal(
        await list.getByRole('listitem', { name: /^Result 3 of 25, similarity 0\.89, Turing et al\. 2014: Back-translation/ }).count(),
        1,
      );
      assert.equal(await list.getByRole('button', { name: /^Cite .* at the cursor$/ }).count(), 25);
      assert.equal(await page.getByRole('status').textContent(), '25 similar sentences.');
      // Context sentences are announced as such.
      assert.equal(await page.locator('.cl-hit').first().locator('.cl-prev .cl-sr-only').textContent(), 'Before: ');
      assert.equal(await page.getByRole('group', { name: 'View options' }).count(), 1);
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('recurring words are highlighted; the toggle switches to rare words, a setting of the view alone', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await showResults(p);
      const marks = () =>
        p.page.$$eval('#cl-results mark', (ms) =>
          ms.map((m) => ({
            term: (m as HTMLElement).dataset.term!,
            text: m.textContent!,
            cls: m.className,
            item: (m.closest('.cl-hit') as HTMLElement).dataset.hitId!,
            inSentence: !!m.closest('.cl-sentence'),
          })),
        );
      const recurring = await marks();
      assert.ok(recurring.length > 10, `many recurring marks (${recurring.length})`);
      // In how many result sentences a term (a stem, or two stems for a bigram) occurs.
      const sentencesWith = (term: string) =>
        SENTENCES.filter((s) => {
          const stems = tokenize(s).map((t) => t.stem);
          return stems.some((w, i) => w === term || `${w} ${stems[i + 1]}` === term);
        }).length;
      for (const term of new Set(recurring.map((m) => m.term))) {
        // A word or bigram recurs; a longer phrase is a run of recurring bigrams.
        const words = term.split(' ');
        const parts = words.length === 1 ? words : words.slice(1).map((w, i) => `${words[i]} ${w}`);
        for (const part of parts) assert.ok(sentencesWith(part) >= 2, `${part} (of ${term}) recurs`);
      }
      const texts = recurring.map((m) => m.text.toLowerCase());
      assert.ok(
        texts.some((t) => t.includes('language model')),
        'the bigram "language model" is marked',
      );
      assert.ok(texts.includes('translation quality'));
      for (const stop of ['the', 'and', 'with', 'a', 'of', 'on']) assert.ok(!texts.includes(stop), `stop word ${stop} not marked`);
      assert.ok(recurring.every((m) => m.inSentence && m.cls.includes('cl-mark-recurring')));

      await p.page.click('#cl-rare-toggle');
      await p.page.waitForFunction(() => document.body.dataset.highlight === 'rare');
      const rare = await marks();
      assert.ok(rare.length > 10);
      assert.ok(rare.every((m) => m.cls.includes('cl-mark-rare')));
      for (const term of new Set(rare.map((m) => m.term))) assert.equal(sentencesWith(term), 1, `${term} is in one result only`);
      const recurringTerms = new Set(recurring.map((m) => m.term));
      assert.ok(
        rare.every((m) => !recurringTerms.has(m.term)),
        'rare and recurring terms are disjoint',
      );
      assert.ok(!rare.some((m) => m.term === 'pretrain'), 'words of the query are never "rare"');
      assert.equal(await p.page.getAttribute('body', 'data-highlight'), 'rare');
      assert.equal(((await p.savedState()) as { highlight: string }).highlight, 'rare');
      // The text itself is unchanged by highlighting.
      assert.deepEqual(await p.page.$$eval('.cl-hit .cl-sentence', (s) => s.map((x) => x.textContent)), SENTENCES);

      await p.page.click('#cl-rare-toggle');
      await p.page.waitForFunction(() => document.body.dataset.highlight === 'recurring');
      assert.deepEqual(
        (await marks()).map((m) => m.term),
        recurring.map((m) => m.term),
      );
      // The host has no part in it: the view kept it in its own state and told the host nothing.
      assert.ok(!(await p.posted()).some((m) => !['ready'].includes(m.type)), JSON.stringify(await p.posted()));
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('"what authors write next" posts setOffset and offset-1 results are labelled', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await showResults(p);
      await p.page.click('#cl-offset-toggle');
      await waitPosted(p, (m) => m.type === 'setOffset' && m.offset === 1, 'setOffset 1');
      assert.equal(((await p.savedState()) as { offset: number }).offset, 1);
      await showResults(p, makeHits(5), 1);
      assert.equal(await p.page.locator('.cl-offset-tag').count(), 5);
      assert.match((await p.page.textContent('#cl-query')) ?? '', /What authors write after sentences like/);
      assert.match((await p.page.textContent('.cl-hit .cl-prev')) ?? '', /^Matched sentence: /);
      assert.match((await p.page.textContent('#cl-status')) ?? '', /showing what authors write next/);
      await p.page.click('#cl-offset-toggle');
      await waitPosted(p, (m) => m.type === 'setOffset' && m.offset === 0, 'setOffset 0');
      // A results state with an offset syncs the toggle (e.g. set from the hover's "open in panel").
      await showResults(p, makeHits(3), 1);
      assert.equal(
        await p.page.evaluate(() => (document.querySelector('#cl-offset-toggle') as HTMLElement & { checked: boolean }).checked),
        true,
      );
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('Copy, Cite, Open source and Bookmark post their message with the right hit id', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await showResults(p);
      await p.clearPosted();
      const item = p.page.locator('.cl-hit[data-hit-id="s1004"]');
      await item.getByRole('button', { name: /^Copy/ }).click();
      await item.getByRole('button', { name: /^Cite/ }).click();
      await item.getByRole('button', { name: /^Open the source/ }).click();
      await item.getByRole('button', { name: /^Bookmark/ }).click();
      assert.deepEqual(await p.posted(), [
        { type: 'copy', hitId: 's1004' },
        { type: 'cite', hitId: 's1004' },
        { type: 'openSource', hitId: 's1004' },
        { type: 'bookmark', hitId: 's1004' },
      ]);
      const bm = item.locator('[data-action="bookmark"]');
      assert.equal(await bm.getAttribute('aria-pressed'), 'true');
      assert.equal(await bm.textContent(), 'Bookmarked');
      assert.equal(await p.page.textContent('#cl-bookmarks-count'), '1');
      assert.equal(await p.page.textContent('#cl-bookmark-list .cl-sentence'), SENTENCES[4]);

      // The host's list is the truth: it replaces the optimistic one.
      const hits = makeHits(25);
      await p.send({
        type: 'bookmarks',
        list: [hits[4], hits[7]].map((h) => ({ id: h.id, sentence: h.sentence, paper: h.paper, addedAt: '2026-01-01T00:00:00Z' })),
      });
      await p.page.waitForFunction(() => document.querySelectorAll('#cl-bookmark-list > .cl-bookmark').length === 2);
      assert.equal(await p.page.locator('.cl-hit[data-hit-id="s1007"] [data-action="bookmark"]').getAttribute('aria-pressed'), 'true');

      await p.clearPosted();
      await p.page.click('#cl-bookmarks > summary');
      const saved = p.page.locator('#cl-bookmark-list > .cl-bookmark[data-hit-id="s1007"]');
      await saved.getByRole('button', { name: /^Copy/ }).click();
      await saved.getByRole('button', { name: /^Cite/ }).click();
      await saved.getByRole('button', { name: /^Open the source/ }).click();
      await saved.getByRole('button', { name: /^Remove bookmark/ }).click();
      assert.deepEqual(await p.posted(), [
        { type: 'copy', hitId: 's1007' },
        { type: 'cite', hitId: 's1007' },
        { type: 'openSource', hitId: 's1007' },
        { type: 'unbookmark', hitId: 's1007' },
      ]);
      assert.equal(await p.page.locator('#cl-bookmark-list > .cl-bookmark').count(), 1);
      assert.equal(await p.page.locator('.cl-hit[data-hit-id="s1007"] [data-action="bookmark"]').getAttribute('aria-pressed'), 'false');
      assert.equal(
        await p.page.evaluate(() => document.activeElement?.closest<HTMLElement>('.cl-bookmark')?.dataset.hitId),
        's1004',
        'focus moves to the remaining bookmark',
      );

      // Pressing Bookmark on a bookmarked result removes it.
      await p.clearPosted();
      await bm.click();
      assert.deepEqual(await p.posted(), [{ type: 'unbookmark', hitId: 's1004' }]);
      assert.match((await p.page.textContent('#cl-bookmark-list')) ?? '', /No bookmarks yet/);

      // Notices are announced (and shown briefly).
      await p.send({ type: 'notice', text: 'Cited as lovelace2012low' });
      await p.page.waitForFunction(() => document.querySelector('#cl-status')?.textContent === 'Cited as lovelace2012low');
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('keyboard: Tab reaches the results, arrows move between them, shortcuts and Enter/Space act', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      await showResults(p);
      await p.clearPosted();
      // Tab order: the tab strip (its selected tab, "Similar sentences"), its tab panel (vscode-tabs makes it a stop,
      // as the ARIA tabs pattern has it), the search box, the Filters disclosure, the two toggles, then the list (one
      // tab stop).
      await p.page.keyboard.press('Tab');
      assert.equal(
        await p.page.evaluate(() => document.activeElement?.tagName.toLowerCase() + ' ' + document.activeElement?.textContent),
        'vscode-tab-header Similar sentences',
      );
      await p.page.keyboard.press('Tab');
      assert.equal(await p.page.evaluate(() => document.activeElement?.getAttribute('role')), 'tabpanel');
      await p.page.keyboard.press('Tab');
      assert.equal(await p.page.evaluate(() => document.activeElement?.id), 'cl-search');
      await p.page.keyboard.press('Tab');
      assert.equal(await p.page.evaluate(() => document.activeElement?.id), 'cl-filters-toggle');
      await p.page.keyboard.press('Tab');
      assert.equal(await p.page.evaluate(() => document.activeElement?.id), 'cl-offset-toggle');
      await p.page.keyboard.press('Space');
      await waitPosted(p, (m) => m.type === 'setOffset' && m.offset === 1, 'setOffset from Space on the toggle');
      await p.page.keyboard.press('Tab');
      assert.equal(await p.page.evaluate(() => document.activeElement?.id), 'cl-rare-toggle');
      await p.page.keyboard.press('Tab');
      assert.equal(await activeHitId(p), 's1000');
      assert.equal(await p.page.evaluate(() => document.activeElement?.classList.contains('cl-hit')), true);

      await p.page.keyboard.press('ArrowDown');
      await p.page.keyboard.press('ArrowDown');
      assert.equal(await activeHitId(p), 's1002');
      await p.page.keyboard.press('ArrowUp');
      assert.equal(await activeHitId(p), 's1001');
      await p.page.keyboard.press('End');
      assert.equal(await activeHitId(p), 's1024');
      await p.page.keyboard.press('ArrowDown');
      assert.equal(await activeHitId(p), 's1024', 'stays on the last');
      await p.page.keyboard.press('Home');
      assert.equal(await activeHitId(p), 's1000');
      await p.page.keyboard.press('ArrowDown');
      // The focused result is the one tab stop (roving tabindex).
      assert.deepEqual(await p.page.$$eval('.cl-hit[tabindex="0"]', (l) => l.map((x) => (x as HTMLElement).dataset.hitId)), ['s1001']);

      await p.clearPosted();
      await p.page.keyboard.press('c');
      await p.page.keyboard.press('i');
      await p.page.keyboard.press('o');
      await p.page.keyboard.press('b');
      await p.page.keyboard.press('Enter');
      assert.deepEqual(await p.posted(), [
        { type: 'copy', hitId: 's1001' },
        { type: 'cite', hitId: 's1001' },
        { type: 'openSource', hitId: 's1001' },
        { type: 'bookmark', hitId: 's1001' },
        { type: 'copy', hitId: 's1001' },
      ]);

      // Tab into the result's buttons; Enter and Space press them; arrows move between them and between results.
      await p.clearPosted();
      await p.page.keyboard.press('Tab');
      assert.equal(await p.page.evaluate(() => document.activeElement?.getAttribute('data-action')), 'copy');
      await p.page.keyboard.press('Enter');
      await p.page.keyboard.press('ArrowRight');
      assert.equal(await p.page.evaluate(() => document.activeElement?.getAttribute('data-action')), 'cite');
      await p.page.keyboard.press('Space');
      await p.page.keyboard.press('ArrowLeft');
      await p.page.keyboard.press('ArrowLeft');
      assert.equal(await p.page.evaluate(() => document.activeElement?.getAttribute('data-action')), 'bookmark');
      await p.page.keyboard.press('Space');
      assert.deepEqual(await p.posted(), [
        { type: 'copy', hitId: 's1001' },
        { type: 'cite', hitId: 's1001' },
        { type: 'unbookmark', hitId: 's1001' },
      ]);
      await p.page.keyboard.press('ArrowDown');
      assert.equal(await activeHitId(p), 's1002');
      assert.equal(await p.page.evaluate(() => document.activeElement?.classList.contains('cl-hit')), true);

      // The host can reveal a hit (the hover's "open in panel").
      await p.send({ type: 'reveal', hitId: 's1017' });
      await p.page.waitForFunction(() => (document.activeElement as HTMLElement | null)?.dataset.hitId === 's1017');
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('every state has readable text and its buttons post the right message', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    try {
      const message = () => p.page.textContent('#cl-message').then((t) => t ?? '');
      const status = () => p.page.textContent('#cl-status').then((t) => t ?? '');
      const show = async (state: ViewState) => {
        await p.send({ type: 'state', state });
        await p.page.waitForFunction((k) => document.body.dataset.state === k, state.kind);
      };

      await showResults(p, makeHits(3));
      await show({ kind: 'searching', query: 'Adapters help multilingual translation.' });
      assert.match(await message(), /Searching for sentences like .*Adapters help multilingual translation\./);
      assert.equal(await status(), 'Searching…');
      assert.equal(await p.page.locator('#cl-message vscode-progress-ring').count(), 1);
      assert.equal(await p.page.getAttribute('#cl-results', 'aria-busy'), 'true', 'old results stay, marked busy');
      assert.equal(await p.page.locator('.cl-hit').count(), 3);

      await show({ kind: 'noResults', threshold: 0.5 });
      assert.match(await message(), /No sentences in the corpus are similar enough \(similarity at least 0\.50\)/);
      assert.equal(await p.page.locator('.cl-hit').count(), 0);
      assert.match(await status(), /No similar sentences above the threshold/);

      await show({ kind: 'notProse' });
      assert.match(await message(), /not in a prose sentence/);
      await show({ kind: 'notProse', reason: 'The cursor is in display math.' });
      assert.equal((await message()).trim(), 'The cursor is in display math.');

      await p.clearPosted();
      // First run: the message names the next actions, and each button runs one.
      await show({ kind: 'notConfigured' });
      assert.match(await message(), /No corpus yet\. Add papers .* open the sample corpus .* connect to a shared corpus/);
      await p.page.getByRole('button', { name: 'Add papers to the corpus' }).click();
      await p.page.getByRole('button', { name: 'Open the sample corpus' }).click();
      await p.page.getByRole('button', { name: 'Connect to a corpus' }).click();
      assert.deepEqual(await p.posted(), [
        { type: 'run', action: 'addPapers' },
        { type: 'run', action: 'openSample' },
        { type: 'run', action: 'connect' },
      ]);
      await show({ kind: 'notConfigured', reason: 'the corpus is empty' });
      assert.match(await message(), /^The corpus is empty\. Add papers/);

      // A failed switch: the error names the corpus tried and offers the way back first.
      await p.clearPosted();
      await show({ kind: 'error', message: 'connect ECONNREFUSED 127.0.0.1:9', corpus: '127.0.0.1:9/corpus', recover: 'sample' });
      assert.match(await message(), /Search in 127\.0\.0\.1:9\/corpus failed: connect ECONNREFUSED/);
      await p.page.getByRole('button', { name: 'Go back to sample' }).click();
      await p.page.getByRole('button', { name: 'Switch to another corpus' }).click();
      assert.deepEqual(await p.posted(), [{ type: 'recover' }, { type: 'run', action: 'connect' }]);

      await p.clearPosted();
      await show({
        kind: 'error',
        message: 'connect ECONNREFUSED 127.0.0.1:5432',
        detail: 'Error: connect ECONNREFUSED\n    at TCPConnectWrap',
      });
      assert.equal(await p.page.getAttribute('#cl-message', 'role'), 'alert');
      assert.match(await message(), /Search failed: connect ECONNREFUSED 127\.0\.0\.1:5432/);
      await p.page.click('#cl-message details > summary');
      assert.ok(await p.page.isVisible('#cl-message details pre'));
      assert.match((await p.page.textContent('#cl-message details pre')) ?? '', /at TCPConnectWrap/);
      await p.page.getByRole('button', { name: 'Try the search again' }).click();
      await p.page.getByRole('button', { name: 'Show the Corpus Lens log' }).click();
      assert.deepEqual(await p.posted(), [{ type: 'retry' }, { type: 'showLog' }]);

      // Keyboard: Enter on "Try again"; focus stays in the panel through searching and lands on the first result.
      await p.clearPosted();
      await p.page.focus('#cl-message vscode-button[data-action="retry"]');
      await p.page.keyboard.press('Enter');
      assert.deepEqual(await p.posted(), [{ type: 'retry' }]);
      await show({ kind: 'searching', query: 'again' });
      assert.equal(await p.page.evaluate(() => document.activeElement?.id), 'cl-message');
      await showResults(p, makeHits(4));
      assert.equal(await activeHitId(p), 's1000');

      await show({ kind: 'idle' });
      assert.match(await message(), /Place the cursor in a sentence/);
      assert.equal(await p.page.getAttribute('#cl-message', 'role'), null);

      // Unknown or malformed messages are ignored.
      await p.page.evaluate(() => {
        window.postMessage({ type: 'state', state: { kind: 'bogus' } }, '*');
        window.postMessage('hello', '*');
        window.postMessage(null, '*');
      });
      await p.page.waitForTimeout(50);
      assert.equal(await p.page.getAttribute('body', 'data-state'), 'idle');
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  test('XSS: corpus text with HTML renders as characters, runs nothing, loads nothing', async () => {
    const p = await openPanel(chrome.browser, chrome.server);
    const requests: string[] = [];
    p.page.on('request', (r) => requests.push(r.url()));
    try {
      const evil = '<img src=x onerror=alert(1)>';
      const script = '<script>window.__xss = 1</script>';
      const hits: HitView[] = [
        {
          id: 'evil-1',
          similarity: 0.99,
          sentence: { text: evil, sectionTitle: `<b onmouseover=alert(2)>Intro</b>` },
          previous: { text: script },
          next: { text: '<iframe src="javascript:alert(3)"></iframe>' },
          paper: {
            id: 'p',
            title: `<svg onload=alert(4)>`,
            authors: ['<img src=y onerror=alert(5)>', 'Eve'],
            year: 2024,
            venue: '<style>body{display:none}</style>',
            doi: null,
          },
        },
        { ...makeHits(1)[0], id: 'evil-2', sentence: { text: `${evil} and ${evil}`, sectionTitle: null } },
      ];
      await p.send({
        type: 'state',
        state: {
          kind: 'results',
          query: { clean: evil, section: '<img src=z onerror=alert(6)>' },
          hits,
          offset: 0,
          corpusName: '<img src=c onerror=alert(7)>',
          embedder: '<u>e</u>',
        },
      });
      await p.page.waitForSelector('.cl-hit[data-hit-id="evil-2"]');
      assert.equal(await p.page.textContent('.cl-hit[data-hit-id="evil-1"] .cl-sentence'), evil);
      assert.equal(await p.page.textContent('.cl-hit[data-hit-id="evil-1"] .cl-prev'), `Before: ${script}`);
      assert.equal(await p.page.textContent('.cl-hit[data-hit-id="evil-1"] .cl-paper-title'), '<svg onload=alert(4)>');
      assert.equal(await p.page.textContent('.cl-hit[data-hit-id="evil-2"] .cl-sentence'), `${evil} and ${evil}`);
      assert.match((await p.page.textContent('#cl-meta')) ?? '', /<img src=c onerror=alert\(7\)>/);
      // Highlighting splits the text into marks without turning it into markup.
      assert.ok((await p.page.locator('.cl-hit[data-hit-id="evil-2"] mark').count()) > 0);
      await p.send({ type: 'state', state: { kind: 'error', message: evil, detail: script } });
      await p.page.waitForFunction(() => document.body.dataset.state === 'error');
      assert.match((await p.page.textContent('#cl-message')) ?? '', /Search failed: <img src=x onerror=alert\(1\)>/);
      await p.send({ type: 'bookmarks', list: [{ id: 'evil-1', sentence: hits[0].sentence, paper: hits[0].paper }] });
      await p.send({ type: 'notice', text: evil });
      await p.page.waitForTimeout(100);

      const dom = await p.page.evaluate(() => ({
        img: document.querySelectorAll('img, svg:not(vscode-checkbox *), iframe, script:not([src]), style, b, u').length,
        xss: (window as unknown as { __xss?: number }).__xss,
        bodyVisible: getComputedStyle(document.body).display !== 'none',
      }));
      assert.deepEqual(dom, { img: 0, xss: undefined, bodyVisible: true });
      assert.deepEqual(p.dialogs, [], 'no alert dialog');
      assert.deepEqual(await p.violations(), [], 'no CSP violation (nothing even tried to load)');
      assert.ok(!requests.some((u) => /\/(x|y|z|c)$/.test(u)), `no image request: ${requests.join(', ')}`);
      assert.deepEqual(p.pageErrors, []);
    } finally {
      await p.close();
    }
  });

  test('setState: a reloaded view restores its toggles and last results at once', async () => {
    const hits = makeHits(25);
    const last = (resultsMessage(hits) as Extract<HostMessage, { type: 'state' }>).state;
    const p = await openPanel(chrome.browser, chrome.server, { initialState: { v: 1, highlight: 'rare', offset: 0, last } });
    try {
      assert.equal(await p.page.locator('#cl-results > .cl-hit').count(), 25);
      assert.equal(
        await p.page.evaluate(() => (document.querySelector('#cl-rare-toggle') as HTMLElement & { checked: boolean }).checked),
        true,
      );
      assert.ok((await p.page.locator('mark.cl-mark-rare').count()) > 0);
      // A `searching` state is not what a reload restores: the last results are.
      await p.send({ type: 'state', state: { kind: 'searching', query: 'x' } });
      await p.page.waitForFunction(() => document.body.dataset.state === 'searching');
      const saved = (await p.savedState()) as { v: number; highlight: string; last: { kind: string } };
      assert.equal(saved.v, 1);
      assert.equal(saved.highlight, 'rare');
      assert.equal(saved.last.kind, 'results');
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });

  for (const theme of ['light', 'dark', 'high-contrast'] as ThemeName[]) {
    test(`screenshot: ${theme} theme`, async () => {
      const p = await openPanel(chrome.browser, chrome.server, { theme, width: 400, height: 960 });
      try {
        const hits = makeHits(25);
        await p.send({ type: 'bookmarks', list: [{ id: hits[1].id, sentence: hits[1].sentence, paper: hits[1].paper }] });
        await showResults(p, hits);
        await p.page.keyboard.press('Tab');
        await p.page.keyboard.press('Tab');
        await p.page.keyboard.press('Tab');
        await p.page.keyboard.press('ArrowDown'); // focus ring on the second result
        await p.page.waitForTimeout(50);
        const colors = await p.page.evaluate(() => ({
          bg: getComputedStyle(document.body).backgroundColor,
          fg: getComputedStyle(document.body).color,
          cls: document.body.className,
        }));
        const expected = { light: 'rgb(248, 248, 248)', dark: 'rgb(24, 24, 24)', 'high-contrast': 'rgb(0, 0, 0)' }[theme];
        assert.equal(colors.bg, expected);
        assert.notEqual(colors.fg, colors.bg);
        const path = chrome.artifact(`webview-${theme}.png`);
        await p.page.screenshot({ path });
        assert.ok(existsSync(path));
        if (theme === 'dark') {
          await p.page.click('#cl-rare-toggle');
          await p.page.waitForSelector('mark.cl-mark-rare');
          await p.page.screenshot({ path: chrome.artifact('webview-dark-rare.png') });
          await p.send({
            type: 'state',
            state: {
              kind: 'error',
              message: 'could not reach the corpus at localhost:5432 (ECONNREFUSED)',
              detail: 'Error: connect ECONNREFUSED 127.0.0.1:5432',
            },
          });
          await p.page.waitForFunction(() => document.body.dataset.state === 'error');
          await p.page.screenshot({ path: chrome.artifact('webview-dark-error.png'), clip: { x: 0, y: 0, width: 400, height: 320 } });
        }
        await cleanPage(p);
      } finally {
        await p.close();
      }
    });
  }
});
