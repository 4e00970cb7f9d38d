// Step 2: decompose the topic (LLM) into a rewritten query for semantic search, a keyword query, and filters.
import { z } from 'zod';
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
});

/** The decomposition used when there is no LLM: the topic itself for both searches, no filters. */
export function identityDecomposition(topic: string): Decomposition {
  return { rewrittenQuery: topic, keywordQuery: topic, yearMin: null, yearMax: null, venues: [] };
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
  return {
    rewrittenQuery: value.rewritten_query,
    keywordQuery: value.keyword_query.trim() || value.rewritten_query,
    yearMin,
    yearMax,
    venues: value.venues,
  };
}
