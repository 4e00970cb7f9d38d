// The host ↔ webview protocol guards and the panel's HTML/CSP (no browser needed).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { panelCsp, panelHtml } from '../../src/extension/panel/panel-html.js';
import type { AskElement, AskSource } from '../../src/core/ask/types.js';
import {
  MAX_QUESTION_LENGTH,
  isHostMessage,
  isViewMessage,
  type AskElementView,
  type AskSourceView,
  type AskTurnView,
  type HostMessage,
  type ViewMessage,
} from '../../webview/protocol.js';

const askSource: AskSourceView = {
  n: 1,
  paperId: 'p',
  citationKey: 'k',
  title: 'T',
  authors: ['A B'],
  year: 2020,
  section: null,
  page: 3,
  lineStart: 7,
  lineEnd: 8,
  pageEnd: 3,
  text: 's',
  previous: null,
  next: 'n',
};
const askTurn: AskTurnView = {
  index: 0,
  question: 'q',
  standalone: 'q',
  kind: 'answer',
  text: 't [1]',
  sentences: [{ text: 't [1]', citations: [1] }],
  citations: [1],
  removed: 0,
  model: 'm',
  elements: [],
  filters: null,
  cost: null,
};
const askElement: AskElementView = {
  type: 'table',
  label: 'Table 1',
  caption: 'c',
  content: null,
  title: 'T',
  year: 2020,
  section: null,
  page: 3,
  match: 'linked',
  source: 1,
  description: null,
};

describe('protocol guards', () => {
  test('host messages', () => {
    const ok: HostMessage[] = [
      { type: 'state', state: { kind: 'idle' } },
      { type: 'state', state: { kind: 'searching', query: 'q' } },
      { type: 'state', state: { kind: 'noResults', threshold: 0.5 } },
      { type: 'state', state: { kind: 'notProse' } },
      { type: 'state', state: { kind: 'notConfigured' } },
      { type: 'state', state: { kind: 'error', message: 'm' } },
      {
        type: 'state',
        state: { kind: 'results', query: { clean: 'q', section: null }, hits: [], offset: 0, corpusName: 'c', embedder: 'e' },
      },
      { type: 'bookmarks', list: [] },
      { type: 'settings', settings: { offset: 1 } },
      { type: 'notice', text: 'Copied' },
      { type: 'reveal', hitId: 's1' },
      { type: 'ask', ask: { turns: [], sources: [] } },
      { type: 'ask', ask: { turns: [askTurn], sources: [askSource] } },
      {
        type: 'ask',
        ask: {
          turns: [],
          sources: [{ ...askSource, cites: [{ work: 'Smith et al. 2019', title: null, year: 2019, inCorpus: { title: 'Sparse' } }] }],
        },
      },
      // A source and a card whose paper's title a model proposed (or the reader made up) carry the mark.
      {
        type: 'ask',
        ask: {
          turns: [
            {
              ...askTurn,
              elements: [
                { ...askElement, metadataProposedBy: 'gpt-4o-mini' },
                { ...askElement, metadataProposedBy: null },
              ],
            },
          ],
          sources: [askSource, { ...askSource, n: 2, metadataProposedBy: 'its first heading', titleMadeUp: true }],
        },
      },
      {
        type: 'ask',
        ask: {
          turns: [{ ...askTurn, cost: { estimate: null, total: '3 model calls, 1.6k tokens, 5 s', steps: ['answer: 900 tokens, 2.1 s'] } }],
          sources: [],
        },
      },
      { type: 'askProgress', progress: { kind: 'start', question: 'q', llm: null } },
      {
        type: 'askProgress',
        progress: { kind: 'estimate', estimate: '~3 model calls, ~1.9k tokens, ~8 s', basis: '8 evidence sentences' },
      },
      { type: 'askProgress', progress: { kind: 'stage', stage: 'check' } },
      { type: 'askProgress', progress: { kind: 'draft', delta: 'Rec' } },
      { type: 'askProgress', progress: { kind: 'stopped', reason: 'failed', message: 'no corpus' } },
      { type: 'askFocus' },
      { type: 'filters', filters: {}, search: '' },
      { type: 'filters', filters: { yearMin: 2019, yearMax: null, venue: 'ACL', section: 'Related', paper: 'p1' }, search: 'bm25' },
    ];
    for (const m of ok) assert.ok(isHostMessage(m), JSON.stringify(m));
    // The Ask tab renders every field of the conversation: a wrong-typed one anywhere refuses the message.
    const badAsk = [
      { type: 'ask' },
      { type: 'ask', ask: { turns: [] } },
      { type: 'ask', ask: { turns: [{ ...askTurn, kind: 'html' }], sources: [] } },
      { type: 'ask', ask: { turns: [{ ...askTurn, sentences: [{ text: 'x', citations: ['1'] }] }], sources: [] } },
      { type: 'ask', ask: { turns: [], sources: [{ ...askSource, text: { html: '<b>' } }] } },
      { type: 'ask', ask: { turns: [], sources: [{ ...askSource, n: 0 }] } },
      { type: 'ask', ask: { turns: [], sources: [{ ...askSource, lineStart: '12' }] } },
      {
        type: 'ask',
        ask: { turns: [], sources: [{ ...askSource, cites: [{ work: { html: '<b>' }, title: null, year: null, inCorpus: null }] }] },
      },
      {
        type: 'ask',
        ask: { turns: [], sources: [{ ...askSource, cites: [{ work: 'Smith 2019', title: null, year: null, inCorpus: 'yes' }] }] },
      },
      {
        type: 'ask',
        ask: {
          turns: [
            {
              ...askTurn,
              elements: [
                {
                  type: 'chart',
                  label: null,
                  caption: null,
                  content: null,
                  title: null,
                  year: null,
                  section: null,
                  page: null,
                  match: 'direct',
                  source: null,
                  description: null,
                },
              ],
            },
          ],
          sources: [],
        },
      },
      { type: 'ask', ask: { turns: [{ ...askTurn, elements: undefined }], sources: [] } },
      { type: 'ask', ask: { turns: [], sources: [{ ...askSource, metadataProposedBy: { html: '<b>' } }] } },
      { type: 'ask', ask: { turns: [], sources: [{ ...askSource, metadataProposedBy: 'm', titleMadeUp: 'yes' }] } },
      { type: 'ask', ask: { turns: [{ ...askTurn, elements: [{ ...askElement, metadataProposedBy: 7 }] }], sources: [] } },
      { type: 'ask', ask: { turns: [{ ...askTurn, filters: 2020 }], sources: [] } },
      { type: 'ask', ask: { turns: [{ ...askTurn, cost: undefined }], sources: [] } },
      { type: 'ask', ask: { turns: [{ ...askTurn, cost: { estimate: null, total: '1 call', steps: [3] } }], sources: [] } },
      { type: 'askProgress', progress: { kind: 'estimate', estimate: 3, basis: '' } },
      { type: 'askProgress', progress: { kind: 'stage', stage: 'hack' } },
      { type: 'askProgress', progress: { kind: 'draft', delta: 3 } },
      { type: 'askProgress', progress: { kind: 'stopped', reason: 'exploded' } },
    ];
    for (const bad of badAsk) assert.equal(isHostMessage(bad), false, JSON.stringify(bad));
    for (const bad of [
      null,
      'state',
      {},
      { type: 'nope' },
      { type: 'state' },
      { type: 'state', state: { kind: 'weird' } },
      { type: 'bookmarks' },
      { type: 'reveal' },
      { type: 'filters', filters: {} },
      { type: 'filters', filters: { yearMin: '2019' }, search: '' },
    ]) {
      assert.equal(isHostMessage(bad), false, JSON.stringify(bad));
    }
  });

  test('view messages', () => {
    const ok: ViewMessage[] = [
      { type: 'ready' },
      { type: 'copy', hitId: 'a' },
      { type: 'cite', hitId: 'a' },
      { type: 'openSource', hitId: 'a' },
      { type: 'bookmark', hitId: 'a' },
      { type: 'unbookmark', hitId: 'a' },
      { type: 'setOffset', offset: 1 },
      { type: 'configure' },
      { type: 'retry' },
      { type: 'showLog' },
      { type: 'recover' },
      { type: 'run', action: 'addPapers' },
      { type: 'run', action: 'connect' },
      { type: 'ask', question: 'What reduces recall?' },
      { type: 'askCancel' },
      { type: 'askClear' },
      { type: 'askInsert', turn: 0 },
      { type: 'askCite', source: 3 },
      { type: 'askOpenSource', source: 1 },
      { type: 'askOpenCited', source: 1, cite: 0 },
      { type: 'askOpenElement', turn: 0, element: 2 },
      { type: 'askCrop', key: '0123456789abcdef0123' },
      { type: 'askCropDone', key: '0123456789abcdef0123', png: 'data:image/png;base64,iVBORw0KGgo=' },
      { type: 'askCropDone', key: '0123456789abcdef0123', png: null, message: 'the stored region is empty' },
      { type: 'search', text: 'reciprocal rank fusion' },
      { type: 'search', text: '' },
      { type: 'setFilters', filters: { yearMin: 2019, yearMax: 2023, venue: '', section: 'related work', paper: '' } },
      { type: 'setFilters', filters: {} },
    ];
    for (const m of ok) assert.ok(isViewMessage(m), JSON.stringify(m));
    for (const bad of [
      undefined,
      { type: 'copy' },
      { type: 'setOffset', offset: 2 },
      { type: 'setHighlight', mode: 'rare' },
      { type: 'eval' },
      { type: 'run', action: 'workbench.action.terminal.new' },
      { type: 'run' },
      { type: 'ask', question: '   ' },
      { type: 'ask', question: 'x'.repeat(MAX_QUESTION_LENGTH + 1) },
      { type: 'ask' },
      { type: 'askInsert', turn: -1 },
      { type: 'askInsert', turn: '0' },
      { type: 'askCite', source: 0 },
      { type: 'askOpenSource', source: 1.5 },
      { type: 'askOpenCited', source: 1 },
      { type: 'askOpenCited', source: 0, cite: 0 },
      { type: 'askOpenCited', source: 1, cite: -1 },
      { type: 'askOpenElement', turn: 0 },
      { type: 'askOpenElement', turn: 0, element: -1 },
      { type: 'askOpenElement', turn: '1', element: 0 },
      { type: 'askCrop', key: '../../etc/passwd' },
      { type: 'askCrop' },
      { type: 'askCropDone', key: '0123456789abcdef0123', png: 'data:text/html;base64,PHNjcmlwdD4=' },
      { type: 'askCropDone', key: '0123456789abcdef0123', png: 'javascript:alert(1)' },
      { type: 'askCropDone', key: '0123456789abcdef0123' },
      { type: 'search' },
      { type: 'search', text: 'x'.repeat(MAX_QUESTION_LENGTH + 1) },
      { type: 'setFilters' },
      { type: 'setFilters', filters: { yearMin: 20.5 } },
      { type: 'setFilters', filters: { venue: 7 } },
      { type: 'setFilters', filters: { section: 'x'.repeat(201) } },
    ]) {
      assert.equal(isViewMessage(bad), false, JSON.stringify(bad));
    }
  });
});

describe('panelHtml', () => {
  const opts = {
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    nonce: 'abc123XYZ+/=',
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js',
    styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/panel.css',
  };

  test('strict CSP with the nonce; script and stylesheet carry it; nothing remote or inline', () => {
    const html = panelHtml(opts);
    const csp = panelCsp(opts.cspSource, opts.nonce);
    assert.equal(
      csp,
      `default-src 'none'; style-src ${opts.cspSource} 'nonce-${opts.nonce}'; script-src 'nonce-${opts.nonce}'; ` +
        `font-src ${opts.cspSource}; img-src ${opts.cspSource} data:; connect-src ${opts.cspSource}; worker-src blob:;`,
    );
    assert.ok(html.includes(`content="${csp}"`));
    assert.match(html, /<main id="root" aria-label="[^"]+"><\/main>/, 'no crop script named: element cards stay text');
    const withCrop = panelHtml({ ...opts, cropUri: `${opts.cspSource}/d/pdf-crop.js?"><script>`, workerUri: `${opts.cspSource}/d/w.mjs` });
    assert.ok(
      withCrop.includes(`data-crop="${opts.cspSource}/d/pdf-crop.js?&quot;&gt;&lt;script&gt;" data-worker="${opts.cspSource}/d/w.mjs"`),
    );
    assert.equal(withCrop.match(/<script/g)?.length, 1, 'the crop script is named, not loaded, until a card needs it');
    assert.ok(html.includes(`<script nonce="${opts.nonce}" src="${opts.scriptUri}"></script>`));
    assert.ok(html.includes(`<link rel="stylesheet" nonce="${opts.nonce}" href="${opts.styleUri}">`));
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.doesNotMatch(html, /<style|unsafe-|style="/);
    assert.doesNotMatch(html, /vscode-codicon-stylesheet/);
    assert.match(
      panelHtml({ ...opts, codiconsUri: `${opts.cspSource}/c.css` }),
      /<link id="vscode-codicon-stylesheet" rel="stylesheet" nonce="[^"]+" href="[^"]+\/c\.css">/,
    );
  });

  test('rejects a nonce that could break out of the attribute and escapes URIs', () => {
    assert.throws(() => panelHtml({ ...opts, nonce: `x' 'unsafe-inline` }));
    assert.throws(() => panelHtml({ ...opts, nonce: '' }));
    const html = panelHtml({ ...opts, scriptUri: 'https://x/a.js?"><script>alert(1)</script>' });
    assert.equal(html.match(/<script/g)?.length, 1);
  });
});

describe('pdfHtml', () => {
  const opts = {
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    nonce: 'abc123XYZ+/=',
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/pdf-view.js',
    workerUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/pdf.worker.mjs',
    styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/pdf-view.css',
  };

  test('strict CSP: scripts by nonce only, no eval, the worker only from a blob:, fetches only from the resource origin', async () => {
    const { pdfCsp, pdfHtml } = await import('../../src/extension/pdf/pdf-html.js');
    const csp = pdfCsp(opts.cspSource, opts.nonce);
    assert.equal(
      csp,
      `default-src 'none'; script-src 'nonce-${opts.nonce}'; style-src ${opts.cspSource} 'nonce-${opts.nonce}'; img-src ${opts.cspSource} data:; ` +
        `font-src ${opts.cspSource}; connect-src ${opts.cspSource}; worker-src blob:;`,
    );
    const html = pdfHtml(opts);
    assert.ok(html.includes(`content="${csp}"`));
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.doesNotMatch(html, /<style|unsafe-|style="/);
    assert.throws(() => pdfHtml({ ...opts, nonce: `x' 'unsafe-inline` }));
    assert.equal(pdfHtml({ ...opts, workerUri: 'https://x/w.js?"><script>alert(1)</script>' }).match(/<script/g)?.length, 1);
  });
});

describe('adapt (host side)', () => {
  test('a store hit becomes a HitView with a stable id; bookmarks copy it', async () => {
    const { toHitView, toBookmark } = await import('../../src/extension/panel/hit-view.js');
    const ref = (id: number, text: string) => ({
      id,
      paperId: 'p1',
      text,
      sectionTitle: 'Method',
      sectionNumber: '3',
      sentenceIndex: id,
      globalIndex: id,
    });
    const view = toHitView({
      similarity: 0.8,
      score: 0.8,
      sentence: ref(42, 'Target.'),
      previous: ref(41, 'Before.'),
      next: null,
      paper: { id: 'p1', title: 'T', authors: ['A B'], year: 2020, venue: null, doi: '10.1/x', citationKey: 'b2020zotero' },
    });
    assert.deepEqual(view, {
      id: '42',
      similarity: 0.8,
      sentence: { text: 'Target.', sectionTitle: 'Method' },
      previous: { text: 'Before.' },
      next: null,
      paper: {
        id: 'p1',
        title: 'T',
        authors: ['A B'],
        year: 2020,
        venue: null,
        doi: '10.1/x',
        url: null,
        citationKey: 'b2020zotero',
        metadataProposedBy: null,
      },
    });
    const bm = toBookmark(view, new Date('2026-01-02T03:04:05Z'));
    assert.deepEqual(bm, { id: '42', sentence: view.sentence, paper: view.paper, addedAt: '2026-01-02T03:04:05.000Z' });
    // A title a model proposed: the panel is told which model, so it can mark it.
    const proposedPaper = { id: 'p1', title: 'T', authors: [], year: null, venue: null, doi: null, metadataProposedBy: 'gpt-4o-mini' };
    const raw = { similarity: 0.8, score: 0.8, sentence: ref(42, 'Target.'), previous: null, next: null };
    const proposed = { ...toHitView({ ...raw, paper: proposedPaper }), raw };
    assert.equal(proposed.paper.metadataProposedBy, 'gpt-4o-mini');
    assert.equal(proposed.paper.titleMadeUp, undefined, "a model's proposal is not a made-up name");
    // A LaTeX source without \title, named by its first heading: the panel is told the name is made up.
    const madeUp = toHitView({
      ...proposed.raw,
      paper: { ...proposedPaper, title: 'Introduction', metadataProposedBy: 'its first heading' },
    });
    assert.deepEqual([madeUp.paper.metadataProposedBy, madeUp.paper.titleMadeUp], ['its first heading', true]);
  });

  test("an Ask source and card of a proposed paper are told the model, as the panel's hits are; a made-up title says so", async () => {
    const { toAskView } = await import('../../src/extension/ask/ask-view.js');
    const { newConversation } = await import('../../src/core/ask/conversation.js');
    const c = newConversation();
    const source: AskSource = {
      n: 1,
      paperId: 'p',
      citationKey: 'k',
      title: 'T',
      authors: ['A B'],
      year: 2020,
      section: null,
      sentenceId: 1,
      globalIndex: 0,
      text: 's',
      previous: null,
      next: null,
      page: 3,
    };
    c.sources.push(
      source,
      { ...source, n: 2, paperId: 'q', metadataProposedBy: 'gpt-4o-mini' },
      { ...source, n: 3, paperId: 'r', metadataProposedBy: 'its first heading' },
    );
    const element: AskElement = {
      type: 'table',
      label: 'Table 1',
      caption: 'c',
      content: null,
      paperId: 'q',
      citationKey: null,
      title: 'T',
      year: 2020,
      section: null,
      page: 3,
      bbox: null,
      match: 'linked',
      similarity: null,
      source: 2,
    };
    c.turns.push({
      question: 'q',
      standalone: 'q',
      rewrite: 'none',
      kind: 'extract',
      text: 't',
      sentences: [],
      citations: [1, 2, 3],
      answerability: 1,
      counts: { evidence: 3, papers: 3, unverifiedEvidence: 0, removedSentences: 0, removedCitations: 0, llmCalls: 0, ms: 1, modelMs: 0 },
      model: null,
      elements: [element, { ...element, metadataProposedBy: 'gpt-4o-mini' }],
    });
    const view = toAskView(c);
    assert.ok(isHostMessage({ type: 'ask', ask: view }));
    assert.deepEqual(
      view.sources.map((s) => [s.metadataProposedBy, s.titleMadeUp]),
      [
        [undefined, undefined],
        ['gpt-4o-mini', undefined],
        ['its first heading', true],
      ],
    );
    assert.ok(!('metadataProposedBy' in view.sources[0]) && !('metadataProposedBy' in view.turns[0].elements[0]), 'a real paper: no field');
    assert.equal(view.turns[0].elements[1].metadataProposedBy, 'gpt-4o-mini');
  });
});
