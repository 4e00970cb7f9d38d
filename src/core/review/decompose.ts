// Step 2: decompose the topic into a rewritten query for semantic search, a keyword query, and filters (years,
// venues). With an LLM its JSON fields; without one (or when it fails) the rule set of
// retrieve/question-filters.ts. Either way the words that stated a filter ("since 2020") are left out of the searches.
import { z } from 'zod';
import { describeFilters, filtersFromText, hasQuestionFilters, withoutPhrases } from '../retrieve/question-filters.js';
import type { ChatModel } from '../llm/chat.js';
import { completeJson } from '../llm/json.js';
import { decomposePrompt } from './prompts.js';
import type { StepContext } from '../grounding/index.js';
import type { Decomposition } from './types.js';

const year = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((v) => {
    if (v === null || v === undefined || v === '') return null;
    const n = typeof v === 'number' ? v : Number(String(v).trim());
    return Number.isInteger(n) ? n : NaN;
  })
  .refine((n) => n === null || Number.isInteger(n), 'a year must be an integer or null');

export const DecomposeSchema = z.object({
  rewritten_query: z.string().trim().min(1, 'rewritten_query must not be empty'),
  keyword_query: z.string().optional().default(''),
  year_min: year,
  year_max: year,
  venues: z
    .array(z.string())
    .nullable()
    .optional()
    .transform((v) => (v ?? []).map((s) => s.trim()).filter(Boolean)),
  filter_phrases: z
    .array(z.string())
    .nullable()
    .optional()
    .transform((v) => (v ?? []).map((s) => s.trim()).filter(Boolean)),
});

/**
 * The decomposition used without an LLM: the topic itself for both searches, less the words of the filters the
 * rule set reads in it (years; venues among `venueNames`, the corpus's own).
 */
export function ruleDecomposition(topic: string, venueNames: readonly string[], ctx?: StepContext): Decomposition {
  const f = filtersFromText(topic, { venues: venueNames });
  const d: Decomposition = {
    rewrittenQuery: f.query,
    keywordQuery: f.query,
    yearMin: f.yearMin,
    yearMax: f.yearMax,
    venues: f.venues,
    filterPhrases: f.phrases,
  };
  if (ctx) noteFilters(d, 'rules', ctx);
  return d;
}

/** The filters in the step's trace: "filters (rules): years 2020 on; venue ACL — from "since 2020", "at ACL"". */
function noteFilters(d: Decomposition, by: 'rules' | 'llm', ctx: StepContext): void {
  if (!hasQuestionFilters(d)) return;
  const from = d.filterPhrases.length ? ` — from "${d.filterPhrases.join('", "')}"` : '';
  ctx.note(`filters (${by}): ${describeFilters(d)}${from}`);
}

/**
 * The model's venues that some paper of the corpus is from (a case-insensitive part of its venue); a venue no paper
 * is from would leave nothing to search, so it is dropped with a note. A store that cannot list its papers: all kept.
 * The filters applied go in the step's trace.
 */
export function corpusVenuesOnly(d: Decomposition, corpusVenues: readonly string[], ctx: StepContext): Decomposition {
  const lower = corpusVenues.map((v) => v.toLowerCase());
  const known = lower.length ? d.venues.filter((v) => lower.some((c) => c.includes(v.toLowerCase()))) : d.venues;
  const unknown = d.venues.filter((v) => !known.includes(v));
  if (unknown.length) ctx.note(`no paper of the corpus is from ${unknown.join(', ')}: that venue filter is not applied`);
  const checked = { ...d, venues: known };
  noteFilters(checked, 'llm', ctx);
  return checked;
}

export async function decompose(topic: string, chat: ChatModel, ctx: StepContext): Promise<Decomposition> {
  const { value, repaired } = await completeJson(chat, {
    step: 'decompose',
    messages: decomposePrompt(topic),
    schema: DecomposeSchema,
    signal: ctx.signal,
    onUsage: (u) => ctx.usage(u),
  });
  if (repaired) ctx.count('repairs');
  let yearMin = value.year_min;
  let yearMax = value.year_max;
  const plausible = (y: number | null) => y === null || (y >= 1800 && y <= 2200);
  if (!plausible(yearMin) || !plausible(yearMax)) {
    ctx.note(`implausible year filter ${yearMin}–${yearMax} ignored`);
    yearMin = yearMax = null;
  }
  if (yearMin !== null && yearMax !== null && yearMin > yearMax) [yearMin, yearMax] = [yearMax, yearMin];
  // A model that copies "since 2020" into a query would make the year a search term; the years of the filter
  // likewise in the keywords.
  const phrases = value.filter_phrases.filter((p) => topic.toLowerCase().includes(p.toLowerCase()));
  const rewrittenQuery = withoutPhrases(value.rewritten_query, phrases);
  const filterYears = [yearMin, yearMax].filter((x) => x !== null).map(String);
  const keywords = value.keyword_query
    .split(/\s+/)
    .filter((w) => !filterYears.includes(w))
    .join(' ');
  const d: Decomposition = {
    rewrittenQuery,
    keywordQuery: withoutPhrases(keywords, phrases).trim() || rewrittenQuery,
    yearMin,
    yearMax,
    venues: value.venues,
    filterPhrases: phrases,
  };
  return d;
}
