// The packaged extension (.vsix) installed into VS Code, not the development folder: it activates on a
// LaTeX paper and finds similar sentences, so the package holds everything it needs (bundles, PGlite). The
// per-platform .vsix also brings the native vector index (usearch and its binary): its test gives a corpus past the
// exact-scan size, indexed without that index, and the installed extension must build it and look up through it.
import * as assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;
/** The corpus folder of the per-platform .vsix's round (its test skips while another corpus is configured). */
const nativeCorpus = process.env.CORPUS_LENS_TEST_NATIVE_CORPUS;

async function waitUntil(what: string, ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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

  it('builds the native vector index in the corpus folder and answers through it (per-platform .vsix)', async function () {
    // The universal .vsix's round, in the same code-server before the per-platform one is installed, has another corpus.
    if (!nativeCorpus || vscode.workspace.getConfiguration('corpusLens').get('corpus.path') !== nativeCorpus) return this.skip();
    const ext = vscode.extensions.getExtension<{ panel: { current: { kind: string; hits?: unknown[] } } }>('corpus-lens.corpus-lens')!;
    // The first lookup opened the corpus; its process builds the missing index from the stored vectors.
    const indexFiles = () => readdirSync(nativeCorpus).filter((f) => /\.usearch$/.test(f));
    await waitUntil('the native index file in the corpus folder', () => indexFiles().length > 0, 60_000);
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: 'Writers reuse phrases from prior papers.\n' });
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(doc.positionAt(3), doc.positionAt(3));
    const before = ext.exports.panel.current;
    await vscode.commands.executeCommand('corpusLens.findSimilar');
    await waitUntil('results', () => ext.exports.panel.current !== before && ext.exports.panel.current.kind === 'results', 30_000);
    assert.ok((ext.exports.panel.current.hits?.length ?? 0) > 0, 'hits');
    assert.equal(indexFiles().length, 1, indexFiles().join(', '));
  });
});
