// The PDF viewer in headless Chromium: the real bundle (dist/pdf-view.js with PDF.js, its worker started from a blob:
// copy across origins as in VS Code), the CSP of pdfHtml, a PDF compiled from test/fixtures/ingest/onecol.tex, and
// the sentences and elements the indexing reader stores for it. The highlight is checked against the page's text
// runs as PDF.js gives them to the test (in node, not the viewer): it must cover the runs of the sentence and no run
// of the sentences around it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDocumentProxy } from 'unpdf';
import { readPaperFile } from '../../src/core/ingest/index.js';
import type { ParsedPaper } from '../../src/core/ingest/index.js';
import type { PdfViewMessage } from '../../webview/pdf/protocol.js';
import { compileFixture, noPdflatex } from '../support/pdflatex.js';
import { openPdfViewer, startPdfServer, waitShown, type PdfPage } from '../support/pdf-view-page.js';
import { chromiumFixture, noChromium } from '../support/chromium.js';
import { ROOT } from '../support/webview-page.js';

const skip = noPdflatex || noChromium;

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

interface Box {
  str: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

let dir: string;
let bytes: Uint8Array;
let paper: ParsedPaper;
/** Each page's text runs with their boxes in points from the page's top-left (as ingest stores boxes). */
const runs = new Map<number, Box[]>();

/** The sentence the reader stored that starts with `prefix`. */
function sentence(prefix: string) {
  const s = paper.sentences.find((x) => x.text.startsWith(prefix));
  assert.ok(s, `the reader stored a sentence starting "${prefix}"`);
  return s;
}

/** The highlight rectangles the view drew on its page, in points from the page's top-left. */
async function marks(p: PdfPage): Promise<Box[]> {
  return p.page.evaluate(() => {
    const page = document.getElementById('pdf-page-view')!;
    const scale = Number(page.dataset.scale);
    const origin = page.getBoundingClientRect();
    return Array.from(document.querySelectorAll<HTMLElement>('.pdf-mark')).map((m) => {
      const r = m.getBoundingClientRect();
      return {
        str: m.className,
        x0: (r.left - origin.left) / scale,
        y0: (r.top - origin.top) / scale,
        x1: (r.right - origin.left) / scale,
        y1: (r.bottom - origin.top) / scale,
      };
    });
  });
}

const overlaps = (a: Box, b: Box) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0.5 && Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0.5;
const covered = (run: Box, rects: Box[]) => rects.some((r) => overlaps(run, r));
const runWith = (page: number, text: string) => {
  const r = runs.get(page)!.find((b) => b.str.includes(text));
  assert.ok(r, `page ${page} has a text run with "${text}"`);
  return r;
};

describe('the PDF viewer in headless Chromium', { skip }, () => {
  const chrome = chromiumFixture(startPdfServer);
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'corpus-lens-pdfview-'));
    const pdf = compileFixture('onecol', dir);
    bytes = new Uint8Array(readFileSync(pdf));
    const read = await readPaperFile(pdf);
    paper = read.papers[0];
    const doc = await getDocumentProxy(new Uint8Array(bytes));
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      const top = page.view[3];
      const tc = await page.getTextContent();
      runs.set(
        p,
        tc.items.flatMap((i) =>
          'str' in i && i.str.trim()
            ? [
                {
                  str: i.str,
                  x0: i.transform[4],
                  x1: i.transform[4] + i.width,
                  y0: top - i.transform[5] - i.height * 0.7,
                  y1: top - i.transform[5],
                },
              ]
            : [],
        ),
      );
    }
    await doc.loadingTask.destroy();
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the bundles evaluate no code (the CSP has no unsafe-eval) and load nothing remote', () => {
    for (const f of ['dist/pdf-view.js', 'dist/pdf-crop.js', 'dist/pdf.worker.mjs']) {
      const code = readFileSync(join(ROOT, f), 'utf8');
      assert.doesNotMatch(code, /\beval\(|\bnew Function\(/, `${f} has no eval( or new Function(`);
      assert.doesNotMatch(code, /import\(\s*["'`]https?:/, `${f} imports nothing remote`);
    }
  });

  test('a sentence opens on its stored page, highlighted over its own text runs only, scrolled into view', async () => {
    const p = await openPdfViewer(chrome.browser, chrome.server);
    try {
      const s = sentence('Observation 45 ');
      assert.equal(s.page, 3);
      await p.send({
        type: 'open',
        name: 'onecol.pdf',
        docId: 'd1',
        data: bytes,
        page: s.page!,
        target: { kind: 'sentence', text: s.text },
      });
      const shown = await waitShown(p, 0);
      assert.deepEqual(
        { type: shown.type, page: (shown as { page: number }).page, found: (shown as { found: boolean }).found },
        { type: 'shown', page: 3, found: true },
      );
      assert.equal(await p.page.getAttribute('#pdf-page-view', 'data-page'), '3');
      assert.match((await p.page.textContent('#pdf-status'))!, /^Page 3 of 4\. The sentence is highlighted\.$/);
      const rects = await marks(p);
      assert.ok(rects.length >= 2 && rects.length <= 4, `one rectangle per line the sentence is on: ${rects.length}`);
      assert.ok(covered(runWith(3, 'Observation 45'), rects), 'the line where it starts is highlighted');
      assert.ok(covered(runWith(3, 'ments the incomprehensibility'), rects), 'and the line where it ends');
      // Its neighbours' own lines are not.
      for (const other of ['44 notes that', 'Observation 46', 'Observation 43'])
        assert.ok(!covered(runWith(3, other), rects), `"${other}…" is not highlighted`);
      // On the line it shares with the sentence before, only its part is. Where a character sits inside a run is
      // estimated (the view measures in a generic serif, the test counts characters): three characters' leeway.
      const shared = runWith(3, 'Observation 45');
      const char = (shared.x1 - shared.x0) / shared.str.length;
      const at45 = shared.x0 + char * shared.str.indexOf('Observation 45');
      assert.ok(
        rects.filter((r) => overlaps(r, shared)).every((r) => Math.abs(r.x0 - at45) < 3 * char),
        `the sentence before on the same line is left out: ${JSON.stringify(rects)} vs ${at45}`,
      );
      const inView = await p.page.evaluate(() => {
        const m = document.querySelector('.pdf-mark')!.getBoundingClientRect();
        const v = document.getElementById('pdf-scroller')!.getBoundingClientRect();
        return m.top >= v.top && m.bottom <= v.bottom;
      });
      assert.ok(inView, 'the highlight is scrolled into view');
      await p.page.screenshot({ path: chrome.artifact('webview-pdf-sentence.png') });
      assert.deepEqual(await p.violations(), []);
      assert.deepEqual(p.pageErrors, []);
    } finally {
      await p.close();
    }
  });

  test("the view resized while it opens (a panel comes and goes) still opens at the sentence's page, highlighted", async () => {
    const p = await openPdfViewer(chrome.browser, chrome.server);
    const cdp = await p.page.context().newCDPSession(p.page);
    try {
      const s = sentence('Observation 45 ');
      // A slow machine: the search of the page's text takes long enough for a resize to land in the middle of it.
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 8 });
      await p.send({
        type: 'open',
        name: 'onecol.pdf',
        docId: 'd1',
        data: bytes,
        page: s.page!,
        target: { kind: 'sentence', text: s.text },
      });
      for (let i = 0; i < 12; i++) {
        await p.page.setViewportSize({ width: 900 - (i % 2) * 120, height: 800 });
        await new Promise((r) => setTimeout(r, 200));
      }
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await waitShown(p, 0);
      await new Promise((r) => setTimeout(r, 1_000));
      const shown = (await p.posted()).filter((m) => m.type === 'shown').at(-1) as Extract<PdfViewMessage, { type: 'shown' }>;
      assert.equal(shown.page, 3, `the view stays at the sentence's page: ${shown.message}`);
      assert.ok(shown.highlights >= 1, shown.message);
      assert.equal(await p.page.getAttribute('#pdf-page-view', 'data-page'), '3');
      assert.match((await p.page.textContent('#pdf-status'))!, /^Page 3 of 4\. The sentence is highlighted\.$/);
    } finally {
      await cdp.detach().catch(() => undefined);
      await p.close();
    }
  });

  test('a sentence over a page break (hyphenated, a running header between) is highlighted on both pages', async () => {
    const p = await openPdfViewer(chrome.browser, chrome.server);
    try {
      const s = sentence('Observation 36 ');
      assert.equal(s.page, 2);
      await p.send({ type: 'open', name: 'onecol.pdf', docId: 'd1', data: bytes, page: 2, target: { kind: 'sentence', text: s.text } });
      assert.equal(((await waitShown(p, 0)) as { found: boolean }).found, true);
      assert.match((await p.page.textContent('#pdf-status'))!, /continues on page 3/);
      const here = await marks(p);
      assert.ok(covered(runWith(2, 'servation 36'), here), 'its start at the foot of page 2');
      assert.ok(
        !covered(runWith(2, 'Observation 35'), here) || runWith(2, 'Observation 35').str.includes('Ob-'),
        'not the sentence before',
      );
      await p.page.click('#pdf-next');
      await waitShown(p, 1);
      const there = await marks(p);
      assert.ok(
        covered(runWith(3, 'the counterrevolutionary in considerable detail. Observation 37'), there),
        'its end at the top of page 3',
      );
      assert.ok(!covered(runWith(3, 'Running Header'), there), 'the running header between is not');
      assert.ok(!covered(runWith(3, 'archive extends'), there), 'nor the next sentence');
      assert.match((await p.page.textContent('#pdf-status'))!, /^Page 3 of 4\. The sentence continues here\.$/);
      assert.deepEqual(await p.violations(), []);
    } finally {
      await p.close();
    }
  });

  test('an element opens on its page with its stored box outlined; without a page a sentence is searched for', async () => {
    const p = await openPdfViewer(chrome.browser, chrome.server);
    try {
      const figure = paper.elements!.find((e) => e.type === 'figure')!;
      assert.equal(figure.page, 2);
      await p.send({
        type: 'open',
        name: 'onecol.pdf',
        docId: 'd1',
        data: bytes,
        page: figure.page,
        target: { kind: 'box', bbox: figure.bbox!, label: figure.label },
      });
      await waitShown(p, 0);
      const [box, ...more] = await marks(p);
      assert.equal(more.length, 0);
      const [x0, y0, x1, y1] = figure.bbox!;
      for (const [got, want] of [
        [box.x0, x0],
        [box.y0, y0],
        [box.x1, x1],
        [box.y1, y1],
      ])
        assert.ok(Math.abs(got - want) < 1.5, `the outline is the stored box: ${JSON.stringify(box)} vs ${figure.bbox}`);
      assert.ok(covered(runWith(2, 'A caption that describes'), [box]), 'it covers the caption the box was made from');
      assert.match((await p.page.textContent('#pdf-status'))!, /^Page 2 of 4\. Figure 1 is outlined\.$/);
      await p.page.screenshot({ path: chrome.artifact('webview-pdf-element.png') });
      // The same document again (no bytes): the view keeps it, and finds a sentence whose page is not known.
      const s = sentence('Observation 64 ');
      await p.send({ type: 'open', name: 'onecol.pdf', docId: 'd1', page: null, target: { kind: 'sentence', text: s.text } });
      const shown = await waitShown(p, 1);
      assert.equal((shown as { page: number }).page, 4);
      assert.ok(covered(runWith(4, '64 notes'), await marks(p)));
      assert.ok(!(await p.posted()).some((m) => m.type === 'need'), 'the bytes were not asked for again');
      assert.deepEqual(await p.violations(), []);
    } finally {
      await p.close();
    }
  });

  test('text not on the page: the page opens with a note, no highlight; another document not held is asked for', async () => {
    const p = await openPdfViewer(chrome.browser, chrome.server);
    try {
      await p.send({
        type: 'open',
        name: 'onecol.pdf',
        docId: 'd1',
        data: bytes,
        page: 2,
        target: { kind: 'sentence', text: 'A sentence this paper never wrote about quantum gravity and cheese.' },
      });
      const shown = await waitShown(p, 0);
      assert.equal((shown as { page: number }).page, 2);
      assert.equal((shown as { found: boolean }).found, false);
      assert.equal((await marks(p)).length, 0);
      assert.equal(
        await p.page.textContent('#pdf-status'),
        'Page 2 of 4. The sentence was not found in the text of page 2; the page is shown as it is.',
      );
      await p.page.keyboard.press('PageDown');
      assert.equal(((await waitShown(p, 1)) as { page: number }).page, 3, 'Page Down turns the page');
      await p.page.keyboard.press('ArrowLeft');
      assert.equal(((await waitShown(p, 2)) as { page: number }).page, 2, 'and the left arrow back, while the page fits the width');
      await p.send({ type: 'open', name: 'other.pdf', docId: 'd2', page: 1, target: null });
      await p.page.waitForFunction(() =>
        (window as unknown as { __posted: Array<{ type: string; docId?: string }> }).__posted.some(
          (m) => m.type === 'need' && m.docId === 'd2',
        ),
      );
      assert.deepEqual(p.dialogs, []);
    } finally {
      await p.close();
    }
  });

  test('a hostile file name and sentence stay text; a broken PDF says so in the view; zoom and navigation work; no CSP violation', async () => {
    const p = await openPdfViewer(chrome.browser, chrome.server);
    try {
      const name = `${HOSTILE}.pdf`;
      await p.send({ type: 'open', name, docId: 'h', data: bytes, page: 1, target: { kind: 'sentence', text: HOSTILE } });
      await waitShown(p, 0);
      assert.equal(await p.page.textContent('#pdf-name'), name);
      assert.equal(await p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
      assert.equal(await p.page.locator('#pdf-root img, #pdf-root script').count(), 0);
      const before = Number(await p.page.getAttribute('#pdf-page-view', 'data-scale'));
      await p.page.click('#pdf-zoom-in');
      await waitShown(p, 1);
      assert.ok(Math.abs(Number(await p.page.getAttribute('#pdf-page-view', 'data-scale')) / before - 1.25) < 0.01, 'zoom in is ×1.25');
      assert.equal(await p.page.getAttribute('#pdf-fit', 'aria-pressed'), 'false');
      await p.page.fill('#pdf-page', '4');
      await p.page.press('#pdf-page', 'Enter');
      assert.equal(((await waitShown(p, 2)) as { page: number }).page, 4);
      assert.equal(await p.page.isDisabled('#pdf-next'), true);
      await p.send({
        type: 'open',
        name: 'broken.pdf',
        docId: 'b',
        data: new TextEncoder().encode('%PDF-1.4 this is not a PDF'),
        page: 1,
        target: null,
      });
      const failed = await waitShown(p, 3);
      assert.equal(failed.type, 'failed');
      assert.match((await p.page.textContent('#pdf-status'))!, /^Could not read broken\.pdf: /);
      assert.deepEqual(await p.violations(), []);
      assert.deepEqual(p.pageErrors, []);
      assert.deepEqual(p.dialogs, []);
    } finally {
      await p.close();
    }
  });
});
