// Move Corpus to PostgreSQL… (issue 31.1) in a real VS Code, from the command, with the panel open and lookups
// going on while the copy runs: the copy must not find the corpus held by this window's own corpus process, and
// the panel then shows results from the server. The harness starts a real PostgreSQL and passes its URL.
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import type { ViewState } from '../../../webview/protocol.js';
import { snapshot } from './snapshot.js';
import { waitFor } from './wait.js';

const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;
const serverUrl = process.env.CORPUS_LENS_TEST_PG_URL!;

async function api(): Promise<CorpusLensApi> {
  const ext = vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens') as vscode.Extension<CorpusLensApi>;
  return ext.activate();
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

/** The Corpus Lens log of this session (what Show Log shows). */
function logText(a: CorpusLensApi): string {
  const session = path.dirname(path.dirname(a.logUri.fsPath));
  return filesUnder(session)
    .filter((f) => /Corpus Lens/.test(path.basename(f)))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

const TEXT = [
  '# Notes',
  '',
  'Authors who write in a second language often imitate the phrasing of papers they have read.',
  'Retrieval tools show similar sentences from a corpus of prior papers while the author writes each.',
  '',
].join('\n');

describe('Opening the corpus (issue 31.14)', function () {
  it('opens the corpus when a paper becomes visible, before any lookup, saying so in the status bar', async function () {
    this.timeout(90_000);
    const file = path.join(workspace, 'warm.md');
    writeFileSync(file, TEXT);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file), vscode.ViewColumn.One);
    const a = await api();
    const lines = await waitFor(
      'the corpus opened ahead of the first lookup',
      () => /corpus opened ahead of the first lookup in \d+ ms/.exec(logText(a))?.[0],
      60_000,
    );
    assert.doesNotMatch(logText(a), /lookup failed/);
    console.log(lines);
  });
});

describe('Move Corpus to PostgreSQL (issue 31.1)', function () {
  it('moves the embedded corpus to a real server while the panel looks up, then looks up on the server', async function () {
    this.timeout(150_000);
    assert.ok(serverUrl, 'the harness passes CORPUS_LENS_TEST_PG_URL');
    const file = path.join(workspace, 'move.md');
    writeFileSync(file, TEXT);
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file), vscode.ViewColumn.One);
    const a = await api();
    await vscode.commands.executeCommand('corpusLens.openPanel');
    await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
    const at = (probe: string) => {
      const pos = editor.document.positionAt(editor.document.getText().indexOf(probe) + 3);
      editor.selection = new vscode.Selection(pos, pos);
    };
    at('imitate the phrasing');
    await vscode.commands.executeCommand('corpusLens.findSimilar');
    const before = await waitFor(
      'results from the embedded corpus',
      () => (a.panel.current.kind === 'results' ? a.panel.current : undefined),
      60_000,
    );
    assert.equal(before.kind, 'results');

    const moving = vscode.commands.executeCommand('corpusLens.moveToPostgres');
    // The server URL, then the password (trust authentication: none).
    await snapshot('move-url', 20_000, [
      { fill: '.quick-input-widget input', text: serverUrl },
      { press: '.quick-input-widget input', key: 'Enter' },
    ]);
    await new Promise((r) => setTimeout(r, 500));
    await snapshot('move-password', 20_000, [{ press: '.quick-input-widget input', key: 'Enter' }]);
    // The author keeps writing while the copy runs: cursor moves, lookups, the panel's own refreshes.
    let tick = 0;
    const outcome = await waitFor(
      'the move to end (settings switched or an error logged)',
      () => {
        if (tick++ % 3 === 0) {
          at(tick % 2 ? 'imitate the phrasing' : 'Retrieval tools show');
          void vscode.commands.executeCommand('corpusLens.findSimilar');
        }
        if (vscode.workspace.getConfiguration('corpusLens').get('corpus.backend') === 'postgres') return 'moved';
        const failed = /moving the corpus failed: (.*)/.exec(logText(a));
        return failed ? `failed: ${failed[1]}` : undefined;
      },
      120_000,
    );
    await moving;
    assert.equal(outcome, 'moved', outcome);
    assert.doesNotMatch(logText(a), /in use by process/);

    at('Retrieval tools show');
    const after = await waitFor(
      'results from the server',
      () => {
        const s = a.panel.current as ViewState;
        return s.kind === 'results' && s.corpusName.includes('127.0.0.1') ? s : undefined;
      },
      60_000,
    );
    assert.ok(after.kind === 'results' && after.hits.length > 0, 'the panel shows hits from the server');
    const screen = (await snapshot('moved-to-postgres')).join('\n');
    assert.match(screen, /moved \d+ papers and \d+ sentences to 127\.0\.0\.1/, 'the notification says what was moved');
  });
});
