// The packaged extension (.vsix) installed into VS Code, not the development folder: it activates on a
// LaTeX paper and finds similar sentences, so the package holds everything it needs (bundles, PGlite).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';

const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;

describe('the installed .vsix', function () {
  it('activates on a LaTeX paper and fills the panel from the sample corpus', async () => {
    const doc = await vscode.workspace.openTextDocument(path.join(workspace, 'paper.tex'));
    const editor = await vscode.window.showTextDocument(doc);
    const ext = vscode.extensions.getExtension<{ panel: { current: { kind: string } } }>('corpus-lens.corpus-lens');
    assert.ok(ext, 'installed from the .vsix');
    assert.ok(!ext.extensionPath.includes('/main'), `loaded from the extensions folder: ${ext.extensionPath}`);
    const until = Date.now() + 20_000;
    while (!ext.isActive && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    assert.ok(ext.isActive, 'activated by onLanguage:latex');
    const offset = doc.getText().indexOf('Novice authors often imitate') + 3;
    editor.selection = new vscode.Selection(doc.positionAt(offset), doc.positionAt(offset));
    await vscode.commands.executeCommand('corpusLens.findSimilar');
    const deadline = Date.now() + 30_000;
    while (ext.exports.panel.current.kind !== 'results' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(ext.exports.panel.current.kind, 'results');
  });
});
