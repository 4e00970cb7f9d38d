// OpenAI-compatible chat access for the core (no 'vscode' import): a client with retries, timeouts,
// streaming and usage counts, schema-validated JSON replies with one repair retry, and the configured model with
// its response cache and fallback (open.ts).
export * from './chat.js';
export * from './json.js';
export { openChat } from './open.js';
