// Ask the Corpus inside a real VS Code, offline (no LLM configured: extractive answers), on the sample corpus the
// harness indexed: a question, a follow-up, "where did you find that?", the answer document beside the editor, the
// conversation kept in the workspace state and cleared. Runs after the other suites; it adds nothing to the corpus.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AskTurn } from '../../../src/core/ask/types.js';
import { escapeMarkdownText as esc } from '../../../src/core/text/escape-markdown.js';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import { snapshot } from './snapshot.js';
import { setUserSettings, waitFor } from './wait.js';

function extension(): vscode.Extension<CorpusLensApi> {
  const ext = vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens') as vscode.Extension<CorpusLensApi> | undefined;
  assert.ok(ext, 'the extension under development is loaded');
  return ext;
}

/** The answer document once it shows `question` as the latest one (it re-renders after the state is saved). */
function answerDocument(question: string): Promise<vscode.TextDocument> {
  return waitFor(`the answer document showing "${question}"`, () =>
    vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'corpus-lens-ask' && d.getText().includes(`## ${esc(question)}\n`)),
  );
}

const ask = (question: string) => vscode.commands.executeCommand<AskTurn | undefined>('corpusLens.ask', { question });

describe('Ask the Corpus', function () {
  this.timeout(120_000);
  let api: CorpusLensApi;

  before(async () => {
    const ext = extension();
    api = ext.isActive ? ext.exports : await ext.activate();
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
  });

  it('answers from the sample papers with numbered sources beside the editor; a follow-up and "where did you find that?" use the history; clearing forgets it', async () => {
    const samples = path.join(extension().extensionPath, 'samples', 'corpus');
    const q1 = 'Which HNSW parameters reach recall@10 of 0.98 on small sentence corpora?';
    const t1 = await ask(q1);
    assert.ok(t1, 'the command returns the turn');
    assert.equal(t1.kind, 'extract', 'no LLM configured: an extract of the evidence');
    assert.ok(t1.citations.length >= 2, `cites several sentences: ${t1.citations}`);
    let doc = await answerDocument(q1);
    assert.ok(vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.label.includes('Ask the Corpus.md'))), 'the answer is shown, rendered, beside the paper');
    let screen = '';
    for (let i = 0; i < 20 && !screen.includes(q1); i++) {
      await new Promise((r) => setTimeout(r, 300));
      screen = (await snapshot('ask-answer')).join('\n');
    }
    assert.ok(screen.includes(q1), 'the rendered answer shows the question as the author wrote it, no escapes');
    assert.ok(screen.includes('[1]'), 'its citations read [1], [2], …');
    assert.equal(doc.languageId, 'markdown');
    let c = api.ask.conversation();
    assert.equal(c.turns.length, 1, 'the conversation is saved in the workspace state');
    const text1 = doc.getText();
    assert.ok(text1.includes('### Sources'), text1);
    for (const n of t1.citations) {
      const s = c.sources[n - 1];
      assert.ok(s.citationKey && (existsSync(path.join(samples, `${s.citationKey}.tex`)) || existsSync(path.join(samples, `${s.citationKey}.md`))), `[${n}] is a sample paper: ${s.citationKey}`);
      assert.ok(text1.includes(`- \\[${n}\\] **${esc(s.title!)}** \\(${esc(s.citationKey)}, ${s.year}\\), section “${esc(s.section!)}”: “${esc(s.text)}”`), `source [${n}] listed with its sentence:\n${text1}`);
      assert.ok(text1.includes(`\\[${n}\\]`), `the answer cites [${n}]`);
    }
    assert.ok(c.sources.some((s) => s.citationKey === 'mwangi2022hnswtuning' && /recall@10 of 0\.98/.test(s.text)), 'the HNSW paper’s sentence that answers it');
    assert.ok(!/<[a-z]/i.test(text1), 'no HTML in the document');

    const q2 = 'Below what size is exact search as fast as it?';
    const t2 = await ask(q2);
    assert.ok(t2);
    assert.equal(t2.rewrite, 'terms', 'the follow-up is searched with the previous question’s terms');
    assert.match(t2.text, /50,000 vectors/);
    assert.ok(t2.citations.some((n) => t1.citations.includes(n)), 'a sentence cited again keeps its number from the first answer');
    doc = await answerDocument(q2);
    const text2 = doc.getText();
    assert.ok(text2.includes(`_Searched as:_ ${esc(t2.standalone)}`), text2);
    assert.ok(text2.includes(`### Earlier in this conversation\n\n- ${esc(q1)}`), text2);

    const q3 = 'Where did you find that?';
    const t3 = await ask(q3);
    assert.ok(t3);
    assert.equal(t3.kind, 'sources');
    assert.deepEqual(t3.citations, t2.citations, 'the previous answer’s sources');
    doc = await answerDocument(q3);
    c = api.ask.conversation();
    assert.equal(c.turns.length, 3);
    const text3 = doc.getText();
    assert.ok(text3.includes('Sources of the previous answer:'), text3);
    for (const n of t2.citations) assert.ok(text3.includes(`- \\[${n}\\] **${esc(c.sources[n - 1].title!)}**`), `source [${n}] listed:\n${text3}`);

    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    c = api.ask.conversation();
    assert.deepEqual([c.turns.length, c.sources.length], [0, 0], 'cleared');
    await waitFor('the document to show the cleared conversation', () => doc.getText().includes('No questions yet'));
    const after = await ask(q3);
    assert.equal(after?.kind, 'sources');
    assert.deepEqual(after.citations, [], 'nothing to give sources for after clearing');
    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
  });

  it('without a corpus says so instead of failing, and leaves the conversation alone', async () => {
    const before = vscode.workspace.getConfiguration('corpusLens').inspect<string>('corpus.path')?.globalValue;
    await setUserSettings('corpusLens', { 'corpus.path': path.join(process.env.CORPUS_LENS_TEST_WORKSPACE!, 'no-corpus-here') });
    try {
      const turn = await ask('Which HNSW parameters reach recall@10 of 0.98 on small sentence corpora?');
      assert.equal(turn, undefined, 'no answer, and no rejected command');
      assert.equal(api.ask.conversation().turns.length, 0);
    } finally {
      await setUserSettings('corpusLens', { 'corpus.path': before });
    }
  });
});
