// The LLM verification of the check step (when a chat model is configured and `verify` is not off): one call per
// section with every sentence the offline check kept and the quotes of the papers it cites; the reply is
// validated (zod, one repair). "unsupported" overrides the offline verdict; "partial" is kept and reported. A
// verification that fails leaves the offline verdicts standing (noted in the trace): it never ends the run.
import { z } from 'zod';
import type { ChatModel } from '../llm/chat.js';
import { completeJson } from '../llm/json.js';
import { verifyPrompt } from './prompts.js';
import type { StepContext } from './trace.js';
import type { SentenceReport, VerifiedQuote } from './types.js';

const verdict = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .transform((v) =>
    /^(?:un|not|no\b)/.test(v) ? 'unsupported' : /^partial/.test(v) ? 'partial' : /^(?:supported|yes|fully)/.test(v) ? 'supported' : null,
  )
  .refine((v) => v !== null, 'verdict must be "supported", "partial" or "unsupported"')
  .transform((v) => v as 'supported' | 'partial' | 'unsupported');

const item = z.object({
  id: z.union([z.string(), z.number()]).transform((v) =>
    String(v)
      .replace(/[[\]\s]/g, '')
      .toUpperCase(),
  ),
  verdict,
});

export const VerifySchema = z.union([z.object({ verdicts: z.array(item) }).transform((o) => o.verdicts), z.array(item)]);

/** Asks the model about `sentences` (of one section); sets `llmVerdict` and downgrades the ones it calls unsupported. */
export async function verifySection(
  sentences: readonly SentenceReport[],
  quotes: ReadonlyMap<string, VerifiedQuote>,
  chat: ChatModel,
  ctx: StepContext,
): Promise<void> {
  const asked = sentences.filter((s) => s.verdict === 'supported');
  if (!asked.length) return;
  const items = asked.map((s) => ({
    id: s.id,
    sentence: s.text,
    quotes: s.quoteIds
      .map((id) => quotes.get(id))
      .filter((q): q is VerifiedQuote => !!q)
      .map((q) => ({ paper: q.paperShortId, text: q.text })),
  }));
  const { value, repaired } = await completeJson(chat, {
    step: 'verify',
    messages: verifyPrompt(items),
    schema: VerifySchema,
    signal: ctx.signal,
    onUsage: (u) => ctx.usage(u),
  });
  if (repaired) ctx.count('verifyRepairs');
  const byId = new Map(value.map((v) => [v.id, v.verdict]));
  for (const s of asked) {
    const v = byId.get(s.id.toUpperCase());
    if (!v) {
      ctx.count('verifyUnanswered');
      continue;
    }
    s.llmVerdict = v;
    ctx.count(`verify_${v}`);
    if (v === 'unsupported') {
      s.verdict = 'unsupported';
      s.reasons.push('the verification model judged it unsupported by its quotes');
    } else if (v === 'partial') s.verdict = 'partial';
  }
}
