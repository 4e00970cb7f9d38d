// The search filters a person sets in the panel (year range, venue, section, paper), as the lookups take them. The
// store filters by year, venue, section and paper ids itself (sql/lookup.ts FILTER); a paper is named here the way a
// person knows it (its citation key, its id, or words of its title) and resolved to the ids of the papers it names.
import type { CorpusStore } from '../store/types.js';
import type { MatchOptions } from './index.js';

export interface SearchFilters {
  /** Inclusive publication-year range. */
  yearMin?: number | null;
  yearMax?: number | null;
  /** A case-insensitive part of the venue ("acl" matches "Proceedings of ACL 2020"). */
  venue?: string;
  /** A case-insensitive part of the section title ("related" matches "Related Work"). */
  section?: string;
  /** A paper's citation key or id (exact, any case), else a part of its title. */
  paper?: string;
}

/** Whether any filter is set. */
export function hasFilters(f: SearchFilters): boolean {
  return f.yearMin != null || f.yearMax != null || !!f.venue?.trim() || !!f.section?.trim() || !!f.paper?.trim();
}

/**
 * The papers a paper filter names: those whose citation key or id is the text (any case); failing that, those whose
 * title contains it. A store that cannot list its papers takes the text as a paper id. None named: an empty list (no
 * hits), never "no filter".
 */
export async function papersNamed(store: Pick<CorpusStore, 'listPapers'>, text: string): Promise<string[]> {
  const t = text.trim().toLowerCase();
  if (!store.listPapers) return [text.trim()];
  const papers = await store.listPapers();
  const exact = papers.filter((p) => p.id.toLowerCase() === t || p.citationKey?.toLowerCase() === t);
  if (exact.length) return exact.map((p) => p.id);
  return papers.filter((p) => p.title?.toLowerCase().includes(t)).map((p) => p.id);
}

/** The filters as match options (years, venue, section, paper ids). */
export async function filterOptions(
  store: Pick<CorpusStore, 'listPapers'>,
  f: SearchFilters,
): Promise<Pick<MatchOptions, 'years' | 'venue' | 'section' | 'paperIds'>> {
  const years = f.yearMin != null || f.yearMax != null ? { min: f.yearMin ?? undefined, max: f.yearMax ?? undefined } : undefined;
  return {
    years,
    venue: f.venue?.trim() || undefined,
    section: f.section?.trim() || undefined,
    paperIds: f.paper?.trim() ? await papersNamed(store, f.paper) : undefined,
  };
}
