// Web sources of papers (arXiv, Semantic Scholar, OpenAlex) and the user's bibliography, all producing the ingest
// paper model and written through the ingest pipeline.
import { searchArxiv } from './arxiv.js';
import { searchOpenAlex } from './openalex.js';
import { searchS2 } from './semantic-scholar.js';
import { describeSourceError } from './errors.js';
import type { Candidate, SearchOptions, SearchSource, SourceContext } from './types.js';

export * from './types.js';
export { sourcesConfig, sourceContext } from './context.js';
export { parseArxivAtom } from './arxiv.js';
export { candidatesFromBib, candidatesFromIds } from './bibliography.js';
export { readFullText } from './fulltext.js';
export { entryName, entryStatus, fetchToCorpus, nothingFetched, progressLine, type FetchSummary } from './fetch.js';

/** Search one source for candidates; a failure is thrown as one line ("cannot reach arXiv (no network?)"), the request as its cause. */
export async function search(ctx: SourceContext, source: SearchSource, query: string, options: SearchOptions = {}): Promise<Candidate[]> {
  try {
    if (source === 'arxiv') return await searchArxiv(ctx, query, options);
    if (source === 's2') return await searchS2(ctx, query, options);
    return await searchOpenAlex(ctx, query, options);
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    throw new Error(describeSourceError(e, ctx.config), { cause: e });
  }
}
