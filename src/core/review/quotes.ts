// Step 5: verbatim quotes per paper (LLM, one call per paper, bounded concurrency). Every quote is checked
// against that paper's stored sentences — exact on normalised text, else ≥ threshold approximate-substring
// similarity — and dropped (and counted) when it cannot be found. Quote fragments joined with "…" are split.
import { z } from 'zod';
import type { ChatModel } from '../llm/chat.js';
import { completeJson } from '../llm/json.js';
import { quotesPrompt } from './prompts.js';
import { verifyQuote } from '../text/match.js';
import { mapLimit, ReviewError } from './trace.js';
import { addressesModel, type StepContext } from '../grounding/index.js';
import type { PaperCandidate, PaperTextSource, VerifiedQuote } from './types.js';

const quoteItem = z.union([
  z.string(),
  z.object({ quote: z.string() }).transform((o) => o.quote),
  z.object({ text: z.string() }).transform((o) => o.text),
]);

export const QuotesSchema = z.union([z.object({ quotes: z.array(quoteItem) }).transform((o) => o.quotes), z.array(quoteItem)]);

/** Splits a quote at ellipses ("a … b" are two separate quotes to verify). */
export function splitQuote(q: string): string[] {
  return q
    .split(/\s*(?:\.\.\.|…|\[\.\.\.\]|\[…\])\s*/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface QuoteOptions {
  concurrency?: number;
  fuzzyThreshold?: number;
  maxPerPaper?: number;
}

export async function extractQuotes(
  topic: string,
  papers: readonly PaperCandidate[],
  chat: ChatModel,
  source: PaperTextSource,
  ctx: StepContext,
  options: QuoteOptions = {},
): Promise<VerifiedQuote[]> {
  const threshold = options.fuzzyThreshold ?? 0.9;
  const maxPerPaper = options.maxPerPaper ?? 6;
  let done = 0;
  const perPaper = await mapLimit(
    papers,
    options.concurrency ?? 4,
    async (paper) => {
      const { value, repaired } = await completeJson(chat, {
        step: 'quotes',
        messages: quotesPrompt(topic, paper),
        schema: QuotesSchema,
        signal: ctx.signal,
        onUsage: (u) => ctx.usage(u),
      });
      if (repaired) ctx.count('repairs');
      ctx.checkAborted();
      const proposed = value.flatMap(splitQuote).slice(0, maxPerPaper * 2);
      ctx.count('proposed', proposed.length);
      const out: Omit<VerifiedQuote, 'id'>[] = [];
      if (proposed.length) {
        const stored = await source.paperSentences(paper.paper.id, ctx.signal);
        const passages = paper.passages.flatMap((h) => [h.previous?.text, h.sentence.text, h.next?.text]).filter((s): s is string => !!s);
        const sentences = [...stored, ...passages]; // passages are stored text too (and cover the keyword fallback)
        const seen = new Set<string>();
        for (const q of proposed) {
          const m = verifyQuote(q, sentences, threshold);
          if (!m) {
            ctx.count('dropped');
            if (ctx.trace.notes.length < 10) ctx.note(`dropped (not in ${paper.shortId}): "${q.slice(0, 80)}"`);
            continue;
          }
          if (addressesModel(m.text)) {
            // Stored text, but an order to a model: never evidence (instructions.ts).
            ctx.count('instructions');
            if (ctx.trace.notes.length < 10)
              ctx.note(`not evidence (text addressing a model, in ${paper.shortId}): "${m.text.slice(0, 80)}"`);
            continue;
          }
          const key = m.text.toLowerCase();
          if (seen.has(key)) {
            ctx.count('duplicates');
            continue;
          }
          seen.add(key);
          ctx.count(m.match === 'exact' ? 'exact' : 'fuzzy');
          if (out.length < maxPerPaper) {
            out.push({ paperShortId: paper.shortId, paperId: paper.paper.id, text: m.text, match: m.match, similarity: m.similarity });
          }
        }
      }
      ctx.progress(`quotes from ${++done}/${papers.length} papers`, done, papers.length);
      return out;
    },
    ctx.signal,
  );
  let n = 0;
  const quotes = perPaper.flat().map((q) => ({ id: `Q${++n}`, ...q }));
  ctx.set('verified', quotes.length);
  ctx.set('papersWithQuotes', new Set(quotes.map((q) => q.paperId)).size);
  ctx.count('dropped', 0);
  if (!quotes.length) throw new ReviewError('quotes', 'no quote could be verified against the stored text of the retrieved papers');
  return quotes;
}
