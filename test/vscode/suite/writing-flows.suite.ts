// Documented flows clicked through as an author does (issue 31): Generate Related Work → Insert at Cursor adds the
// cited papers' BibTeX as Cite does, one draft editor reused by every run and reachable again after it is closed.
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { snapshot } from './snapshot.js';
import { waitFor } from './wait.js';

const workspace = () => process.env.CORPUS_LENS_TEST_WORKSPACE!;

const drafts = () => vscode.workspace.textDocuments.filter((d) => d.isUntitled && d.getText().includes('Corpus Lens evidence outline'));

describe('Writing flows (issue 31)', function () {
  this.timeout(180_000);

  it('Generate Related Work → Insert at Cursor: one undoable edit, every cited key in the .bib once, one draft editor reused, Show Last Related Work', async () => {
    // A paper with its own .bib that already holds one sample paper under the corpus's key.
    const dir = workspace();
    const samplesBib = readFileSync(
      path.join(
        vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens')!.extensionPath,
        'samples',
        'corpus',
        'references.bib',
      ),
      'utf8',
    );
    const held = /@\w+\{marchetti2022sentenceretrieval,[\s\S]*?\n\}/.exec(samplesBib)?.[0];
    assert.ok(held, 'the sample .bib has the marchetti entry');
    writeFileSync(path.join(dir, 'rw-refs.bib'), `${held}\n`);
    const paperPath = path.join(dir, 'rw-paper.tex');
    writeFileSync(
      paperPath,
      '\\documentclass{article}\n\\begin{document}\n\\section{Related Work}\n\n\\section{Method}\nWe index sentences.\n\\bibliography{rw-refs}\n\\end{document}\n',
    );
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(paperPath), vscode.ViewColumn.One);
    const topic = 'retrieving example sentences for academic writing';
    await vscode.commands.executeCommand('corpusLens.generateRelatedWork', { topic });
    // Untitled editors shown after the first run: the second run must show no new one. (textDocuments alone is not
    // counted: it also holds documents other suites of this host closed and VS Code has not yet disposed.)
    const shownUntitled = () =>
      new Set(vscode.window.visibleTextEditors.filter((e) => e.document.isUntitled).map((e) => e.document.uri.toString()));
    const afterFirst = shownUntitled();
    await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('corpusLens.generateRelatedWork', { topic: 'sentence retrieval for writers' });
    assert.equal(drafts().length, 1, 'a second run writes into the same draft editor');
    assert.deepEqual(
      [...shownUntitled()].filter((u) => !afterFirst.has(u)),
      [],
      'the second run opens no new Untitled editor',
    );

    await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
    const at = editor.document.positionAt(editor.document.getText().indexOf('\\section{Method}'));
    editor.selection = new vscode.Selection(at, at);
    const original = editor.document.getText();
    await vscode.commands.executeCommand('corpusLens.insertRelatedWork');
    const text = editor.document.getText();
    assert.ok(text.includes('% Corpus Lens evidence outline'), 'inserted at the cursor');
    // The outline cites as \cite{key} in its prose and [key] in its commented evidence lines.
    const inserted = text.slice(editor.document.offsetAt(at), text.length - (original.length - original.indexOf('\\section{Method}')));
    const keys = [
      ...new Set([
        ...[...inserted.matchAll(/\\cite\{([^}]+)\}/g)].flatMap((m) => m[1].split(',').map((k) => k.trim())),
        ...[...inserted.matchAll(/\[([a-z]+\d{4}[a-z]*)\]/g)].map((m) => m[1]),
      ]),
    ];
    assert.ok(keys.length >= 3, `cites corpus papers: ${keys.join(', ')}`);
    const bib = await waitFor('the cited entries in rw-refs.bib', () => {
      const b = readFileSync(path.join(dir, 'rw-refs.bib'), 'utf8');
      return keys.every((k) => b.includes(`{${k},`)) && b;
    });
    for (const key of keys) assert.equal(bib.split(`{${key},`).length - 1, 1, `rw-refs.bib has ${key} once`);
    assert.equal(bib.split('{marchetti2022sentenceretrieval,').length - 1, 1, 'the entry it had is not added again');

    await vscode.window.showTextDocument(editor.document, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('undo');
    assert.equal(editor.document.getText(), original, 'one undo removes the inserted text');
    await editor.document.save();

    // The draft closed, the result is still reachable.
    const draft = drafts()[0];
    await vscode.window.showTextDocument(draft);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await waitFor('the draft closed', () => drafts().length === 0 || drafts().every((d) => d.isClosed));
    await vscode.commands.executeCommand('corpusLens.showLastRelatedWork');
    const again = await waitFor('the draft shown again', () =>
      vscode.window.visibleTextEditors.find((e) => e.document.isUntitled && e.document.getText().includes('Corpus Lens evidence outline')),
    );
    assert.ok(
      keys.every((k) => again.document.getText().includes(k)),
      'the last result, citations and all',
    );
    await snapshot('related-work-show-last');
  });
});
