// Ask the Corpus inside a real VS Code, offline (no LLM configured: extractive answers), on the sample corpus the
// harness indexed, driven through the panel's Ask tab as an author uses it (the harness types and clicks in the
// webview): a question, a follow-up, "where did you find that?", Insert answer at cursor as one undoable edit with its
// BibTeX, the conversation kept in the workspace state and cleared. Runs after the other suites.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AskTurn } from '../../../src/core/ask/types.js';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import { snapshot } from './snapshot.js';
import { compilePdf } from '../../support/pdflatex.js';
import { setUserSettings, waitFor } from './wait.js';

function extension(): vscode.Extension<CorpusLensApi> {
  const ext = vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens') as vscode.Extension<CorpusLensApi> | undefined;
  assert.ok(ext, 'the extension under development is loaded');
  return ext;
}

describe('Ask the Corpus', function () {
  this.timeout(180_000);
  let api: CorpusLensApi;

  before(async () => {
    const ext = extension();
    api = ext.isActive ? ext.exports : await ext.activate();
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
  });

  /** Types `question` into the Ask tab, presses Enter, and waits for the turn it adds. */
  async function askInTab(question: string, name: string): Promise<{ turn: AskTurn; screen: string }> {
    const before = api.ask.conversation().turns.length;
    await snapshot(`${name}-typed`, 40_000, [
      { fill: '#cl-ask-input input', text: question },
      { press: '#cl-ask-input input', key: 'Enter' },
    ]);
    await waitFor(`the answer to "${question}"`, () => api.ask.conversation().turns.length === before + 1, 60_000);
    const turn = api.ask.conversation().turns.at(-1)!;
    let screen = '';
    for (let i = 0; i < 20 && !screen.includes(question); i++) {
      await new Promise((r) => setTimeout(r, 300));
      screen = (await snapshot(name)).join('\n');
    }
    assert.ok(screen.includes(question), `the tab shows the question:\n${screen.slice(0, 3000)}`);
    return { turn, screen };
  }

  it('in the Ask tab: answers with numbered sources, a follow-up and "where did you find that?" use the history, Insert answer is one undo', async () => {
    const samples = path.join(extension().extensionPath, 'samples', 'corpus');
    const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;
    const paper = await vscode.window.showTextDocument(
      await vscode.workspace.openTextDocument(path.join(workspace, 'paper.tex')),
      vscode.ViewColumn.One,
    );
    const nothing = await vscode.commands.executeCommand('corpusLens.ask');
    assert.equal(nothing, undefined, '"Ask the Corpus…" without a question opens the tab and asks nothing');

    const q1 = 'Which HNSW parameters reach recall@10 of 0.98 on small sentence corpora?';
    const { turn: t1, screen: s1 } = await askInTab(q1, 'ask-tab');
    assert.equal(t1.kind, 'extract', 'no LLM configured: an extract of the evidence');
    assert.ok(t1.citations.length >= 2, `cites several sentences: ${t1.citations}`);
    let c = api.ask.conversation();
    for (const n of t1.citations) {
      const s = c.sources[n - 1];
      assert.ok(
        s.citationKey && (existsSync(path.join(samples, `${s.citationKey}.tex`)) || existsSync(path.join(samples, `${s.citationKey}.md`))),
        `[${n}] is a sample paper: ${s.citationKey}`,
      );
      assert.ok(s1.includes(`[${n}]`), `the tab shows citation [${n}]`);
      assert.ok(s1.includes(s.text), `and its source's sentence: ${s.text}`);
    }
    assert.ok(
      c.sources.some((s) => s.citationKey === 'mwangi2022hnswtuning' && /recall@10 of 0\.98/.test(s.text)),
      'the HNSW paper’s sentence that answers it',
    );
    assert.ok(s1.includes('Insert answer at cursor'));
    assert.ok(
      !vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label.includes('Ask the Corpus'))),
      'no separate answer document: the tab is the answer',
    );

    // Hovering a citation reveals its quote (the screenshot shows it; the text is checked in test/webview/ask-tab.test.ts).
    await snapshot('ask-quote', 30_000, [{ hover: '.cl-ask-turn[data-turn="0"] .cl-ask-cite' }]);

    const q2 = 'Below what size is exact search as fast as it?';
    const { turn: t2, screen: s2 } = await askInTab(q2, 'ask-followup');
    assert.equal(t2.rewrite, 'terms', 'the follow-up is searched with the previous question’s terms');
    assert.match(t2.text, /50,000 vectors/);
    assert.ok(
      t2.citations.some((n) => t1.citations.includes(n)),
      'a sentence cited again keeps its number from the first answer',
    );
    assert.ok(
      s2.includes(`Searched as: ${t2.standalone}`) || s2.includes(`Searched as:\n${t2.standalone}`) || s2.includes(t2.standalone),
      'the rewrite is shown',
    );

    const q3 = 'Where did you find that?';
    const { turn: t3, screen: s3 } = await askInTab(q3, 'ask-where');
    assert.equal(t3.kind, 'sources');
    assert.deepEqual(t3.citations, t2.citations, 'the previous answer’s sources');
    assert.ok(s3.includes('Sources of the previous answer:'), s3.slice(0, 3000));
    c = api.ask.conversation();
    assert.equal(c.turns.length, 3, 'the conversation is saved in the workspace state');

    // Insert the follow-up's answer at the cursor: one edit, \cite{…} of the cited papers, their BibTeX in refs.bib.
    const at = paper.document.positionAt(paper.document.getText().indexOf('\\section{Method}'));
    paper.selection = new vscode.Selection(at, at);
    const original = paper.document.getText();
    const bibPath = path.join(workspace, 'refs.bib');
    await snapshot('ask-insert', 30_000, [{ click: '.cl-ask-turn[data-turn="1"] [data-ask-action="insert"]' }]);
    await waitFor('the answer in the paper', () => paper.document.getText() !== original, 30_000);
    const inserted = paper.document
      .getText()
      .slice(paper.document.offsetAt(at), paper.document.getText().length - (original.length - original.indexOf('\\section{Method}')));
    assert.match(inserted, /50,000 vectors/);
    assert.match(inserted, /~\\cite\{[^}]+\}/, `citations as \\cite{key}: ${inserted}`);
    assert.doesNotMatch(inserted, /\[\d+\]/, 'no [n] markers left');
    // Each cited key has its entry in refs.bib: added now, or already there from the Cite tests (then reused, by DOI
    // or title, never added twice).
    const keys = [...inserted.matchAll(/\\cite\{([^}]+)\}/g)].flatMap((m) => m[1].split(','));
    const bib = await waitFor('the BibTeX entries', () => {
      const b = existsSync(bibPath) ? readFileSync(bibPath, 'utf8') : '';
      return keys.every((key) => b.includes(`{${key},`)) && b;
    });
    for (const key of keys) assert.equal(bib.split(`{${key},`).length - 1, 1, `refs.bib has ${key} once`);

    await vscode.window.showTextDocument(paper.document, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('undo');
    assert.equal(paper.document.getText(), original, 'one undo removes the whole answer');
    await paper.document.save();

    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    c = api.ask.conversation();
    assert.deepEqual([c.turns.length, c.sources.length], [0, 0], 'cleared');
    let screen = q1;
    for (let i = 0; i < 20 && screen.includes(q1); i++) {
      await new Promise((r) => setTimeout(r, 300));
      screen = (await snapshot('ask-cleared')).join('\n');
    }
    assert.ok(!screen.includes(q1), 'the tab forgets the conversation too');
    const after = await vscode.commands.executeCommand<AskTurn | undefined>('corpusLens.ask', { question: q3 });
    assert.equal(after?.kind, 'sources');
    assert.deepEqual(after.citations, [], 'nothing to give sources for after clearing');
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
  });

  it('Insert answer at cursor in a .tex paper: LaTeX-safe prose (formulas in math mode, TeX quotes), a dropped \\ref as Fig. [ref] (issue 31.10)', async () => {
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;
    const paper = await vscode.window.showTextDocument(
      await vscode.workspace.openTextDocument(path.join(workspace, 'paper.tex')),
      vscode.ViewColumn.One,
    );
    // falk2024quantization: "With $R=100$, the loss shrank to 0.012, as Fig.~\ref{fig:pq} shows."
    const turn = await vscode.commands.executeCommand<AskTurn | undefined>('corpusLens.ask', {
      question: 'How much did the loss shrink with R=100 product quantisation?',
    });
    assert.equal(turn?.kind, 'extract');
    await vscode.window.showTextDocument(paper.document, vscode.ViewColumn.One);
    const at = paper.document.positionAt(paper.document.getText().indexOf('\\section{Method}'));
    paper.selection = new vscode.Selection(at, at);
    const original = paper.document.getText();
    await vscode.commands.executeCommand('corpusLens.insertAskAnswer');
    await waitFor('the answer in the paper', () => paper.document.getText() !== original, 30_000);
    const text = paper.document.getText();
    const inserted = text.slice(paper.document.offsetAt(at), text.length - (original.length - original.indexOf('\\section{Method}')));
    assert.ok(inserted.includes("``With $R=100$, the loss shrank to 0.012, as Fig. [ref] shows.''~\\cite{"), inserted);
    assert.doesNotMatch(inserted, /Fig\.\.|[^$]R=100|"|\u201c|\u201d|\[\d+\]/, inserted);
    await vscode.commands.executeCommand('undo');
    assert.equal(paper.document.getText(), original, 'one undo removes the answer');
    await paper.document.save();
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
  });

  it('a new topic after two questions on retrieval is searched as itself: "I don\'t know", not an answer from the retrieval papers', async () => {
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    await vscode.commands.executeCommand('corpusLens.ask'); // opens the Ask tab
    await askInTab('Is reciprocal rank fusion a good default for hybrid retrieval?', 'ask-topic-1');
    // Title-level: the paper whose title and abstract answer it is cited, not only sentence look-alikes.
    const { turn: hybrid } = await askInTab('Does hybrid retrieval improve recall over BM25?', 'ask-topic-2');
    const c = api.ask.conversation();
    assert.ok(
      hybrid.citations.some((n) => c.sources[n - 1].citationKey === 'sorensen2020hybrid'),
      `"Hybrid Sparse--Dense Retrieval…" is cited: ${hybrid.citations.map((n) => c.sources[n - 1].citationKey).join(', ')}`,
    );
    const q = 'What is the capital of Mongolia?';
    const { turn, screen } = await askInTab(q, 'ask-new-topic');
    assert.equal(turn.rewrite, 'none', 'a question that stands alone borrows no terms');
    assert.equal(turn.standalone, q);
    assert.equal(turn.kind, 'unknown', `answerability ${turn.answerability}`);
    assert.deepEqual(turn.citations, []);
    assert.ok(screen.includes("I don't know"), screen.slice(0, 3000));
    assert.ok(!screen.includes(`${q} (`), 'the tab shows no rewrite with the old topic’s terms');
    await snapshot('ask-new-topic-shown', 30_000, [{ hover: `.cl-ask-turn[data-turn="${api.ask.conversation().turns.length - 1}"]` }]);
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
  });

  it('a source whose quote cites a sample paper says so in the Ask tab ("as cited in"), and Open cited paper opens that paper (issue 36.8)', async () => {
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    await vscode.commands.executeCommand('corpusLens.ask'); // opens the Ask tab
    try {
      // sorensen2020hybrid: "BM25 remains a strong baseline for sentence retrieval despite its age~\cite{achterberg2019bm25sentences}."
      const { turn } = await askInTab('Is BM25 a strong baseline for sentence retrieval?', 'ask-cited');
      const c = api.ask.conversation();
      const quoting = turn.citations.map((n) => c.sources[n - 1]).find((s) => s.citationKey === 'sorensen2020hybrid' && s.cites?.length);
      assert.ok(
        quoting,
        `Sørensen's quote that cites Achterberg is a source: ${JSON.stringify(turn.citations.map((n) => c.sources[n - 1].citationKey))}`,
      );
      assert.equal(quoting.cites![0].inCorpus?.citationKey, 'achterberg2019bm25sentences');
      let screen = '';
      const said =
        /Achterberg and Haddad 2019, “Revisiting BM25 for Sentence-Level Retrieval”, as cited in Hybrid Sparse\S*Dense Retrieval for Short Scientific Queries — in your corpus/;
      for (let i = 0; i < 20 && !said.test(screen); i++) {
        screen = (await snapshot('ask-cited-card')).join('\n').replace(/\s+/g, ' ');
        if (!said.test(screen)) await new Promise((r) => setTimeout(r, 300));
      }
      assert.match(screen, said, 'the source card names the work its quote cites, as cited in the quoting paper');
      await snapshot('ask-cited-open', 30_000, [{ click: `#cl-ask-source-${quoting.n} [data-ask-action="open-cited"]` }]);
      const opened = await waitFor(
        'the cited paper open',
        () =>
          vscode.window.activeTextEditor?.document.fileName.endsWith('achterberg2019bm25sentences.tex') && vscode.window.activeTextEditor,
        30_000,
      );
      assert.match(opened.document.getText(), /\\title\{Revisiting BM25 for Sentence-Level Retrieval\}/);
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    } finally {
      await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    }
  });

  it('Open source of a PDF source and of a figure card: the PDF viewer at the page, the sentence highlighted, the figure outlined', async function () {
    // A compiled fixture (four pages, a figure on page 2), indexed into the corpus from a folder of the workspace.
    const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;
    const dir = path.join(workspace, 'pdf-source');
    const tex = path.join(extension().extensionPath, 'test', 'fixtures', 'ingest', 'onecol.tex');
    if (!compilePdf(dir, tex, 2)) return this.skip(); // pdflatex is not installed
    for (const f of readdirSync(dir)) if (!f.endsWith('.pdf')) rmSync(path.join(dir, f));
    await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.Uri.file(dir));
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    try {
      await openPdfSources(dir);
    } finally {
      await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    }
  });

  async function openPdfSources(dir: string): Promise<void> {
    // Observation 45 is on page 3: its source's Open source in the tab opens the viewer there.
    const { turn } = await askInTab(
      'Which observation notes that the benchmark documents the incomprehensibility of the straightforwardness?',
      'ask-pdf',
    );
    const c = api.ask.conversation();
    const source = turn.citations.map((n) => c.sources[n - 1]).find((s) => s.text.startsWith('Observation 45 '));
    assert.ok(source, `the PDF's sentence is a source: ${turn.citations.map((n) => c.sources[n - 1].text.slice(0, 40)).join(' | ')}`);
    assert.equal(source.page, 3);
    await snapshot('ask-pdf-open', 30_000, [{ click: `#cl-ask-source-${source.n} [data-ask-action="open"]` }]);
    const shown = await waitFor(
      'the PDF viewer on page 3',
      () => (api.pdfViewer.lastShown?.page === 3 ? api.pdfViewer.lastShown : undefined),
      60_000,
    );
    assert.equal(shown.found, true, shown.message);
    assert.ok(shown.highlights >= 2, `the sentence's two lines are highlighted: ${shown.highlights}`);
    assert.equal(shown.message, 'Page 3 of 4. The sentence is highlighted.');
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(
      tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('corpusLens.pdf'),
      `the viewer is the active tab: ${tab?.label}`,
    );
    assert.equal(tab.label, 'onecol.pdf (p. 3)');
    const screen = (await snapshot('pdf-source-sentence')).join('\n');
    assert.ok(screen.includes('Page 3 of 4. The sentence is highlighted.'), 'the viewer says so on screen');

    // The figure's card (its caption matches the question) opens page 2 with the stored box outlined.
    await vscode.commands.executeCommand('corpusLens.ask');
    const { turn: t2 } = await askInTab('Which caption describes the rectangle shown above?', 'ask-pdf-figure');
    const figure = t2.elements?.findIndex((e) => e.label === 'Figure 1' && e.page === 2) ?? -1;
    assert.ok(figure >= 0, `Figure 1 is a card: ${JSON.stringify(t2.elements?.map((e) => [e.label, e.page]))}`);
    const turnIndex = api.ask.conversation().turns.length - 1;
    // The card shows the figure's region of the page (#36.9): drawn in the panel by PDF.js, kept as a PNG in global storage.
    const crops = path.join(
      path.dirname(process.env.CORPUS_LENS_TEST_WORKSPACE!),
      'user-data',
      'User',
      'globalStorage',
      extension().id.toLowerCase(),
      'element-crops',
    );
    await waitFor(
      'the figure crop drawn and cached',
      () => (existsSync(crops) && readdirSync(crops).some((f) => f.endsWith('.png')) ? true : undefined),
      60_000,
    );
    await snapshot('ask-pdf-figure-crop');
    await snapshot('ask-pdf-figure-open', 30_000, [
      { click: `.cl-ask-turn[data-turn="${turnIndex}"] .cl-ask-element:nth-child(${figure + 1}) [data-ask-action="open-element"]` },
    ]);
    const box = await waitFor(
      'the PDF viewer on page 2',
      () => (api.pdfViewer.lastShown?.page === 2 ? api.pdfViewer.lastShown : undefined),
      60_000,
    );
    assert.deepEqual([box.found, box.highlights, box.message], [true, 1, 'Page 2 of 4. Figure 1 is outlined.']);
    await snapshot('pdf-source-figure');

    // The file gone: a message, no viewer change, nothing thrown.
    rmSync(path.join(dir, 'onecol.pdf'));
    const before = api.pdfViewer.lastShown;
    await snapshot('ask-pdf-missing', 30_000, [{ click: `#cl-ask-source-${source.n} [data-ask-action="open"]` }]);
    let said = '';
    for (let i = 0; i < 20 && !said.includes('cannot be read'); i++) {
      await new Promise((r) => setTimeout(r, 300));
      said = (await snapshot('pdf-source-missing')).join('\n');
    }
    assert.match(said, /onecol\.pdf cannot be read \(.*\)\. Re-index its folder if it moved\./, 'a message says why');
    assert.equal(api.pdfViewer.lastShown, before, 'the viewer shows what it showed');
  }

  it('without a corpus says so instead of failing, and leaves the conversation alone', async () => {
    const before = vscode.workspace.getConfiguration('corpusLens').inspect<string>('corpus.path')?.globalValue;
    await setUserSettings('corpusLens', { 'corpus.path': path.join(process.env.CORPUS_LENS_TEST_WORKSPACE!, 'no-corpus-here') });
    try {
      const turn = await vscode.commands.executeCommand<AskTurn | undefined>('corpusLens.ask', {
        question: 'Which HNSW parameters reach recall@10 of 0.98 on small sentence corpora?',
      });
      assert.equal(turn, undefined, 'no answer, and no rejected command');
      assert.equal(api.ask.conversation().turns.length, 0);
    } finally {
      await setUserSettings('corpusLens', { 'corpus.path': before });
    }
  });
});
