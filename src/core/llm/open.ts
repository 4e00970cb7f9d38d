// The chat model a user configures, put together once for the CLI and VS Code: the endpoint's model, its answers
// cached on disk (cache.ts) unless turned off, and a fallback model (fallback.ts) when one is named.
import { CachedChat } from './cache.js';
import { OpenAIChat, type ChatModel, type OpenAIChatOptions } from './chat.js';
import { FallbackChat } from './fallback.js';

export interface ChatSetup {
  baseURL: string;
  model: string;
  apiKey?: string;
  /** Tried when the primary times out, answers 5xx/429 after retries, or does not know its model. */
  fallbackModel?: string;
  /** The response cache's folder; undefined: no cache. */
  cacheDir?: string;
  timeoutMs?: number;
  /** More of the client's options (retries, headers). */
  client?: Partial<OpenAIChatOptions>;
}

export function openChat(setup: ChatSetup): ChatModel {
  // The host and path of the endpoint, not its key: another account on the same server gets the same answers.
  let scope = setup.baseURL;
  try {
    const u = new URL(setup.baseURL);
    scope = `${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    // OpenAIChat refuses it below, with its own message.
  }
  const one = (model: string): ChatModel => {
    const chat = new OpenAIChat({ ...setup.client, baseURL: setup.baseURL, model, apiKey: setup.apiKey, timeoutMs: setup.timeoutMs });
    return setup.cacheDir ? new CachedChat(chat, { dir: setup.cacheDir, scope }) : chat;
  };
  const primary = one(setup.model);
  const fallback = setup.fallbackModel?.trim();
  return fallback && fallback !== setup.model ? new FallbackChat(primary, one(fallback)) : primary;
}
