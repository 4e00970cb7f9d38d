// Documented flows as an author clicks through them (issue 31), in a real VS Code on the sample corpus the harness
// indexed: Open source of a PDF hit opens the viewer at the sentence's page with the highlight on screen, and the
// panel keeps its results while the viewer is the active editor.
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import type { ViewState } from '../../../webview/protocol.js';
import { snapshot } from './snapshot.js';
import { compilePdf } from '../../support/pdflatex.js';
import { waitFor } from './wait.js';

const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function openFile(name: string, text: string): Promise<vscode.TextEditor> {
  const file = path.join(workspace, name);
  writeFileSync(file, text);
  return vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file), vscode.ViewColumn.One);
}

function cursorAt(editor: vscode.TextEditor, probe: string, within = 3): void {
  const offset = editor.document.getText().indexOf(probe);
  assert.ok(offset >= 0, `probe ${probe}`);
  const pos = editor.document.positionAt(offset + within);
  editor.selection = new vscode.Selection(pos, pos);
}

type Results = Extract<ViewState, { kind: 'results' }>;

describe('Documented flows (issue 31)', function () {
  this.timeout(180_000);
  let api: CorpusLensApi;

  before(async () => {
    const ext = vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens') as vscode.Extension<CorpusLensApi>;
    api = ext.isActive ? ext.exports : await ext.activate();
  });

  async function results(): Promise<Results> {
    const before = api.panel.current;
    await vscode.commands.executeCommand('corpusLens.findSimilar');
    return (await waitFor(
      'results',
      () => (api.panel.current !== before && api.panel.current.kind === 'results' ? api.panel.current : undefined),
      60_000,
    )) as Results;
  }

  it('Open source on a hit from page 2 opens the PDF viewer at page 2, the highlight on screen; the panel keeps its results', async function () {
    const dir = path.join(workspace, 'pdf-flows');
    const lines = [
      '\\documentclass{article}',
      '\\title{Eskers of the Southern Basin}',
      '\\begin{document}',
      '\\maketitle',
      '\\section{Introduction}',
      'Meltwater channels carried sand under the ice sheet for centuries.',
      ...Array.from(
        { length: 12 },
        (_, i) => `Paragraph ${i + 1} describes the survey lines, the sampling grid and the instruments used in the field season.`,
      ),
      '\\newpage',
      '\\section{Results}',
      'Esker ridges in the southern basin trace the meltwater tunnels of the retreating ice sheet according to our cores.',
      '\\end{document}',
    ];
    if (!compilePdf(dir, { name: 'eskers', lines })) return this.skip(); // pdflatex is not installed
    await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.Uri.file(dir));
    await vscode.commands.executeCommand('corpusLens.openPanel');
    const editor = await openFile(
      'flows-pdf.md',
      '# Notes\n\nEsker ridges in the southern basin trace the meltwater tunnels of the retreating ice.\n',
    );
    cursorAt(editor, 'Esker ridges');
    const state = await results();
    const hit = state.hits.find((h) => h.paper.title === 'Eskers of the Southern Basin');
    assert.ok(hit, `the PDF paper is among the results: ${state.hits.map((h) => h.paper.title).join('; ')}`);
    const panel = api.panel as unknown as { onMessage(m: unknown): Promise<void> };
    await panel.onMessage({ type: 'openSource', hitId: hit.id });
    // The layout changes while the viewer opens (the bottom panel comes and goes, as the log or a terminal does):
    // the viewer fits the page to its new size and must stay at the sentence's page while it does.
    for (let i = 0; i < 16; i++) {
      await vscode.commands.executeCommand('workbench.action.togglePanel');
      await sleep(200);
    }
    await waitFor('the PDF viewer', () => api.pdfViewer.lastShown, 30_000);
    // What the viewer shows once it has settled (it lays itself out after opening), not a page it passed through.
    await sleep(2_000);
    const shown = api.pdfViewer.lastShown!;
    assert.equal(shown.page, 2, `the viewer stays at the sentence's page: ${shown.message}`);
    assert.equal(shown.found, true, shown.message);
    assert.ok(shown.highlights >= 1, shown.message);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.equal(tab?.label, 'eskers.pdf (p. 2)');
    const screen = (await snapshot('pdf-viewer-page-2')).join('\n');
    assert.match(screen, /Page 2 of 2\. The sentence is highlighted/, 'the viewer says where it is');
    assert.doesNotMatch(screen, /The highlight is on page/);
    // Issue 31.5: the viewer is not a prose document; the panel keeps the results the author opened it from.
    assert.equal(api.panel.current.kind, 'results', `the panel keeps its results, not ${api.panel.current.kind}`);
    assert.match(screen, /Esker ridges in the southern basin/, 'the results are still on screen');
  });

  it("Open source on a corpus paper's text file, then the output and the settings: the panel keeps the last results", async () => {
    await vscode.commands.executeCommand('corpusLens.openPanel');
    const editor = await openFile(
      'flows-source.md',
      '# Notes\n\nAuthors who write in a second language often imitate the phrasing of papers they have read.\n',
    );
    cursorAt(editor, 'imitate the phrasing');
    const state = await results();
    const panel = api.panel as unknown as { onMessage(m: unknown): Promise<void> };
    const kinds: string[] = [];
    const sub = api.lookups.onDidLookup((e) => kinds.push(e.kind));
    try {
      await panel.onMessage({ type: 'openSource', hitId: state.hits[0].id });
      await waitFor('the source file', () => vscode.window.activeTextEditor?.document.uri.fsPath !== editor.document.uri.fsPath, 20_000);
      await sleep(1_500);
      await vscode.commands.executeCommand('corpusLens.showLog');
      await sleep(1_000);
      await vscode.commands.executeCommand('workbench.action.openSettings', 'corpusLens');
      await sleep(1_500);
      const screen = (await snapshot('panel-after-open-source')).join('\n');
      const now = api.panel.current;
      assert.equal(now.kind, 'results', `the panel keeps its results (lookups meanwhile: ${kinds.join(', ') || 'none'})`);
      const query = now.kind === 'results' ? now.query.clean : '';
      assert.match(query, /imitate the phrasing/, `the results are still those of the author's sentence, not of the source's: ${query}`);
      assert.doesNotMatch(screen, /The cursor is not in a prose sentence/);
    } finally {
      sub.dispose();
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });

  it('Connect to Corpus… on a folder of papers keeps the corpus in use and offers to index the folder instead', async () => {
    const dir = path.join(workspace, 'connect-papers');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'one.md'), '# One\n\nA paper in Markdown.\n');
    writeFileSync(path.join(dir, 'two.md'), '# Two\n\nAnother paper.\n');
    const config = () => vscode.workspace.getConfiguration('corpusLens');
    const before = { backend: config().get('corpus.backend'), path: config().get('corpus.path') };
    let done = false;
    const connecting = Promise.resolve(vscode.commands.executeCommand('corpusLens.connect')).finally(() => (done = true));
    await snapshot('connect-pick', 20_000, [
      { fill: '.quick-input-widget input', text: 'Embedded corpus in a folder' },
      { press: '.quick-input-widget input', key: 'Enter' },
    ]);
    await sleep(1_500);
    // VS Code's own folder picker (the simple dialog in the browser): the path typed, then accepted.
    await snapshot('connect-folder', 20_000, [{ fill: '.quick-input-widget input', text: `${dir}/` }]);
    for (let i = 0; i < 4 && !done; i++) {
      await sleep(1_000);
      await snapshot(`connect-accept-${i}`, 20_000, [{ press: '.quick-input-widget input', key: 'Enter' }]).catch(() => undefined);
    }
    await waitFor('Connect to finish', () => done, 20_000);
    await connecting;
    assert.deepEqual(
      { backend: config().get('corpus.backend'), path: config().get('corpus.path') },
      before,
      'the settings still name the corpus in use',
    );
    let screen = '';
    for (let i = 0; i < 10 && !/holds papers/.test(screen); i++) screen = (await snapshot('connect-folder-of-papers')).join('\n');
    assert.match(
      screen,
      /"connect-papers" holds papers \(2 files\), not a Corpus Lens corpus\. Still using/,
      "the extension's words, not the CLI's",
    );
    assert.match(screen, /Index this folder into the current corpus/);
    assert.doesNotMatch(screen, /give --db/);
    assert.doesNotMatch(screen, /connect-papers · /, 'the status bar stays on the corpus in use');
  });
});
