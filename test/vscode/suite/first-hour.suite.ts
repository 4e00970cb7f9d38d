// The author's first hour (issue 12), in a real VS Code on the sample corpus: Cite lands at the end of the
// sentence (merging a second paper into the same citation) and the panel keeps its results; Open source opens
// the sample paper's file at the sentence; Insert Related Work goes where the cursor is when it is run.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import type { ViewState } from '../../../webview/protocol.js';
import { snapshot } from './snapshot.js';
import { compilePdf } from '../../support/pdflatex.js';
import { waitFor } from './wait.js';
import { writeWarningProject } from '../../support/warning-project.js';

const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function api(): CorpusLensApi {
  const ext = vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens') as vscode.Extension<CorpusLensApi>;
  return ext.exports;
}

async function openFile(name: string, text: string): Promise<vscode.TextEditor> {
  const file = path.join(workspace, name);
  writeFileSync(file, text);
  const doc = await vscode.workspace.openTextDocument(file);
  return vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
}

function cursorAt(editor: vscode.TextEditor, probe: string, within = 0): void {
  const offset = editor.document.getText().indexOf(probe);
  assert.ok(offset >= 0, `probe ${probe}`);
  const pos = editor.document.positionAt(offset + within);
  editor.selection = new vscode.Selection(pos, pos);
}

async function results(a: CorpusLensApi): Promise<Extract<ViewState, { kind: 'results' }>> {
  const before = a.panel.current;
  await vscode.commands.executeCommand('corpusLens.findSimilar');
  const s = await waitFor('results', () =>
    a.panel.current !== before && a.panel.current.kind === 'results' ? a.panel.current : undefined,
  );
  return s as Extract<ViewState, { kind: 'results' }>;
}

const LATEX = [
  '\\documentclass{article}',
  '\\begin{document}',
  '\\section{Introduction}',
  'Authors who write in a second language',
  'often imitate the phrasing of papers',
  'they have read.',
  'Retrieval tools show similar sentences',
  'from a corpus of prior papers',
  'while the author writes each.',
  'The fitted exponents differ between fields.',
  '\\bibliography{refs}',
  '\\end{document}',
  '',
].join('\n');

/** Files under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

describe('The first hour (issue 12)', function () {
  it('writes the Corpus Lens log to a file (what Show Log shows), with the lookup', async () => {
    const a = api();
    const editor = await openFile('first-hour-log.tex', LATEX);
    cursorAt(editor, 'The fitted exponents', 5);
    await results(a);
    const session = path.dirname(path.dirname(a.logUri.fsPath));
    const log = await waitFor(
      'a Corpus Lens log file with the corpus opening in it',
      () =>
        filesUnder(session).find(
          (f) => /Corpus Lens/.test(path.basename(f)) && /corpus .*papers, \d+ sentences/.test(readFileSync(f, 'utf8')),
        ),
      10_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; files under ${session}: ${filesUnder(session).join(', ')}`);
    });
    assert.ok(statSync(log).size > 0);
  });

  it('cites at the end of the sentence, not mid-word; a second paper joins the same citation; the panel keeps its results', async () => {
    const a = api();
    const editor = await openFile('first-hour-cite.tex', LATEX);
    await vscode.commands.executeCommand('corpusLens.openPanel');
    await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
    cursorAt(editor, 'imitate the phrasing', 3); // mid-word: "imi|tate"
    const state = await results(a);
    assert.ok(state.hits.length >= 2);
    await snapshot('panel-before-cite');
    await vscode.commands.executeCommand('corpusLens.citeHit', state.hits[0]);
    const key1 = /\\cite\{([^}]+)\}/.exec(editor.document.getText())?.[1];
    assert.ok(key1, editor.document.getText());
    assert.ok(editor.document.getText().includes(`they have read~\\cite{${key1}}.\nRetrieval`), editor.document.getText());
    await sleep(600); // past the lookup debounce: the cursor is still in the cited sentence
    assert.equal(a.panel.current.kind, 'results', 'the panel keeps its results after Cite');
    const second = (a.panel.current as typeof state).hits.find((h) => h.paper.id !== state.hits[0].paper.id)!;
    await vscode.commands.executeCommand('corpusLens.citeHit', second);
    const key2 = /\\cite\{[^,}]+,([^}]+)\}/.exec(editor.document.getText())?.[1];
    assert.ok(key2, `the second paper joins the citation: ${editor.document.getText()}`);
    assert.ok(editor.document.getText().includes(`read~\\cite{${key1},${key2}}.\nRetrieval`));
    await sleep(600);
    assert.equal(a.panel.current.kind, 'results');
    await snapshot('panel-after-cite');
    await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('undo');
    assert.ok(editor.document.getText().includes(`read~\\cite{${key1}}.\nRetrieval`), 'one undo removes the second key only');
  });

  it("cites in Markdown after the sentence's last word, before the full stop", async () => {
    const a = api();
    const editor = await openFile('first-hour.md', '# Notes\n\nHybrid search helps short querie with rare words. Next one.\n');
    cursorAt(editor, 'querie', 6); // "querie|" mid-sentence
    const state = await results(a);
    await vscode.commands.executeCommand('corpusLens.citeHit', state.hits[0]);
    assert.match(editor.document.getText(), /rare words \[@[^\]]+\]\. Next one\./);
  });

  it('hover text wraps between words: plain spaces, no &nbsp;', async () => {
    const editor = await openFile('first-hour-hover.tex', LATEX);
    const offset = editor.document.getText().indexOf('imitate the phrasing');
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      editor.document.uri,
      editor.document.positionAt(offset),
    );
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))).join('\n');
    assert.match(text, /Corpus Lens/);
    assert.ok(!text.includes('&nbsp;'), text.slice(0, 300));
    assert.match(text, /\w \w+ \w+ \w/, 'words separated by ordinary spaces');
    // The hover's Cite link runs the same Cite: the citation goes at the end of the hovered sentence.
    const link = /\[Cite\]\(command:corpusLens\.citeHit\?([^)]+)\)/.exec(text);
    assert.ok(link, 'each hover result has a Cite link');
    await vscode.commands.executeCommand('corpusLens.citeHit', ...(JSON.parse(decodeURIComponent(link[1])) as unknown[]));
    assert.match(editor.document.getText(), /they have read~\\cite\{[^}]+\}\.\nRetrieval/);
  });

  it('hovering a citation in generated related work shows the verified quotes behind it, escaped', async () => {
    // A paragraph with the notes `review` writes under it (their exact format is checked in test/review/pipeline.test.ts).
    const draft = [
      '\\subsection{Retrieval}',
      'Writing tools retrieve similar sentences~\\cite{marchetti2022retrieving,lovelace2019dense}.',
      '% S1.1 (support 0.92, model: supported): backed by Q1 (marchetti2022retrieving): "We describe a writing assistant that monitors the sentence under the cursor."; Q2 (lovelace2019dense): "We retrieve *sentences* from [prior](command:workbench.action.terminal.new) papers."',
      '',
    ].join('\n');
    const editor = await openFile('first-hour-provenance.tex', draft);
    const hoverText = async (probe: string) => {
      const offset = editor.document.getText().indexOf(probe) + 2;
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        editor.document.uri,
        editor.document.positionAt(offset),
      );
      return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))).join('\n');
    };
    const one = await hoverText('lovelace2019dense}');
    assert.match(one, /verified quotes behind lovelace2019dense/);
    assert.match(one, /Q2 \(for S1\.1 — support 0\.92\)/);
    assert.ok(!one.includes('monitors the sentence'), "only the hovered key's quotes");
    assert.ok(!one.includes('](command:workbench'), 'a link in corpus text stays text');
    assert.match(one, /\\\*sentences\\\*/, 'markup in the quote is escaped');
    // As the author sees it: the hover widget over the key, its quote readable as text.
    const at = editor.document.positionAt(editor.document.getText().indexOf('lovelace2019dense}') + 2);
    editor.selection = new vscode.Selection(at, at);
    await vscode.commands.executeCommand('editor.action.showHover');
    let screen = '';
    for (let i = 0; i < 10 && !screen.includes('verified quotes behind'); i++) {
      await sleep(300);
      screen = (await snapshot('provenance-hover')).join('\n');
    }
    assert.match(screen, /verified quotes behind lovelace2019dense/, 'the hover is on screen');
    assert.match(
      screen,
      /We retrieve \*sentences\* from \[prior\]\(command:workbench\.action\.terminal\.new\) papers/,
      'the quote reads as its plain text',
    );
    const all = await hoverText('\\cite{');
    assert.match(all, /monitors the sentence under the cursor/);
    assert.match(all, /Q2/);
  });

  it('opens the source file of a corpus paper at the sentence', async () => {
    const a = api();
    const editor = await openFile('first-hour-open.tex', LATEX);
    cursorAt(editor, 'Retrieval tools show', 5);
    const state = await results(a);
    const hit = state.hits[0];
    const panel = a.panel as unknown as { onMessage(m: unknown): Promise<void> };
    await panel.onMessage({ type: 'openSource', hitId: hit.id });
    const opened = await waitFor('the source editor', () => {
      const e = vscode.window.activeTextEditor;
      return e && !e.document.uri.fsPath.endsWith('first-hour-open.tex') ? e : undefined;
    });
    const line = opened.document.lineAt(opened.selection.active.line).text;
    const words = hit.sentence.text.split(/\s+/).slice(0, 3).join(' ');
    assert.ok(
      line.replace(/~/g, ' ').includes(words),
      `line ${opened.selection.active.line + 1} of ${opened.document.fileName} holds "${words}": ${line}`,
    );
  });

  it('refuses file: and command: links from corpus data (a shared corpus is written by others)', async () => {
    const a = api();
    // Saved results come back from workspace state: plant two whose paper carries a hostile link.
    const state = (a.panel as unknown as { context: vscode.ExtensionContext }).context.workspaceState;
    const saved = state.get<unknown[]>('corpusLens.bookmarks', []);
    const planted = (id: string, url: string) => ({
      id,
      sentence: { text: 'A planted sentence.', sectionTitle: null },
      addedAt: new Date().toISOString(),
      paper: { id: `planted:${id}`, title: `Planted ${id}`, authors: [], year: null, venue: null, doi: null, url },
    });
    await state.update('corpusLens.bookmarks', [
      planted('evil-file', 'file:///etc/passwd'),
      planted('evil-command', 'command:workbench.action.terminal.new'),
      ...saved,
    ]);
    try {
      const before = vscode.window.tabGroups.all.flatMap((g) => g.tabs).length;
      const panel = a.panel as unknown as { onMessage(m: unknown): Promise<void> };
      await panel.onMessage({ type: 'openSource', hitId: 'evil-file', from: 'bookmarks' });
      await panel.onMessage({ type: 'openSource', hitId: 'evil-command', from: 'bookmarks' });
      const session = path.dirname(path.dirname(a.logUri.fsPath));
      const log = await waitFor(
        'both refusals in the log',
        () => {
          const f = filesUnder(session).find((x) => /Corpus Lens/.test(x));
          const text = f ? readFileSync(f, 'utf8') : '';
          return /planted:evil-file: not opened: its URL file:\/\/\/etc\/passwd is not an https:\/http: link/.test(text) &&
            /planted:evil-command: not opened: its URL command:workbench\.action\.terminal\.new is not an https:\/http: link/.test(text)
            ? text
            : undefined;
        },
        10_000,
      );
      assert.ok(log);
      assert.equal(vscode.window.tabGroups.all.flatMap((g) => g.tabs).length, before, 'nothing was opened');
      assert.equal(vscode.window.terminals.length, 0, 'no terminal was started');
    } finally {
      await state.update('corpusLens.bookmarks', saved);
    }
  });

  it("opens an indexed PDF in the Corpus Lens viewer at the sentence's page, the sentence highlighted", async function () {
    const dir = path.join(workspace, 'pdf-paper');
    const lines = [
      '\\documentclass{article}',
      '\\title{Moraines of the Northern Valley}',
      '\\begin{document}',
      '\\maketitle',
      '\\section{Introduction}',
      'Glaciers shaped the valley over many thousands of years.',
      '\\newpage',
      '\\section{Results}',
      'Moraine deposits in the northern valley date from the last glacial maximum according to our survey.',
      '\\end{document}',
    ];
    if (!compilePdf(dir, { name: 'moraines', lines })) return this.skip(); // pdflatex is not installed
    const a = api();
    await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.Uri.file(dir));
    const editor = await openFile(
      'first-hour-pdf.md',
      '# Notes\n\nMoraine deposits in the northern valley date from the last glacial maximum.\n',
    );
    cursorAt(editor, 'Moraine deposits', 3);
    const state = await results(a);
    const hit = state.hits.find((h) => h.paper.title === 'Moraines of the Northern Valley');
    assert.ok(hit, `the PDF paper is among the results: ${state.hits.map((h) => h.paper.title).join('; ')}`);
    const panel = a.panel as unknown as { onMessage(m: unknown): Promise<void> };
    await panel.onMessage({ type: 'openSource', hitId: hit.id });
    // Corpus Lens's PDF viewer, at the sentence's page (2: after \newpage), the sentence highlighted.
    const shown = await waitFor('the PDF viewer', () => (a.pdfViewer.lastShown?.page === 2 ? a.pdfViewer.lastShown : undefined), 30_000);
    assert.equal(shown.found, true, shown.message);
    assert.ok(shown.highlights >= 1, shown.message);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(
      tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('corpusLens.pdf'),
      'the viewer is the active tab',
    );
    assert.equal(tab.label, 'moraines.pdf (p. 2)');
    const session = path.dirname(path.dirname(a.logUri.fsPath));
    await waitFor(
      'the page in the log',
      () => filesUnder(session).some((f) => /Corpus Lens/.test(f) && /moraines\.pdf \(page 2\)/.test(readFileSync(f, 'utf8'))),
      5_000,
    );
  });

  it("opens an \\input file of an indexed LaTeX project at the sentence's line (issue 29)", async () => {
    const dir = path.join(workspace, 'input-project');
    mkdirSync(path.join(dir, 'sections'), { recursive: true });
    writeFileSync(
      path.join(dir, 'main.tex'),
      [
        '\\documentclass{article}',
        '\\title{Fjords of the Western Coast}',
        '\\begin{document}',
        '\\maketitle',
        '\\section{Introduction}',
        'Fjords were carved by glaciers during repeated ice ages.',
        '\\input{authors}',
        '\\input{sections/survey}',
        '\\end{document}',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'sections', 'survey.tex'),
      [
        '\\section{Survey}',
        '% measured in 2019',
        'We sounded the depth of each fjord from a small boat.',
        '',
        'Sediment layers at the fjord mouths record the retreat of the ice sheet after the last glacial maximum.',
        '',
      ].join('\n'),
    );
    const a = api();
    await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.Uri.file(dir));
    const editor = await openFile(
      'first-hour-input.md',
      '# Notes\n\nSediment layers at fjord mouths record how the ice sheet retreated.\n',
    );
    cursorAt(editor, 'Sediment layers', 3);
    const state = await results(a);
    const hit = state.hits.find((h) => h.paper.title === 'Fjords of the Western Coast' && /^Sediment layers/.test(h.sentence.text));
    assert.ok(hit, `the project's sentence is among the results: ${state.hits.map((h) => h.sentence.text).join(' | ')}`);
    const panel = a.panel as unknown as { onMessage(m: unknown): Promise<void> };
    await panel.onMessage({ type: 'openSource', hitId: hit.id });
    const opened = await waitFor('the \\input file in an editor', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath.endsWith(path.join('sections', 'survey.tex')) ? e : undefined;
    });
    assert.equal(opened.selection.active.line, 4, 'line 5 of sections/survey.tex');
    // The missing \input{authors} was a warning naming the file, not a failure.
    const session = path.dirname(path.dirname(a.logUri.fsPath));
    const log = await waitFor(
      'the indexing report',
      () => {
        const f = filesUnder(session).find((x) => /Corpus Lens/.test(x));
        const text = f ? readFileSync(f, 'utf8') : '';
        return /\\input\{authors\}: file not found/.test(text) ? text : undefined;
      },
      10_000,
    );
    assert.match(log, /\[warning\] warning \S*input-project\S*main\.tex: \\input\{authors\}: file not found/);
    assert.doesNotMatch(log, /\[error\] failed \S*input-project/);
  });

  it('indexing a LaTeX project whose .bib gives ~1000 warnings reports 0 files failed and groups the warnings in the log', async () => {
    const a = api();
    const dir = path.join(workspace, 'warning-project');
    const expected = writeWarningProject(dir);
    await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.Uri.file(dir));
    const session = path.dirname(path.dirname(a.logUri.fsPath));
    const log = await waitFor(
      'the indexing report in the log',
      () => {
        const f = filesUnder(session).find((x) => /Corpus Lens/.test(x));
        const text = f ? readFileSync(f, 'utf8') : '';
        return text.includes(`; 0 files failed; ${expected.warnings} warnings`) ? text : undefined;
      },
      60_000,
    );
    assert.match(log, /\[warning\] warning \S*refs\.bib: unknown LaTeX macro kept as written: \\law \(×600\)/);
    assert.doesNotMatch(log, /\[error\] failed \S*warning-project/);
  });

  it('recovers from a refused PostgreSQL connection in two clicks: Connect, then "Go back to" the corpus before', async () => {
    const a = api();
    const editor = await openFile('first-hour-recover.tex', LATEX);
    cursorAt(editor, 'The fitted exponents', 5);
    const before = await results(a);
    // Click 1: Connect to a database that refuses connections (a closed loopback port).
    await vscode.commands.executeCommand('corpusLens.connect', {
      backend: 'postgres',
      url: 'postgres://nobody@127.0.0.1:9/corpus',
      path: '',
      schema: 'corpusLens',
    });
    const failed = await waitFor('the error state', () => (a.panel.current.kind === 'error' ? a.panel.current : undefined));
    assert.equal(failed.kind, 'error');
    if (failed.kind !== 'error') return;
    assert.match(failed.message, /ECONNREFUSED|cannot reach/);
    assert.equal(failed.corpus, '127.0.0.1:9/corpus', 'the failure names the corpus tried');
    assert.ok(failed.recover, 'the panel offers the way back');
    await snapshot('panel-connection-refused');
    // Click 2: the panel's "Go back to …" button.
    const panel = a.panel as unknown as { onMessage(m: unknown): Promise<void> };
    await panel.onMessage({ type: 'recover' });
    const back = await waitFor('results from the corpus before', () => (a.panel.current.kind === 'results' ? a.panel.current : undefined));
    assert.equal(back.kind === 'results' && back.corpusName, before.corpusName);
  });

  it('inserts related work at the cursor of the paper when run, on its own lines', async () => {
    const editor = await openFile('first-hour-insert.tex', LATEX);
    cursorAt(editor, '\\section{Introduction}', 0);
    await vscode.commands.executeCommand('corpusLens.generateRelatedWork', { topic: 'Retrieving example sentences while writing' });
    await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
    cursorAt(editor, 'The fitted exponents differ between fields.', 'The fitted exponents differ between fields.'.length); // moved after generating
    await vscode.commands.executeCommand('corpusLens.insertRelatedWork');
    const text = editor.document.getText();
    assert.ok(text.includes('\\section{Introduction}\nAuthors who write'), 'nothing inserted where the cursor was when generating');
    const m = /The fitted exponents differ between fields\.\n\n(%[^\n]*)\n/.exec(text);
    assert.ok(m, `the block starts on its own line after a blank line: ${text.slice(0, 800)}`);
    assert.ok(/\n\n\\bibliography\{refs\}/.test(text), 'a blank line after the block');
  });
});
