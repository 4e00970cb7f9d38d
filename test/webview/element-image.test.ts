// Element images on the Ask tab's cards, in headless Chromium (the panel's real CSP, dist/webview.js and the crop script
// dist/pdf-crop.js with PDF.js): a PDF typeset with pdflatex holds a figure drawn as a black bar 6 cm × 2 cm; the
// indexing reader stores its page and region; the card asks the host for the PDF, draws the region, and shows it. The
// crop is checked by its pixels: the bar is in it, at its true size and 3:1 shape, and the image has the region's
// shape. A card without a region (a LaTeX source's) stays text; one whose PDF is not on this machine says so.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPaperFile, type ParsedPaper } from '../../src/core/ingest/index.js';
import type { AskElementView, AskView, ViewMessage } from '../../webview/protocol.js';
import { chromiumFixture, noChromium } from '../support/chromium.js';
import { compilePdf, noPdflatex } from '../support/pdflatex.js';
import { cleanPage, ensureCropBundle, openPanel, startPanelServer, waitPosted } from '../support/webview-page.js';

const KEY = '0123456789abcdef0123456789abcdef';
const PROSE =
  'Element cards show the region of the page where a figure is drawn, so a reader sees the figure beside the answer. ' +
  'This paragraph is prose set in the full width of the column, long enough to fill several lines of it.';

let dir: string;
let bytes: Uint8Array;
let figure: NonNullable<ParsedPaper['elements']>[number];

function view(elements: AskElementView[]): AskView {
  return {
    turns: [
      {
        index: 0,
        question: 'What does the bar show?',
        standalone: 'What does the bar show?',
        kind: 'extract',
        text: '',
        sentences: [{ text: 'A black bar.', citations: [] }],
        citations: [],
        removed: 0,
        model: null,
        filters: null,
        cost: null,
        elements,
      },
    ],
    sources: [],
  };
}

const card = (over: Partial<AskElementView>): AskElementView => ({
  type: 'figure',
  label: 'Figure 1',
  caption: 'A black bar three times as wide as it is tall.',
  content: null,
  title: 'Drawn Regions',
  year: 2021,
  section: 'Introduction',
  page: 1,
  match: 'direct',
  source: null,
  description: null,
  ...over,
});

describe('element images on the Ask tab in headless Chromium', { skip: noChromium || noPdflatex }, () => {
  const chrome = chromiumFixture(startPanelServer, ensureCropBundle);
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'corpus-lens-crop-'));
    assert.ok(
      compilePdf(dir, {
        name: 'bar',
        lines: [
          '\\documentclass{article}',
          '\\begin{document}',
          '\\section{Introduction}',
          `${PROSE} ${PROSE}`,
          '',
          `${PROSE} ${PROSE}`,
          '\\begin{figure}[h]\\centering\\rule{6cm}{2cm}\\caption{A black bar three times as wide as it is tall.}\\end{figure}',
          `${PROSE} ${PROSE}`,
          '\\end{document}',
        ],
      }),
    );
    const pdf = join(dir, 'bar.pdf');
    bytes = new Uint8Array(readFileSync(pdf));
    const read = await readPaperFile(pdf);
    figure = read.papers[0].elements!.find((e) => e.type === 'figure')!;
    assert.ok(figure?.bbox && figure.page === 1, 'the reader stored the figure with its page and region');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a PDF element card draws its region (the bar, at its size and shape) beside Open source; a LaTeX card stays text', async () => {
    const p = await openPanel(chrome.browser, chrome.server, { width: 420 });
    try {
      await p.send({ type: 'askFocus' });
      await p.send({ type: 'ask', ask: view([card({ type: 'table', label: 'Table 1', caption: 'From a .tex source', image: null })]) });
      await p.page.waitForSelector('.cl-ask-element');
      assert.equal(await p.page.locator('.cl-ask-element img, .cl-ask-element-note').count(), 0, 'a card without a region is text only');
      assert.equal(
        await p.page.evaluate(() => document.querySelectorAll('script[src*="pdf-crop"]').length),
        0,
        'PDF.js is not loaded for a text card',
      );

      await p.send({
        type: 'ask',
        ask: view([
          card({ image: { kind: 'pdf', key: KEY } }),
          card({ label: 'Figure 2', image: { kind: 'missing' } }),
          card({ type: 'equation', label: 'Equation (1)', caption: null, content: 'E = mc^2', image: null }),
        ]),
      });
      await waitPosted(p, (m) => m.type === 'askCrop' && m.key === KEY, 'askCrop for the figure');
      assert.equal(await p.page.textContent('.cl-ask-crop-pending'), 'Drawing its region of the page…');
      // The host's answer: the PDF's bytes (a typed array, as VS Code's postMessage carries them), page and region.
      await p.page.evaluate(
        ({ key, data, page, bbox }) =>
          window.postMessage({ type: 'askCropData', key, docId: 'bar', data: new Uint8Array(data), page, bbox }, '*'),
        { key: KEY, data: Array.from(bytes), page: figure.page!, bbox: figure.bbox! },
      );
      const img = await p.page.waitForSelector('.cl-ask-element img.cl-ask-element-image[data-drawn]', { timeout: 20_000 });
      const done = (await waitPosted(p, (m) => m.type === 'askCropDone', 'the drawn crop')) as Extract<
        ViewMessage,
        { type: 'askCropDone' }
      >;
      assert.equal(done.key, KEY);
      assert.match(done.png ?? '', /^data:image\/png;base64,/, 'the drawing goes back to the host for its cache');
      assert.equal(await img.getAttribute('alt'), 'Figure 1: its region of the page');
      // The image follows Open source in the same card.
      assert.equal(
        await p.page.evaluate(() => document.querySelector('.cl-ask-element img')?.previousElementSibling?.getAttribute('data-ask-action')),
        'open-element',
      );

      // Its pixels: rows holding a dark run longer than 100 pt are the bar's (caption glyphs are far shorter).
      const px = await p.page.evaluate(async () => {
        const im = document.querySelector<HTMLImageElement>('.cl-ask-element img')!;
        await im.decode();
        const c = document.createElement('canvas');
        c.width = im.naturalWidth;
        c.height = im.naturalHeight;
        const ctx = c.getContext('2d')!;
        ctx.drawImage(im, 0, 0);
        const { data } = ctx.getImageData(0, 0, c.width, c.height);
        let dark = 0;
        let barRows = 0;
        let barWidth = 0;
        for (let y = 0; y < c.height; y++) {
          let run = 0;
          let best = 0;
          for (let x = 0; x < c.width; x++) {
            const i = (y * c.width + x) * 4;
            const isDark = data[i] + data[i + 1] + data[i + 2] < 150;
            if (isDark) dark++;
            run = isDark ? run + 1 : 0;
            best = Math.max(best, run);
          }
          if (best > c.width / 4) {
            barRows++;
            barWidth = Math.max(barWidth, best);
          }
        }
        return { width: c.width, height: c.height, dark: dark / (c.width * c.height), barRows, barWidth };
      });
      const [x0, y0, x1, y1] = figure.bbox!;
      const margin = 1; // webview/pdf/crop.ts's MARGIN, in points
      const scale = px.width / (x1 - x0 + 2 * margin);
      assert.ok(
        Math.abs(px.width / px.height - (x1 - x0 + 2 * margin) / (y1 - y0 + 2 * margin)) < 0.03,
        `the image has the stored region's shape: ${px.width}×${px.height} for ${JSON.stringify(figure.bbox)}`,
      );
      const cm = 72 / 2.54;
      assert.ok(Math.abs(px.barWidth / scale - 6 * cm) < 3, `the bar is 6 cm wide in the crop: ${(px.barWidth / scale).toFixed(1)} pt`);
      assert.ok(Math.abs(px.barRows / scale - 2 * cm) < 3, `and 2 cm tall: ${(px.barRows / scale).toFixed(1)} pt`);
      assert.ok(px.dark > 0.1 && px.dark < 0.6, `not blank, not all ink: ${px.dark.toFixed(2)} of the pixels are dark`);

      assert.equal(
        await p.page.textContent('.cl-ask-element:nth-child(2) .cl-ask-element-note'),
        'No image: the PDF is not on this machine.',
      );
      assert.equal(await p.page.locator('.cl-ask-element:nth-child(3) img, .cl-ask-element:nth-child(3) .cl-ask-element-note').count(), 0);
      await p.page.screenshot({ path: chrome.artifact('webview-ask-element-image.png'), fullPage: true });

      // The next view of the conversation (another answer) shows the cached PNG without asking again; a refused
      // request leaves a note and the text card.
      await p.clearPosted();
      await p.send({
        type: 'ask',
        ask: view([
          card({ image: { kind: 'png', src: done.png! } }),
          card({ label: 'Figure 3', image: { kind: 'pdf', key: KEY.replace('0', 'f') } }),
        ]),
      });
      await waitPosted(p, (m) => m.type === 'askCrop', 'askCrop for the new figure');
      await p.send({ type: 'askCropFailed', key: KEY.replace('0', 'f'), message: 'the PDF cannot be read on this machine any more' });
      await p.page.waitForSelector('.cl-ask-element:nth-child(2) .cl-ask-element-note');
      assert.equal(
        await p.page.textContent('.cl-ask-element:nth-child(2) .cl-ask-element-note'),
        'No image: the PDF cannot be read on this machine any more',
      );
      assert.equal(await p.page.locator('.cl-ask-element:nth-child(1) img[data-drawn]').count(), 1);
      assert.deepEqual(
        (await p.posted()).filter((m) => m.type === 'askCrop').map((m) => (m as { key: string }).key),
        [KEY.replace('0', 'f')],
        'the cached figure was not asked for',
      );
      await cleanPage(p);
    } finally {
      await p.close();
    }
  });
});
