// The chat model the user configured (corpusLens.llm.*, the key from SecretStorage bound to that host), shared by
// Generate Related Work and Ask the Corpus; null when no LLM is configured (both then work offline).
import type * as vscode from 'vscode';
import type { ChatModel } from '../core/llm/chat.js';
import { heavy } from './load.js';
import type { Secrets } from './secrets.js';
import { readSettings } from './settings.js';

export async function configuredChat(secrets: Secrets, scope?: vscode.Uri): Promise<ChatModel | null> {
  const { llm } = readSettings(scope);
  if (!llm.baseUrl) return null;
  return new (heavy().OpenAIChat)({ baseURL: llm.baseUrl, model: llm.model, apiKey: (await secrets.get('chat', llm.baseUrl)) ?? 'none' });
}
