// A language model that VS Code offers to every extension (`vscode.lm`), registered through the chat provider API
// (proposed in VS Code 1.100: `lm.registerChatModelProvider`, enabled for this test extension alone with
// code-server's --enable-proposed-api). It answers with the faithful scripted Ask model the CLI tests use behind the
// OpenAI stand-in, so the suite sees Corpus Lens's vscode provider path end to end: model selection, the messages it
// sends, streamed fragments, the checked answer. Limits: no consent dialog (VS Code asks only for models that declare
// an account; this one declares none), no token limits enforced, word overlap stands in for understanding.
import * as vscode from 'vscode';
import { faithfulAskModel } from '../../support/ask-models.js';
import type { ChatCall } from '../../support/chat-standin.js';

interface Fragment {
  index: number;
  part: vscode.LanguageModelTextPart;
}

interface ChatModelProvider {
  provideLanguageModelResponse(
    messages: readonly vscode.LanguageModelChatMessage[],
    options: unknown,
    extensionId: string,
    progress: vscode.Progress<Fragment>,
    token: vscode.CancellationToken,
  ): Thenable<unknown>;
  provideTokenCount(text: string | vscode.LanguageModelChatMessage, token: vscode.CancellationToken): Thenable<number>;
}

type Register = (id: string, provider: ChatModelProvider, metadata: Record<string, unknown>) => vscode.Disposable;

/** What the suite reads back: each request's caller and step, in order. */
export interface ScriptedModelApi {
  calls: { extensionId: string; step: string | null; messages: number }[];
}

function text(m: vscode.LanguageModelChatMessage): string {
  return m.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

export function activate(context: vscode.ExtensionContext): ScriptedModelApi {
  const api: ScriptedModelApi = { calls: [] };
  const script = faithfulAskModel();
  const register = (vscode.lm as unknown as { registerChatModelProvider: Register }).registerChatModelProvider;
  const provider: ChatModelProvider = {
    async provideLanguageModelResponse(messages, _options, extensionId, progress) {
      // The API has no system role: a caller sends its system prompt as the first user message (as Corpus Lens does).
      const plain = messages.map((m, i) => ({
        role: i === 0 ? 'system' : m.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user',
        content: text(m),
      }));
      const step = /step: ([a-z]+)/.exec(plain[0]?.content ?? '')?.[1] ?? null;
      api.calls.push({ extensionId, step, messages: plain.length });
      const call: ChatCall = { n: api.calls.length, at: Date.now(), body: {}, messages: plain, stream: true, step, hungUp: false };
      const reply = await script(call);
      const content = 'content' in reply ? reply.content : '';
      // Streamed in pieces, as a real model's fragments arrive.
      for (const piece of content.match(/[\s\S]{1,24}/g) ?? [])
        progress.report({ index: 0, part: new vscode.LanguageModelTextPart(piece) });
    },
    async provideTokenCount(t) {
      return Math.ceil((typeof t === 'string' ? t : text(t)).length / 4);
    },
  };
  context.subscriptions.push(
    register('scripted', provider, {
      vendor: 'corpus-lens-tests',
      name: 'Scripted test model',
      family: 'scripted',
      version: '1',
      maxInputTokens: 128_000,
      maxOutputTokens: 4_000,
    }),
  );
  return api;
}
