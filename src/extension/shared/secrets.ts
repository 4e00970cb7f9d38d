// API keys live in VS Code's SecretStorage only, each bound to the host it was given for: a key entered
// for api.openai.com is never sent to any other host, whatever the settings later say.
import type * as vscode from 'vscode';

export type SecretKind = 'embedding' | 'chat' | 'supabase' | 'postgres' | 's2' | 'openalex';

/** The origin (scheme://host:port) a key is bound to; throws on a URL that cannot be parsed. */
export function originOf(url: string): string {
  const u = new URL(url);
  return u.origin !== 'null' ? u.origin : `${u.protocol}//${u.host}`; // postgres:// has no web origin
}

export class Secrets {
  constructor(private readonly storage: vscode.SecretStorage) {}

  private name(kind: SecretKind, url: string): string {
    return `corpusLens.${kind}@${originOf(url)}`;
  }

  get(kind: SecretKind, url: string): Thenable<string | undefined> {
    return this.storage.get(this.name(kind, url));
  }

  set(kind: SecretKind, url: string, value: string): Thenable<void> {
    return this.storage.store(this.name(kind, url), value);
  }

  delete(kind: SecretKind, url: string): Thenable<void> {
    return this.storage.delete(this.name(kind, url));
  }
}
