// The filters a question states ("since 2020", "at ACL"), read by the rule set of retrieve/question-filters.ts
// (also with a chat model: Ask makes no extra model call for them), with the corpus's own venue names.
import { corpusVenues, filtersFromText, hasQuestionFilters, venueNames } from '../retrieve/question-filters.js';
import type { CorpusStore } from '../store/types.js';
import type { AskFilters } from './types.js';

/** A capital after the first letter: the only way a question can name a venue ("ACL", "NeurIPS", "Nature"). */
const MAY_NAME_VENUE = /.[A-Z]/s;

/**
 * The filters of the standalone question, the question to search (without the words that stated them) and the
 * question as asked without them (what the "I don't know" gate reads). No filter: `filters` is undefined.
 */
export async function questionFilters(
  store: Pick<CorpusStore, 'listPapers' | 'venues'>,
  standalone: string,
  asked: string,
): Promise<{ filters: AskFilters | undefined; query: string; asked: string }> {
  const venues = MAY_NAME_VENUE.test(standalone) ? venueNames(await corpusVenues(store)) : [];
  const f = filtersFromText(standalone, { venues });
  if (!hasQuestionFilters(f)) return { filters: undefined, query: standalone, asked };
  return {
    filters: { yearMin: f.yearMin, yearMax: f.yearMax, venues: f.venues, phrases: f.phrases },
    query: f.query,
    asked: filtersFromText(asked, { venues }).query,
  };
}
