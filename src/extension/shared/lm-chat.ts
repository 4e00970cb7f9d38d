// VS Code's own language models (`vscode.lm`: Copilot's, or any chat extension's) behind the core's ChatModel, so an
// author with a chat model in VS Code needs no API key for Ask and Generate Related Work. Written against the few
// members of the API it uses (structurally: `vscode.lm` and `vscode.LanguageModelChatMessage` fit), so it runs under
// the unit tests without VS Code; chat.ts passes the real ones.
import type { ChatModel, ChatRequest, ChatResult } from '../../core/llm/chat.js';
import { estimateTokens, LlmError } from '../../core/llm/chat.js';

/** What VS Code shows in its consent dialog, the first time a model is used. */
export const LM_JUSTIFICATION = 'Corpus Lens answers your questions and drafts related work from the papers in your corpus.';

export interface LmCancellation {
  readonly isCancellationRequested: boolean;
}

export interface LmChatModel {
  readonly id: string;
  readonly name: string;
  readonly vendor: string;
  readonly family: string;
  sendRequest(
    messages: unknown[],
    options?: { justification?: string },
    token?: LmCancellation,
  ): PromiseLike<{ text: AsyncIterable<string> }>;
}

export interface LmApi {
  selectChatModels(selector?: Record<string, string>): PromiseLike<readonly LmChatModel[]>;
}

/** The VS Code pieces the adapter needs: the lm API, message constructors, a cancellation source. */
export interface LmHost {
  lm: LmApi;
  user(content: string): unknown;
  assistant(content: string): unknown;
  cancellation(): { token: LmCancellation; cancel(): void; dispose(): void };
}

/** VS Code has no chat model to offer (no chat extension, not signed in), or none matches. */
export class NoLanguageModelError extends Error {
  constructor() {
    super(
      'corpusLens.llm.provider is "vscode", but VS Code offers no chat model: install and sign in to a chat extension ' +
        '(e.g. GitHub Copilot Chat), or set corpusLens.llm.provider to "openai" with corpusLens.llm.baseUrl',
    );
    this.name = 'NoLanguageModelError';
  }
}

/**
 * The model to use: the one whose id or family is `wanted` (corpusLens.llm.model), else the first VS Code offers —
 * the setting's default names an OpenAI model, which a VS Code chat extension may not call that way.
 */
export async function selectLanguageModel(host: LmHost, wanted: string): Promise<LmChatModel> {
  const models = await host.lm.selectChatModels();
  if (!models.length) throw new NoLanguageModelError();
  return models.find((m) => m.id === wanted) ?? models.find((m) => m.family === wanted) ?? models[0];
}

/** A VS Code language model as the core's ChatModel. */
export class LanguageModelChat implements ChatModel {
  readonly model: string;

  constructor(
    private readonly host: LmHost,
    private readonly lm: LmChatModel,
  ) {
    this.model = `vscode:${lm.vendor}/${lm.family || lm.id}`;
  }

  async complete(req: ChatRequest): Promise<ChatResult> {
    // The API has user and assistant messages only: a system prompt goes first, as the user's opening message.
    const messages = req.messages.map((m) => (m.role === 'assistant' ? this.host.assistant(m.content) : this.host.user(m.content)));
    const source = this.host.cancellation();
    const onAbort = () => source.cancel();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (req.signal?.aborted) throw abortError(req.signal);
      const response = await this.lm.sendRequest(messages, { justification: LM_JUSTIFICATION }, source.token);
      let text = '';
      for await (const fragment of response.text) {
        if (req.signal?.aborted) throw abortError(req.signal);
        text += fragment;
        req.onToken?.(fragment);
      }
      if (req.signal?.aborted) throw abortError(req.signal);
      const promptTokens = req.messages.reduce((n, m) => n + estimateTokens(m.content) + 4, 0);
      const completionTokens = estimateTokens(text);
      return {
        text,
        usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true },
        attempts: 1,
      };
    } catch (err) {
      if (req.signal?.aborted) throw abortError(req.signal);
      throw new LlmError(req.step, 'connection', lmFailure(err, this.lm), undefined, { cause: err });
    } finally {
      req.signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const err = new Error('the request was cancelled', { cause: reason });
  err.name = 'AbortError';
  return err;
}

/** One line on what went wrong, by vscode.LanguageModelError's code where there is one. */
export function lmFailure(err: unknown, lm: Pick<LmChatModel, 'name' | 'vendor'>): string {
  const code = (err as { code?: unknown } | null)?.code;
  const who = `the VS Code language model "${lm.name}" (${lm.vendor})`;
  const detail = err instanceof Error ? err.message.split('\n')[0] : String(err);
  switch (code) {
    case 'NoPermissions':
      return `${who} may not be used: Corpus Lens was not allowed to (the consent was declined). Allow it when VS Code asks, or set corpusLens.llm.provider to "openai"`;
    case 'Blocked':
      return `${who} refused the request (blocked, e.g. a rate or quota limit): ${detail}`;
    case 'NotFound':
      return `${who} is no longer available (its extension was disabled or signed out)`;
    default:
      return `${who} failed: ${detail}`;
  }
}
