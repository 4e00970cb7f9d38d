// The extension's settings, read in one place. Settings that decide where text or keys are sent are
// declared `machine`-scoped in package.json, and read here from the user's own settings only, so a cloned
// repository's .vscode/settings.json can never redirect them.
import * as vscode from 'vscode';

export type Backend = 'embedded' | 'postgres' | 'supabase';
import type { CitationCommand } from '../../core/bib/cite.js';

export type { CitationCommand };

export interface Settings {
  corpus: { backend: Backend; path: string; url: string; schema: 'corpusLens' | 'corpusStudio' };
  embedding: {
    provider: 'offline' | 'openai' | 'neural';
    baseUrl: string;
    model: string;
    dimensions: number | null;
    prefixTitle: boolean;
    /** Query/document prefixes: the model family's preset, none, or the two custom strings. */
    prefixes: 'auto' | 'none' | 'custom';
    queryPrefix: string;
    documentPrefix: string;
  };
  results: { count: number; threshold: number };
  trigger: 'auto' | 'manual';
  debounceMs: number;
  hoverEnabled: boolean;
  citation: { command: CitationCommand; bibFile: string };
  originality: { enabled: boolean; severity: 'information' | 'warning' };
  /** openai: the OpenAI-compatible endpoint at baseUrl; vscode: VS Code's own language models (vscode.lm). */
  llm: { provider: 'openai' | 'vscode'; baseUrl: string; model: string; fallbackModel: string; cache: boolean };
  /** The web sources of Add Papers (base URLs for mirrors; the contact goes in the User-Agent and OpenAlex's mailto). */
  sources: { contact: string; openLicenseOnly: boolean; arxivUrl: string; arxivApiUrl: string; s2Url: string; openalexUrl: string };
  /** Zotero's data directory ('' = ~/Zotero) and Better BibTeX's JSON-RPC URL ('' = not used). */
  zotero: { dataDir: string; betterBibtexUrl: string };
  review: { unsupported: 'remove' | 'flag'; provenance: boolean; tables: boolean };
  /** Figure, table and equation cards per Ask answer at most (the Ask tab and @corpus). */
  ask: { maxElements: number };
}

/** Keys whose value only the user (not a workspace) may set. */
const MACHINE_KEYS = new Set([
  'corpus.backend',
  'corpus.url',
  'corpus.schema',
  'embedding.provider',
  'embedding.baseUrl',
  'embedding.model',
  'embedding.dimensions',
  'embedding.prefixes',
  'embedding.queryPrefix',
  'embedding.documentPrefix',
  'llm.provider',
  'llm.baseUrl',
  'llm.model',
  'llm.fallbackModel',
  // Where queries and API keys go: the user's choice, never a workspace's.
  'sources.arxivUrl',
  'sources.arxivApiUrl',
  'sources.semanticScholarUrl',
  'sources.openalexUrl',
  // Which library is read and which local service is asked: the user's, never a workspace's.
  'zotero.dataDir',
  'zotero.betterBibtexUrl',
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
      provider: get<'offline' | 'openai' | 'neural'>('embedding.provider', 'offline'),
      baseUrl: get('embedding.baseUrl', 'https://api.openai.com/v1'),
      model: get('embedding.model', 'text-embedding-3-small'),
      dimensions: get<number | null>('embedding.dimensions', null),
      prefixTitle: get('embedding.prefixTitle', false),
      prefixes: get<'auto' | 'none' | 'custom'>('embedding.prefixes', 'auto'),
      queryPrefix: get('embedding.queryPrefix', ''),
      documentPrefix: get('embedding.documentPrefix', ''),
    },
    results: { count: get('results.count', 25), threshold: get('results.threshold', 0.2) },
    trigger: get<'auto' | 'manual'>('trigger', 'auto'),
    debounceMs: get('debounceMs', 300),
    hoverEnabled: get('hover.enabled', true),
    citation: { command: get<CitationCommand>('citation.command', 'cite'), bibFile: get('citation.bibFile', '') },
    originality: {
      enabled: get('originality.enabled', true),
      severity: get<'information' | 'warning'>('originality.severity', 'information'),
    },
    llm: {
      provider: get<string>('llm.provider', 'openai') === 'vscode' ? 'vscode' : 'openai',
      baseUrl: get('llm.baseUrl', ''),
      model: get('llm.model', 'gpt-4o-mini'),
      fallbackModel: get('llm.fallbackModel', ''),
      cache: get('llm.cache', true),
    },
    sources: {
      contact: get('sources.contact', ''),
      openLicenseOnly: get('sources.openLicenseOnly', false),
      arxivUrl: get('sources.arxivUrl', ''),
      arxivApiUrl: get('sources.arxivApiUrl', ''),
      s2Url: get('sources.semanticScholarUrl', ''),
      openalexUrl: get('sources.openalexUrl', ''),
    },
    zotero: { dataDir: get('zotero.dataDir', ''), betterBibtexUrl: get('zotero.betterBibtexUrl', '') },
    review: {
      unsupported: get<'remove' | 'flag'>('review.unsupported', 'remove') === 'flag' ? 'flag' : 'remove',
      provenance: get('review.provenance', true),
      tables: get('review.tables', false),
    },
    ask: { maxElements: get('ask.maxElements', 3) },
  };
}
