// The extension's settings, read in one place. Settings that decide where text or keys are sent are
// declared `machine`-scoped in package.json, and read here from the user's own settings only, so a cloned
// repository's .vscode/settings.json can never redirect them.
import * as vscode from 'vscode';

export type Backend = 'embedded' | 'postgres' | 'supabase';
export type CitationCommand = 'cite' | 'citep' | 'citet' | 'autocite' | 'parencite';

export interface Settings {
  corpus: { backend: Backend; path: string; url: string; schema: 'corpusLens' | 'corpusStudio' };
  embedding: { provider: 'offline' | 'openai'; baseUrl: string; model: string; dimensions: number | null; prefixTitle: boolean };
  results: { count: number; threshold: number };
  trigger: 'auto' | 'manual';
  debounceMs: number;
  hoverEnabled: boolean;
  citation: { command: CitationCommand; bibFile: string };
  originality: { enabled: boolean; severity: 'information' | 'warning' };
  llm: { baseUrl: string; model: string };
}

/** Keys whose value only the user (not a workspace) may set. */
const MACHINE_KEYS = new Set([
  'corpus.backend', 'corpus.url', 'corpus.schema', 'embedding.provider', 'embedding.baseUrl', 'embedding.model', 'embedding.dimensions',
  'llm.baseUrl', 'llm.model',
]);

export function readSettings(scope?: vscode.ConfigurationScope): Settings {
  const config = vscode.workspace.getConfiguration('corpusLens', scope);
  const get = <T>(key: string, fallback: T): T => {
    if (MACHINE_KEYS.has(key)) {
      const info = config.inspect<T>(key);
      return (info?.globalValue ?? info?.defaultValue ?? fallback) as T;
    }
    return config.get<T>(key, fallback);
  };
  return {
    corpus: {
      backend: get<Backend>('corpus.backend', 'embedded'),
      path: get('corpus.path', ''),
      url: get('corpus.url', ''),
      schema: get<'corpusLens' | 'corpusStudio'>('corpus.schema', 'corpusLens'),
    },
    embedding: {
      provider: get<'offline' | 'openai'>('embedding.provider', 'offline'),
      baseUrl: get('embedding.baseUrl', 'https://api.openai.com/v1'),
      model: get('embedding.model', 'text-embedding-3-small'),
      dimensions: get<number | null>('embedding.dimensions', null),
      prefixTitle: get('embedding.prefixTitle', false),
    },
    results: { count: get('results.count', 25), threshold: get('results.threshold', 0.2) },
    trigger: get<'auto' | 'manual'>('trigger', 'auto'),
    debounceMs: get('debounceMs', 300),
    hoverEnabled: get('hover.enabled', true),
    citation: { command: get<CitationCommand>('citation.command', 'cite'), bibFile: get('citation.bibFile', '') },
    originality: { enabled: get('originality.enabled', true), severity: get<'information' | 'warning'>('originality.severity', 'information') },
    llm: { baseUrl: get('llm.baseUrl', ''), model: get('llm.model', 'gpt-4o-mini') },
  };
}
