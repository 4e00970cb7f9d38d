// The optional LLM verdict (a chat model configured): the citing sentence and the cited paper's closest sentences
// go to the model inside the data fence; it answers supported / contradicted / not enough information and names
// the sentence it judged by. As review's verify step, the answer is schema-checked (one repair) and the quote
// must be one of the sentences sent: a verdict without one, or a failed call, leaves the offline verdict standing
// (the reason says so). Sentences that address a model are never sent as evidence. The verdict's quality is the
// configured model's.
import { z } from 'zod';
import type { ChatMessage, ChatModel } from '../llm/chat.js';
import { isAbortError } from '../llm/chat.js';
import { CORPUS_TAG, DATA_RULE, fence, line, TOPIC_TAG } from '../llm/fence.js';
import { completeJson } from '../llm/json.js';
import { addressesModel } from '../grounding/index.js';
import type { Evidence } from './types.js';

export type LlmVerdict = 'supported' | 'contradicted' | 'not-enough-info';

const verdict = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .transform((v) =>
    /^(?:contradict|refut|opposite)/.test(v)
      ? 'contradicted'
      : /^(?:not|no\b|nei|insufficient|unsupported|unknown)/.test(v)
        ? 'not-enough-info'
        : /^(?:support|yes|entail)/.test(v)
          ? 'supported'
          : null,
  )
  .refine((v) => v !== null, 'verdict must be "supported", "contradicted" or "not enough information"')
  .transform((v) => v as LlmVerdict);

export const CiteVerdictSchema = z.object({
  verdict,
  quote: z
    .union([z.string(), z.number(), z.null()])
    .optional()
    .transform((v) =>
      v === null || v === undefined
        ? null
        : String(v)
            .replace(/[[\]\s]/g, '')
            .toUpperCase(),
    ),
  reason: z.string().optional().default(''),
});

/** The prompt: the author's sentence (user data) and the paper's sentences (corpus data), each fenced. */
export function citeVerdictPrompt(sentence: string, paperTitle: string | null, evidence: readonly Evidence[]): ChatMessage[] {
  const rows = evidence.map((e, i) => `[E${i + 1}] ${line(e.text)}`);
  return [
    {
      role: 'system',
      content:
        'Corpus Lens citation checker — step: citecheck.\n' +
        'An author cites a paper for a sentence. Judge from the numbered sentences of the cited paper only whether the paper ' +
        'says what the author attributes to it: "supported" when a sentence states it (numbers, methods and direction of ' +
        'findings included), "contradicted" when a sentence states the opposite or a different result, "not enough information" ' +
        'otherwise. Name the one sentence you judged by.\n' +
        'Return ONLY a JSON object: {"verdict": "supported" | "contradicted" | "not enough information", "quote": "E1", "reason": "one short line"}.\n\n' +
        DATA_RULE,
    },
    {
      role: 'user',
      content:
        `The author's sentence:\n${fence(TOPIC_TAG, line(sentence))}\n` +
        `The cited paper${paperTitle ? ` ("${line(paperTitle)}")` : ''}, its closest sentences:\n${fence(CORPUS_TAG, rows.join('\n'))}`,
    },
  ];
}

export interface LlmJudgement {
  verdict: LlmVerdict;
  /** The sentence it judged by (one of those sent), or null when it named none it was given. */
  quote: Evidence | null;
  reason: string;
}

/** Asks the model; null when the call fails (the offline verdict then stands). Cancellation still rejects. */
export async function judgeWithLlm(
  chat: ChatModel,
  sentence: string,
  paperTitle: string | null,
  evidence: readonly Evidence[],
  signal?: AbortSignal,
): Promise<LlmJudgement | { error: string }> {
  const sent = evidence.filter((e) => !addressesModel(e.text));
  if (!sent.length) return { error: 'no sentence of the paper could be sent to the model' };
  try {
    const { value } = await completeJson(chat, {
      step: 'citecheck',
      messages: citeVerdictPrompt(sentence, paperTitle, sent),
      schema: CiteVerdictSchema,
      signal,
    });
    const m = /^E(\d+)$/.exec(value.quote ?? '');
    const quote = m ? (sent[Number(m[1]) - 1] ?? null) : null;
    return { verdict: value.verdict, quote, reason: value.reason.trim() };
  } catch (err) {
    if (isAbortError(err)) throw err;
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
