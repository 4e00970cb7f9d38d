// Step 6: plan (LLM) — the verified quotes clustered into sections (dimensions), each with a name, a format
// (paragraph | list) and the quotes it uses. Unknown quote ids are dropped and counted; a quote is used once.
import { z } from 'zod';
import type { ChatModel } from '../llm/chat.js';
import { completeJson } from '../llm/json.js';
import { planPrompt } from './prompts.js';
import { ReviewError } from './trace.js';
import type { StepContext } from '../grounding/index.js';
import type { PaperCandidate, PlannedSection, VerifiedQuote } from './types.js';

const sectionSchema = z.object({
  name: z.string().trim().min(1, 'a section needs a name'),
  format: z
    .string()
    .optional()
    .transform((f) => (/list|bullet|enum/i.test(f ?? '') ? ('list' as const) : ('paragraph' as const))),
  quotes: z.array(z.union([z.string(), z.number()]).transform((q) => String(q))),
});

export const PlanSchema = z.union([
  z.object({ sections: z.array(sectionSchema).min(1, 'at least one section') }).transform((o) => o.sections),
  z.object({ dimensions: z.array(sectionSchema).min(1, 'at least one section') }).transform((o) => o.dimensions),
]);

function quoteId(raw: string): string {
  const m = /^\[?\s*Q?\s*(\d+)\s*\]?$/i.exec(raw.trim());
  return m ? `Q${Number(m[1])}` : raw.trim();
}

export async function planSections(
  topic: string,
  papers: readonly PaperCandidate[],
  quotes: readonly VerifiedQuote[],
  chat: ChatModel,
  ctx: StepContext,
): Promise<PlannedSection[]> {
  const { value, repaired } = await completeJson(chat, {
    step: 'plan',
    messages: planPrompt(topic, papers, quotes),
    schema: PlanSchema,
    signal: ctx.signal,
    onUsage: (u) => ctx.usage(u),
  });
  if (repaired) ctx.count('repairs');
  const known = new Set(quotes.map((q) => q.id));
  const used = new Set<string>();
  const sections: PlannedSection[] = [];
  for (const s of value) {
    const ids: string[] = [];
    for (const raw of s.quotes) {
      const id = quoteId(raw);
      if (!known.has(id)) {
        ctx.count('unknownQuoteIds');
        continue;
      }
      if (used.has(id)) {
        ctx.count('reusedQuoteIds');
        continue;
      }
      used.add(id);
      ids.push(id);
    }
    if (!ids.length) {
      ctx.count('emptySections');
      continue;
    }
    sections.push({ name: s.name.replace(/\s+/g, ' ').slice(0, 120), format: s.format, quoteIds: ids });
  }
  ctx.set('sections', sections.length);
  ctx.set('unusedQuotes', quotes.length - used.size);
  if (!sections.length) throw new ReviewError('plan', 'the plan assigned no verified quote to any section');
  return sections;
}
