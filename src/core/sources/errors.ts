// What a failed web request means to the user, said once for the CLI, the extension and the fetch report: a host
// that cannot be reached is "cannot reach arXiv (no network?)", named by the source it serves; "not found" stays
// for a source that answered 404. Other failures keep their first line (URL and status), which says what failed.
import { UnreachableError } from '../net/http.js';
import type { SourcesConfig } from './types.js';

/** The source a URL belongs to ("arXiv", "Semantic Scholar", "OpenAlex"), else its host. */
function sourceName(url: string, config: SourcesConfig): string {
  const host = new URL(url).host.toLowerCase();
  const names: [string, string][] = [
    [config.arxivApiUrl, 'arXiv'],
    [config.arxivUrl, 'arXiv'],
    [config.s2Url, 'Semantic Scholar'],
    [config.openalexUrl, 'OpenAlex'],
  ];
  return names.find(([u]) => new URL(u).host.toLowerCase() === host)?.[1] ?? host;
}

/** One line for a failure of a web source: "cannot reach arXiv (no network?)", "https://…: HTTP 503 …". */
export function describeSourceError(e: unknown, config: SourcesConfig): string {
  if (e instanceof UnreachableError) return `cannot reach ${sourceName(e.url, config)} (no network?)`;
  return e instanceof Error ? e.message.split('\n')[0] : String(e);
}
