// A follow-up question made to stand alone before it is searched. With a chat model: the model rewrites it from the
// conversation (one call; an unusable reply falls back). Without one: a follow-up — a question that leans on the
// conversation (a pronoun, "the same", "what about", a leading "and"/"or"/"but", or no content word of its own) —
// gets the previous question's key terms appended, which is what the retrieval needs and never changes the user's
// words. A short question with words of its own ("What is the capital of Mongolia?") is a new topic, searched as
// itself: appending the last topic's terms would answer it from that topic's papers.
import { isStopWord } from '../text/stop-words.js';
import { isAbortError, type ChatModel, type TokenUsage } from '../llm/chat.js';
import { words } from '../text/match.js';
import { rewritePrompt } from './prompts.js';
import type { AskTurn } from './types.js';

const ANAPHOR =
  /\b(?:it|its|they|them|their|theirs|this|that|these|those|he|she|his|her|the same|such|what about|how about|either|one|ones|former|latter)\b/i;

/** An elliptical question continuing the last one: "And for dense retrievers?", "Or with re-ranking?". */
const ELLIPSIS = /^\s*(?:and|or|but|also|so)\b|\b(?:too|as well)\s*\?*\s*$/i;

/**
 * "it" and "that" that point at nothing earlier: the expletive "is it true that …" and the "that" of a reported
 * clause ("evidence that …", "show that …"). Removed before the anaphor test, so such a question stands alone.
 */
const NON_ANAPHORIC = [
  /(?<=\b(?:true|evidence|show|shows|showed|shown|find|finds|found|claim|claims|claimed|say|says|said|report|reports|reported|suggest|suggests|suggested|mean|means|argue|argues|known|know|fact|possible|likely|case|demonstrate|demonstrates|prove|proves|think|believe|so|such|confirm|confirms|conclude|concludes|idea|hypothesis|assumption|sure)\s+)that\b/gi,
  /\b(?:is|was|isn't|wasn't|does|did|would|will|can|could)\s+it\s+(?:true|possible|known|the case|likely|better|worse|worth|necessary|common|hard|easy|feasible|help|matter|pay off|take|make sense)\b/gi,
];

/** Question words that carry no topic. */
const QUESTION_WORDS = new Set(
  'what which who whom whose when where why how does do did is are was were can could would should many much about tell me please'.split(
    ' ',
  ),
);

function contentWords(text: string): string[] {
  return [...new Set(words(text).filter((w) => w.length > 2 && !isStopWord(w) && !QUESTION_WORDS.has(w)))];
}

/** Does `question` lean on the conversation (see the top of this file)? */
export function isFollowUp(question: string): boolean {
  const pointed = NON_ANAPHORIC.reduce((q, re) => q.replace(re, ' '), question);
  return ANAPHOR.test(pointed) || ELLIPSIS.test(question) || contentWords(question).length === 0;
}

/** Does `question` carry topic words of its own (the answerability gate reads those, not the rewrite's)? */
export function hasOwnTerms(question: string): boolean {
  return contentWords(question).length > 0;
}

/** The deterministic rewrite: the previous standalone question's content words the follow-up lacks, appended. */
export function rewriteWithTerms(question: string, previous: string): string {
  const own = new Set(contentWords(question));
  const added = contentWords(previous).filter((w) => !own.has(w));
  return added.length ? `${question.trim()} (${added.join(' ')})` : question.trim();
}

export interface Rewrite {
  standalone: string;
  rewrite: 'none' | 'llm' | 'terms';
  llmCalls: number;
  /** The model's usage, when it answered (cached or not). */
  usage?: TokenUsage;
  modelMs: number;
}

/** The standalone form of `question` given the earlier turns (the last three that asked something of the corpus). */
export async function standaloneQuestion(
  question: string,
  turns: readonly AskTurn[],
  chat: ChatModel | null,
  signal?: AbortSignal,
): Promise<Rewrite> {
  const history = turns.filter((t) => t.kind !== 'sources').slice(-3);
  if (!history.length) return { standalone: question.trim(), rewrite: 'none', llmCalls: 0, modelMs: 0 };
  if (chat) {
    const t0 = performance.now();
    try {
      const r = await chat.complete({
        step: 'rewrite',
        messages: rewritePrompt(
          question,
          history.map((t) => ({ question: t.standalone, answer: t.text })),
        ),
        signal,
        temperature: 0,
      });
      const line = r.text
        .trim()
        .split('\n')[0]
        .replace(/^["“']|["”']$/g, '')
        .trim();
      const modelMs = performance.now() - t0;
      const llmCalls = r.usage.cached ? 0 : 1;
      // A reply that is empty, or an essay rather than a question, is not used.
      if (line && line.length <= Math.max(400, question.length * 4))
        return { standalone: line, rewrite: 'llm', llmCalls, modelMs, usage: r.usage };
      return { ...termsRewrite(question, history), llmCalls, modelMs, usage: r.usage };
    } catch (err) {
      if (isAbortError(err)) throw err;
      return { ...termsRewrite(question, history), llmCalls: 1, modelMs: performance.now() - t0 };
    }
  }
  return termsRewrite(question, history);
}

function termsRewrite(question: string, history: readonly AskTurn[]): Rewrite {
  if (!isFollowUp(question)) return { standalone: question.trim(), rewrite: 'none', llmCalls: 0, modelMs: 0 };
  return { standalone: rewriteWithTerms(question, history[history.length - 1].standalone), rewrite: 'terms', llmCalls: 0, modelMs: 0 };
}
