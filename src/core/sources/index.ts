// Web sources of papers (arXiv, Semantic Scholar, OpenAlex) and the user's bibliography, all producing the ingest
// paper model and written through the ingest pipeline.
import { searchArxiv } from './arxiv.js';
import { searchOpenAlex } from './openalex.js';
import { searchS2 } from './semantic-scholar.js';
import type { Candidate, SearchOptions, SearchSource, SourceContext } from './types.js';

export * from './types.js';
export { sourcesConfig, sourceContext } from './context.js';
export { parseArxivAtom } from './arxiv.js';
export { candidatesFromBib, candidatesFromIds } from './bibliography.js';
export { readFullText } from './fulltext.js';
export { fetchToCorpus, progressLine, type FetchSummary } from './fetch.js';

/** Search one source for candidates. */
export function search(ctx: SourceContext, source: SearchSource, query: string, options: SearchOptions = {}): Promise<Candidate[]> {
  if (source === 'arxiv') return searchArxiv(ctx, query, options);
  if (source === 's2') return searchS2(ctx, query, options);
  return searchOpenAlex(ctx, query, options);
}
