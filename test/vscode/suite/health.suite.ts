// Inside a real VS Code (code-server 1.100): Corpus Lens: Corpus Health on the sample corpus the harness indexed —
// the report opens as a read-only Markdown document in VS Code's preview, with the corpus's papers by source.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import { snapshot } from './snapshot.js';

describe('Corpus Health', function () {
  it('Corpus Health: the report of the open corpus opens in the Markdown preview, counted as the store counts', async function () {
    this.timeout(180_000);
    const ext = vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens') as vscode.Extension<CorpusLensApi> | undefined;
    assert.ok(ext);
    const api = await ext.activate();
    await vscode.commands.executeCommand('corpusLens.corpusHealth');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: 'corpus-lens-health', path: '/Corpus Health.md' }));
    const text = doc.getText();
    const { store } = await api.corpus.connection();
    const counts = await store.counts();
    assert.match(text, /^# Corpus health\n/);
    assert.ok(text.includes(`${counts.papers} papers, ${counts.sentences} sentences;`), text.slice(0, 300));
    assert.match(text, /\| latex \| \d+ \| \d+ \|/);
    assert.match(text, /\| markdown \| \d+ \| \d+ \|/);
    // What the author sees: the rendered report in the preview (a webview: the harness reads its frames' text).
    if (process.env.CORPUS_LENS_TEST_SNAPSHOT) {
      const shown = `${counts.papers} papers, ${counts.sentences} sentences`;
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      for (let i = 0; i < 20 && !(await snapshot('corpus-health', 30_000)).join('\n').includes(shown); i++) await sleep(1000);
      // The text is in the preview's frame before a loaded machine paints it: the screenshot kept is one taken after.
      await sleep(3000);
      const seen = (await snapshot('corpus-health', 30_000)).join('\n');
      assert.ok(seen.includes(shown), seen.slice(Math.max(0, seen.indexOf('Corpus health'))).slice(0, 2000));
      assert.match(seen, /Corpus health/);
    }
  });
});
