// Which corpus is in use, the ones used recently, and the way back: Connect offers the recent corpora and the
// sample corpus; a corpus that fails to open offers "Go back to <the last one that worked>".
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readSettings, type Settings } from '../shared/settings.js';

/** A corpus as the settings name it (never with credentials: those stay in secret storage). */
export interface CorpusChoice {
  backend: Settings['corpus']['backend'];
  path: string;
  url: string;
  schema: Settings['corpus']['schema'];
}

const RECENT_KEY = 'corpusLens.recentCorpora';
const MAX_RECENT = 8;

export function currentChoice(settings = readSettings()): CorpusChoice {
  const { backend, path: p, url, schema } = settings.corpus;
  return { backend, path: backend === 'embedded' ? p : '', url: backend === 'embedded' ? '' : withoutPassword(url), schema };
}

/** A URL without its password (kept in secret storage, never in the list of recent corpora). */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

export function sameChoice(a: CorpusChoice, b: CorpusChoice): boolean {
  return a.backend === b.backend && a.path === b.path && a.url === b.url && a.schema === b.schema;
}

/** How the user knows a corpus: "sample corpus", a folder name, a database host and name. */
export function choiceLabel(c: CorpusChoice, samplePath?: string): string {
  if (c.backend === 'embedded') {
    if (!c.path) return 'the default corpus';
    if (samplePath && path.resolve(c.path) === path.resolve(samplePath)) return 'the sample corpus';
    return path.basename(c.path);
  }
  try {
    const u = new URL(c.url);
    return `${u.host}${u.pathname.length > 1 ? u.pathname : ''}`;
  } catch {
    return c.backend;
  }
}

export class CorpusHistory {
  /** The last corpus that opened with papers in it (this session). */
  private lastGood: CorpusChoice | undefined;

  constructor(private readonly state: vscode.Memento) {}

  /** Records a corpus that opened: it becomes the way back and the first of the recent ones. */
  async opened(choice: CorpusChoice): Promise<void> {
    this.lastGood = choice;
    const list = [choice, ...this.recent().filter((c) => !sameChoice(c, choice))].slice(0, MAX_RECENT);
    await this.state.update(RECENT_KEY, list);
  }

  recent(): CorpusChoice[] {
    return this.state.get<CorpusChoice[]>(RECENT_KEY, []);
  }

  /** The corpus to go back to when the configured one fails: the last that worked, if it is not the current one. */
  fallback(current = currentChoice()): CorpusChoice | undefined {
    const previous = this.lastGood ?? this.recent()[0];
    return previous && !sameChoice(previous, current) ? previous : undefined;
  }
}

/** Makes `choice` the corpus in use (user settings). */
export async function useChoice(choice: CorpusChoice): Promise<void> {
  const config = vscode.workspace.getConfiguration('corpusLens');
  const global = vscode.ConfigurationTarget.Global;
  await config.update('corpus.backend', choice.backend, global);
  if (choice.backend === 'embedded') await config.update('corpus.path', choice.path, global);
  else await config.update('corpus.url', choice.url, global);
  await config.update('corpus.schema', choice.schema, global);
}
