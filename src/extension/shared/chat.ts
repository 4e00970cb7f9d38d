// The chat model the user configured, shared by Generate Related Work and Ask the Corpus; null when no LLM is
// configured (both then work offline). corpusLens.llm.provider "openai": the endpoint at corpusLens.llm.baseUrl with
// the key from SecretStorage bound to that host; "vscode": VS Code's own language models (lm-chat.ts), no key.
import * as vscode from 'vscode';
import type { ChatModel } from '../../core/llm/chat.js';
import { heavy } from '../load.js';
import type { LmHost } from './lm-chat.js';
import type { Secrets } from './secrets.js';
import { readSettings } from './settings.js';

const lmHost: LmHost = {
  lm: vscode.lm,
  user: (content) => vscode.LanguageModelChatMessage.User(content),
  assistant: (content) => vscode.LanguageModelChatMessage.Assistant(content),
  cancellation: () => new vscode.CancellationTokenSource(),
};

/** Where the endpoint's answers are kept between runs (the extension's global storage); set at activation. */
let answersDir: string | undefined;

export function keepChatAnswersIn(dir: string): void {
  answersDir = dir;
}

export async function configuredChat(secrets: Secrets, scope?: vscode.Uri): Promise<ChatModel | null> {
  const { llm } = readSettings(scope);
  if (llm.provider === 'vscode') return vscodeChat(llm.model);
  if (!llm.baseUrl) return null;
  return heavy().openChat({
    baseURL: llm.baseUrl,
    model: llm.model,
    fallbackModel: llm.fallbackModel || undefined,
    apiKey: (await secrets.get('chat', llm.baseUrl)) ?? 'none',
    cacheDir: llm.cache ? answersDir : undefined,
  });
}

/** A VS Code language model (`model` picks one by id or family, else the first offered); throws when there is none. */
export async function vscodeChat(model: string, lm: vscode.LanguageModelChat | undefined = undefined): Promise<ChatModel> {
  const h = heavy();
  return new h.LanguageModelChat(lmHost, lm ?? (await h.selectLanguageModel(lmHost, model)));
}
