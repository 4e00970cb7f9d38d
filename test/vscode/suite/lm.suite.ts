// Ask with corpusLens.llm.provider = "vscode" inside a real VS Code: the model is one VS Code itself offers through
// `vscode.lm` (the scripted model of test/vscode/chat-model/, loaded by the harness), so this is the path of an author
// whose chat extension provides the model and who has no API key. Runs after the offline Ask suite.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AskTurn } from '../../../src/core/ask/types.js';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import type { ScriptedModelApi } from '../chat-model/extension.js';
import { CHAT_MODEL_EXTENSION } from '../chat-model/id.js';
import { snapshot } from './snapshot.js';
import { setUserSettings } from './wait.js';

describe('Ask through a language model VS Code offers (corpusLens.llm.provider = vscode)', function () {
  this.timeout(120_000);

  it('selects the model VS Code offers, streams its prose, keeps only cited and supported sentences, and says which model answered', async () => {
    const modelExtension = vscode.extensions.getExtension<ScriptedModelApi>(CHAT_MODEL_EXTENSION);
    assert.ok(modelExtension, 'the harness loaded the scripted chat model extension');
    const model = modelExtension.isActive ? modelExtension.exports : await modelExtension.activate();
    let offered: readonly vscode.LanguageModelChat[] = [];
    for (let i = 0; i < 50 && !offered.length; i++) {
      offered = await vscode.lm.selectChatModels({ vendor: 'corpus-lens-tests' });
      if (!offered.length) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(offered.length, 1, 'VS Code offers the scripted model');
    const ext = vscode.extensions.getExtension<CorpusLensApi>('corpus-lens.corpus-lens');
    assert.ok(ext);
    const api = ext.isActive ? ext.exports : await ext.activate();

    await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    await setUserSettings('corpusLens', { 'llm.provider': 'vscode' });
    try {
      const question = 'Which HNSW parameters reach recall@10 of 0.98 on small sentence corpora?';
      const turn = await vscode.commands.executeCommand<AskTurn | undefined>('corpusLens.ask', { question });
      assert.ok(turn, 'the command returns the turn it added');
      assert.equal(turn.kind, 'answer', `an LLM answer, not the offline extract: ${turn.text}`);
      assert.equal(turn.model, 'vscode:corpus-lens-tests/scripted');
      const answerCalls = model.calls.filter((c) => c.step === 'answer');
      assert.equal(answerCalls.length, 1, `one answer request: ${JSON.stringify(model.calls)}`);
      assert.equal(answerCalls[0].extensionId, 'corpus-lens.corpus-lens', 'Corpus Lens itself asked the model');
      const kept = turn.sentences.filter((s) => s.kept);
      assert.ok(kept.length >= 1, 'at least one sentence survives the check');
      for (const s of kept) {
        assert.ok(s.citations.length >= 1, `every kept sentence cites its quotes: ${s.text}`);
        assert.notEqual(s.verdict, 'unsupported', s.text);
      }
      const sources = api.ask.conversation().sources;
      for (const n of turn.citations)
        assert.ok(
          sources.some((s) => s.n === n),
          `[${n}] is in the source list`,
        );
      assert.match(turn.text, /Prior work reports that/, "the model's prose, not stored sentences");

      // The Ask tab shows the checked answer with its numbered citations.
      let screen = '';
      for (let i = 0; i < 20 && !screen.includes('Prior work reports that'); i++) {
        await new Promise((r) => setTimeout(r, 300));
        screen = (await snapshot('vscode-ask-lm')).join('\n');
      }
      assert.ok(screen.includes('Prior work reports that'), `the tab shows the model's answer:\n${screen.slice(0, 2000)}`);
    } finally {
      await setUserSettings('corpusLens', { 'llm.provider': 'openai' });
      await vscode.commands.executeCommand('corpusLens.clearAskConversation');
    }
  });
});
