// VS Code's language models as the core's ChatModel (src/extension/shared/lm-chat.ts), against a stand-in of the few
// `vscode.lm` members it uses. The stand-in's limits: responses are scripted fragment lists; errors carry the `code`
// that vscode.LanguageModelError has (NoPermissions when the user declines consent, Blocked, NotFound); it does not
// show VS Code's consent dialog, so the "declined" case is the error VS Code throws after it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAbortError, LlmError } from '../../../../src/core/llm/chat.js';
import {
  LanguageModelChat,
  NoLanguageModelError,
  selectLanguageModel,
  type LmChatModel,
  type LmHost,
} from '../../../../src/extension/shared/lm-chat.js';

interface Sent {
  messages: unknown[];
  justification?: string;
  token?: { isCancellationRequested: boolean };
}

function model(id: string, family: string, reply: (sent: Sent) => AsyncIterable<string> | Error, sent: Sent[] = []): LmChatModel {
  return {
    id,
    name: `Model ${id}`,
    vendor: 'copilot',
    family,
    async sendRequest(messages, options, token) {
      const s = { messages, justification: options?.justification, token };
      sent.push(s);
      const r = reply(s);
      if (r instanceof Error) throw r;
      return { text: r };
    },
  };
}

function host(models: LmChatModel[]): LmHost {
  return {
    lm: { selectChatModels: async () => models },
    user: (content) => ({ role: 'user', content }),
    assistant: (content) => ({ role: 'assistant', content }),
    cancellation: () => {
      const token = { isCancellationRequested: false };
      return { token, cancel: () => void (token.isCancellationRequested = true), dispose: () => undefined };
    },
  };
}

async function* fragments(parts: string[]): AsyncIterable<string> {
  for (const p of parts) {
    await new Promise((r) => setTimeout(r, 1));
    yield p;
  }
}

const codeError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('LanguageModelChat', () => {
  test('streams the fragments to onToken and returns the whole text; a system prompt goes as the first user message', async () => {
    const sent: Sent[] = [];
    const chat = new LanguageModelChat(
      host([]),
      model('gpt-4o', 'gpt-4o', () => fragments(['Recall ', 'fell [P1', '].']), sent),
    );
    const seen: string[] = [];
    const r = await chat.complete({
      step: 'answer',
      messages: [
        { role: 'system', content: 'rules' },
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
      ],
      onToken: (d) => seen.push(d),
    });
    assert.equal(r.text, 'Recall fell [P1].');
    assert.deepEqual(seen, ['Recall ', 'fell [P1', '].']);
    assert.equal(r.usage.estimated, true);
    assert.deepEqual(sent[0].messages, [
      { role: 'user', content: 'rules' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ]);
    assert.match(sent[0].justification ?? '', /Corpus Lens/, 'VS Code shows why in its consent dialog');
    assert.equal(chat.model, 'vscode:copilot/gpt-4o');
  });

  test('declined consent, a blocked request, a vanished model: one line naming the step and what to do', async () => {
    const cases: [string, RegExp][] = [
      ['NoPermissions', /step "answer": .*"Model m".*not allowed.*consent was declined.*corpusLens\.llm\.provider/],
      ['Blocked', /step "answer": .*refused the request.*quota limit\): nope/],
      ['NotFound', /step "answer": .*no longer available/],
    ];
    for (const [code, expected] of cases) {
      const chat = new LanguageModelChat(
        host([]),
        model('m', 'f', () => codeError(code, 'nope')),
      );
      await assert.rejects(chat.complete({ step: 'answer', messages: [{ role: 'user', content: 'q' }] }), (err: Error) => {
        assert.ok(err instanceof LlmError);
        assert.match(err.message, expected);
        assert.doesNotMatch(err.message, /\n/);
        return true;
      });
    }
  });

  test("the caller's abort cancels the request's token and rejects as an AbortError, mid-stream too", async () => {
    const sent: Sent[] = [];
    const ctl = new AbortController();
    async function* slow(): AsyncIterable<string> {
      yield 'first ';
      ctl.abort();
      await new Promise((r) => setTimeout(r, 5));
      yield 'second';
    }
    const chat = new LanguageModelChat(
      host([]),
      model('m', 'f', () => slow(), sent),
    );
    await assert.rejects(
      chat.complete({ step: 'answer', messages: [{ role: 'user', content: 'q' }], signal: ctl.signal, onToken: () => undefined }),
      (err: unknown) => isAbortError(err),
    );
    assert.equal(sent[0].token?.isCancellationRequested, true, 'VS Code is told to stop');
  });
});

describe('selectLanguageModel', () => {
  const models = [model('copilot-gpt-4.1', 'gpt-4.1', () => fragments([])), model('claude-x', 'claude-sonnet', () => fragments([]))];
  test('by id, then by family, else the first offered', async () => {
    assert.equal((await selectLanguageModel(host(models), 'claude-x')).id, 'claude-x');
    assert.equal((await selectLanguageModel(host(models), 'claude-sonnet')).id, 'claude-x');
    assert.equal((await selectLanguageModel(host(models), 'gpt-4o-mini')).id, 'copilot-gpt-4.1');
  });
  test('none offered: a clear error saying what to install or set', async () => {
    await assert.rejects(
      selectLanguageModel(host([]), 'gpt-4o-mini'),
      (err: Error) => err instanceof NoLanguageModelError && /no chat model.*GitHub Copilot Chat.*"openai"/.test(err.message),
    );
  });
});
