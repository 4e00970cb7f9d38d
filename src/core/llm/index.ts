// OpenAI-compatible chat access for the core (no 'vscode' import): a client with retries, timeouts,
// streaming and usage counts, and schema-validated JSON replies with one repair retry.
export * from './chat.js';
export * from './json.js';
