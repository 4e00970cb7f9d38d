// What is built in the core and shown in VS Code with a chat model (issue 36.5, 36.6, 36.10, 36.11), through the
// chat-completions stand-in (test/support/chat-standin.ts, its limits at its top) scripted with the review and Ask
// models the CLI tests use: Generate Related Work with comparison tables on gives a list section with its table;
// Describe Figures and Tables without a model says so and opens the settings, with one it stores descriptions that
// an Ask answer's element card then shows, beside the cost told before the question and what it cost after; Index
// Folder (Add Papers › From a folder) has the model propose the title of a PDF without one, and Corpus Health lists it
// as proposed. One stand-in for the suite; the sample corpus (left as it was) and small corpora indexed here.
import * as assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AskTurn } from '../../../src/core/ask/types.js';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import { faithfulAskModel } from '../../support/ask-models.js';
import { CORPUS_TAG, fenced, reviewModel, startChatStandin, type ChatStandin, type Reply } from '../../support/chat-standin.js';
import { compilePdf, UNTITLED_PAPER } from '../../support/pdflatex.js';
import { snapshot } from './snapshot.js';
import { setUserSettings, waitFor } from './wait.js';

const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;
const PROPOSED_TITLE = UNTITLED_PAPER.title;
const KEYS = ['corpus.backend', 'corpus.path', 'llm.baseUrl', 'llm.model', 'llm.cache', 'review.tables'];

describe('Built in the core, shown in VS Code with a chat model (issue 36)', function () {
  this.timeout(180_000);
  let api: CorpusLensApi;
  let standin: ChatStandin;
  let saved: Record<string, unknown>;
  /** Delay of the Ask answer (ms): long enough for a screenshot of the running question. */
  let answerDelay = 0;

  before(async () => {
    const ext = vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens') as vscode.Extension<CorpusLensApi>;
    api = ext.isActive ? ext.exports : await ext.activate();
    const review = reviewModel();
    const askModel = faithfulAskModel();
    standin = await startChatStandin(async (call): Promise<Reply> => {
      // Describe Figures and Tables: what the caption says, as a model would summarise it.
      if (call.step === 'describe') {
        const caption = /^Caption: (.*)$/m.exec(fenced(call, CORPUS_TAG))?.[1] ?? 'an element';
        return { content: `Stand-in description: ${caption.split(/\s+/).slice(0, 8).join(' ')}` };
      }
      // Metadata for a PDF without any: what is printed at the top of its first page.
      if (call.step === 'metadata') return { content: JSON.stringify({ title: PROPOSED_TITLE, authors: ['Jane Smith'], year: 2019 }) };
      if (call.step === 'answer' || call.step === 'rewrite') return { ...(askModel(call) as { content: string }), delayMs: answerDelay };
      return review(call);
    });
    const config = vscode.workspace.getConfiguration('corpusLens');
    saved = Object.fromEntries(KEYS.map((k) => [k, config.inspect(k)?.globalValue]));
  });

  after(async () => {
    await setUserSettings('corpusLens', saved);
    await standin?.close();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Generate Related Work with comparison tables on: a cited paragraph section, a list section as \\item entries, and its comparison table', async () => {
    await setUserSettings('corpusLens', {
      'llm.baseUrl': standin.baseURL,
      'llm.model': 'standin',
      'llm.cache': false,
      'review.tables': true,
    });
    const paper = await vscode.window.showTextDocument(
      await vscode.workspace.openTextDocument(path.join(workspace, 'paper.tex')),
      vscode.ViewColumn.One,
    );
    standin.reset();
    await vscode.commands.executeCommand('corpusLens.generateRelatedWork', { topic: 'retrieving example sentences for academic writing' });
    const draft = await waitFor(
      'the related-work draft',
      // The streamed draft has "== title ==" headings; the finished one replaces it with \subsection{…}.
      () =>
        vscode.workspace.textDocuments.find(
          (d) => d.isUntitled && d.languageId === 'latex' && d.getText().includes('\\subsection{Tools and checks}'),
        ),
      60_000,
    );
    const text = draft.getText();
    const steps = new Set(standin.calls.map((c) => c.step));
    assert.deepEqual([...['plan', 'write', 'verify'].filter((s) => !steps.has(s))], [], 'the model planned, wrote and verified');
    // The stand-in's plan: a paragraph section, then a list section; the list's items each cite, and its table follows.
    assert.match(text, /\\subsection\{Retrieval of related text\}\n[^\n\\]*\\cite\{/, text.slice(0, 1500));
    const list = /\\subsection\{Tools and checks\}\n\\begin\{itemize\}\n([\s\S]*?)\\end\{itemize\}/.exec(text);
    assert.ok(list, `a list section: ${text.slice(0, 3000)}`);
    const items = list[1].split('\n').filter((l) => l.trim().startsWith('\\item'));
    assert.ok(items.length >= 2, list[1]);
    for (const item of items) assert.match(item, /\\cite\{[^}]+\}/, `every item cites: ${item}`);
    const table = /\\begin\{table\}[\s\S]*?\\end\{table\}/.exec(text.slice(list.index))?.[0] ?? '';
    assert.match(table, /\\begin\{tabular\}/, 'the comparison table after the list');
    // A row per paper of the list whose cell its own quotes support (emit.ts): at least one, none from elsewhere.
    const listed = new Set(items.flatMap((i) => [...i.matchAll(/\\cite\{([^}]+)\}/g)].flatMap((m) => m[1].split(','))));
    const rows = [...table.matchAll(/^\s*\\cite\{([^}]+)\} &/gm)].map((m) => m[1]);
    assert.ok(rows.length >= 1, table);
    for (const key of rows) assert.ok(listed.has(key), `row ${key} is a paper of the list`);
    assert.ok(
      paper.document.getText() === (await vscode.workspace.openTextDocument(paper.document.uri)).getText(),
      'the paper is untouched',
    );
    // What the author sees: the list, then its table, in the draft (alone on screen, so its lines are not cut).
    await vscode.window.showTextDocument(draft, { preview: false });
    await vscode.commands.executeCommand('workbench.action.closeEditorsInOtherGroups');
    const editor = vscode.window.visibleTextEditors.find((e) => e.document === draft)!;
    const at = (needle: string) => draft.positionAt(text.indexOf(needle));
    editor.revealRange(
      new vscode.Range(at('\\subsection{Tools and checks}'), at('\\subsection{Tools and checks}')),
      vscode.TextEditorRevealType.AtTop,
    );
    // The editor renders spaces as no-break spaces.
    const screen = (await snapshot('related-work-list')).join('\n').replace(/\u00a0/g, ' ');
    assert.ok(!process.env.CORPUS_LENS_TEST_SNAPSHOT || screen.includes('Tools and checks'), 'the list section is on screen');
    editor.revealRange(new vscode.Range(at('\\begin{table}'), at('\\begin{table}')), vscode.TextEditorRevealType.AtTop);
    await snapshot('related-work-table');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Describe Figures and Tables without a chat model: the reason, and Open Settings opens the LLM settings; nothing is changed', async () => {
    await setUserSettings('corpusLens', { 'llm.baseUrl': undefined });
    standin.reset();
    const run = vscode.commands.executeCommand('corpusLens.describeElements');
    let screen = '';
    for (let i = 0; i < 30 && !screen.includes('needs a chat model'); i++) screen = (await snapshot('describe-no-llm')).join('\n');
    if (process.env.CORPUS_LENS_TEST_SNAPSHOT) {
      assert.match(screen, /describing figures and tables needs a chat model, and no LLM is configured/);
      await snapshot('describe-open-settings', 30_000, [{ click: '.notifications-toasts .monaco-button:has-text("Open Settings")' }]);
      await run;
      await waitFor('the settings editor', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Settings', 20_000);
      await snapshot('describe-settings');
    }
    assert.equal(standin.calls.length, 0, 'no model was asked');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Describe Figures and Tables with a chat model stores a description per element; an Ask answer tells its cost ahead, then what it cost, and its element card shows the description', async () => {
    // A small corpus of its own: two sample papers with a figure each, indexed here.
    const papers = path.join(workspace, 'faces-papers');
    mkdirSync(papers, { recursive: true });
    const samples = path.join(vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens')!.extensionPath, 'samples', 'corpus');
    for (const f of ['falk2024quantization.tex', 'sorensen2020hybrid.tex']) copyFileSync(path.join(samples, f), path.join(papers, f));
    await setUserSettings('corpusLens', {
      'corpus.backend': 'embedded',
      'corpus.path': path.join(mkdtempSync(path.join(tmpdir(), 'cl-faces-')), 'corpus'),
    });
    await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.Uri.file(papers));
    const { store } = await api.corpus.connection();
    const before = await store.listElements!({ count: 50 });
    assert.ok(before.length >= 2 && before.every((h) => !h.element.description), `${before.length} elements, none described`);

    await setUserSettings('corpusLens', { 'llm.baseUrl': standin.baseURL, 'llm.model': 'standin', 'llm.cache': false });
    standin.reset();
    await vscode.commands.executeCommand('corpusLens.describeElements');
    const described = await store.listElements!({ count: 50 });
    assert.equal(standin.calls.filter((c) => c.step === 'describe').length, before.length, 'one call per element');
    for (const h of described) assert.match(h.element.description ?? '', /^Stand-in description: \S/, `${h.element.label} is described`);
    const told = (await snapshot('describe-done')).join('\n');
    assert.ok(
      !process.env.CORPUS_LENS_TEST_SNAPSHOT ||
        told.includes(`${before.length} of ${before.length} figures, tables and equations described`),
      told.slice(-2000),
    );

    // Ask in the tab: the answer is held back a few seconds, so the running question's status is seen with its estimate.
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    await vscode.commands.executeCommand('corpusLens.ask'); // the panel's Ask tab
    answerDelay = 4000;
    const question = 'Is RRF ever the worst fusion method?';
    await snapshot('faces-ask-typed', 40_000, [
      { fill: '#cl-ask-input input', text: question },
      { press: '#cl-ask-input input', key: 'Enter' },
    ]);
    let running = '';
    for (let i = 0; i < 20 && !/Writing the answer… \(estimate: ~/.test(running); i++)
      running = (await snapshot('faces-ask-estimate')).join('\n');
    if (process.env.CORPUS_LENS_TEST_SNAPSHOT)
      assert.match(running, /Writing the answer… \(estimate: ~2 model calls, ~[\d.]+k? tokens, ~\d+ s; 8 evidence sentences, verified\)/);
    await waitFor('the answer', () => api.ask.conversation().turns.length === 1, 60_000);
    answerDelay = 0;
    const turn: AskTurn = api.ask.conversation().turns[0];
    assert.equal(turn.kind, 'answer', turn.text);
    assert.equal(turn.estimate?.llmCalls, 2);
    assert.equal(turn.trace?.total.llmCalls, 2, 'the answer and its verification');
    assert.ok(turn.trace!.total.tokens.total > 0, 'tokens from the endpoint’s usage');
    const card = turn.elements?.find((e) => e.description);
    assert.ok(card, `an element card with its description: ${JSON.stringify(turn.elements)}`);
    let screen = '';
    for (let i = 0; i < 20 && !screen.includes('Cost: 2 model calls'); i++) {
      await new Promise((r) => setTimeout(r, 300));
      screen = (await snapshot('faces-ask-answer')).join('\n');
    }
    if (process.env.CORPUS_LENS_TEST_SNAPSHOT) {
      screen = (await snapshot('faces-ask-cost', 15_000, [{ click: '.cl-ask-turn[data-turn="0"] .cl-ask-cost summary' }])).join('\n');
      assert.match(screen, /Cost: 2 model calls, [\d.]+k? tokens, \d+ s \(estimated ~2 model calls/, screen.slice(0, 3000));
      assert.match(screen, /answer: [\d.]+k? tokens, [\d.]+ s/, 'each step, opened');
      assert.ok(screen.includes(`Described: ${card.description}`), 'the card shows the description');
    }
  });

  it('Index Folder with a chat model: a PDF without a title gets one proposed by the model; Corpus Health lists it as proposed and the hover marks it', async function () {
    // UNTITLED_PAPER, with no .bib beside it.
    const papers = path.join(workspace, 'proposed-papers');
    if (!compilePdf(papers, UNTITLED_PAPER.source)) return this.skip(); // pdflatex is not installed
    for (const f of readdirSync(papers)) if (!f.endsWith('.pdf')) rmSync(path.join(papers, f));
    await setUserSettings('corpusLens', {
      'corpus.backend': 'embedded',
      'corpus.path': path.join(mkdtempSync(path.join(tmpdir(), 'cl-proposed-')), 'corpus'),
      'llm.baseUrl': standin.baseURL,
      'llm.model': 'standin',
      'llm.cache': false,
    });
    standin.reset();
    await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.Uri.file(papers));
    assert.equal(standin.calls.filter((c) => c.step === 'metadata').length, 1, 'the model was asked once, for the PDF');
    const { store } = await api.corpus.connection();
    // The authors are the offline reader's (it read the author line): a proposal fills only what is missing.
    const [paper] = await store.paperStats!();
    assert.deepEqual(
      [paper.title, paper.authors, paper.year, paper.metadataProposedBy],
      [PROPOSED_TITLE, ['Jane Smith', 'Ravi Kumar'], 2019, 'standin'],
    );

    await vscode.commands.executeCommand('corpusLens.corpusHealth');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: 'corpus-lens-health', path: '/Corpus Health.md' }));
    // An earlier test's report may be open: VS Code asks for the new text after the change event, not at once.
    await waitFor('the report of this corpus', () => doc.getText().startsWith('# Corpus health\n\n1 papers,'), 30_000).catch(
      () => undefined,
    );
    assert.match(doc.getText(), /## Metadata proposed by a model \(1\)/, doc.getText().slice(0, 400));
    assert.ok(doc.getText().includes(`- ${PROPOSED_TITLE} \`smith2019\` — pdf, 2 sentences: title proposed by \`standin\``), doc.getText());
    if (process.env.CORPUS_LENS_TEST_SNAPSHOT) {
      let seen = '';
      for (let i = 0; i < 20 && !seen.includes('title proposed by'); i++) {
        await new Promise((r) => setTimeout(r, 1000));
        seen = (await snapshot('corpus-health-proposed', 30_000)).join('\n');
      }
      // The text is in the preview's frame before a loaded machine paints it: the screenshot kept is one taken after.
      await new Promise((r) => setTimeout(r, 3000));
      seen = (await snapshot('corpus-health-proposed', 30_000)).join('\n');
      assert.match(seen, /Metadata proposed by a model \(1\)/, seen.slice(Math.max(0, seen.indexOf('Corpus health'))).slice(0, 2000));
      assert.ok(seen.includes(`${PROPOSED_TITLE} smith2019 — pdf, 2 sentences: title proposed by standin`), seen.slice(0, 3000));
    }

    // The hover says so too, as the panel does: an author about to cite from it sees the title is a model's guess.
    const draftFile = path.join(workspace, 'proposed-draft.md');
    writeFileSync(draftFile, '# Draft\n\nSparse lexical retrieval raises recall on long queries over dense retrieval.\n');
    const draft = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(draftFile), { preview: false });
    const at = draft.document.positionAt(draft.document.getText().indexOf('raises recall'));
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', draft.document.uri, at);
    const hoverText = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.ok(hoverText.includes(`- ${PROPOSED_TITLE} \\(2019\\) *(title proposed by standin)*, `), hoverText);
    if (process.env.CORPUS_LENS_TEST_SNAPSHOT) {
      draft.selection = new vscode.Selection(at, at);
      await vscode.commands.executeCommand('editor.action.showHover');
      let screen = '';
      for (let i = 0; i < 10 && !screen.includes('title proposed by'); i++) {
        await new Promise((r) => setTimeout(r, 300));
        screen = (await snapshot('hover-proposed-title')).join('\n');
      }
      assert.ok(screen.includes(`${PROPOSED_TITLE} (2019) (title proposed by standin)`), screen.slice(0, 3000));
    }
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
