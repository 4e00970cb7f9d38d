// What a question will cost with a chat model, told before it runs: the calls Ask makes (the follow-up rewrite when
// the conversation has earlier questions, the answer, the verification of its sentences), costed by the estimator
// related work uses (grounding/cost.ts). An upper bound: a question the evidence does not answer stops before the
// answer call ("I don't know"), and answers from the response cache cost nothing.
import { estimateCalls, INSTRUCTIONS, QUOTE, type CallEstimate, type StepCalls } from '../grounding/index.js';
import { isSourceQuestion } from './conversation.js';
import type { Conversation } from './types.js';

/** Earlier turns the rewrite reads (rewrite.ts), each a question and an answer cut to 600 characters. */
const REWRITE_TURNS = 3;
const TURN_TOKENS = 170;
/** A paper's header line in the answer prompt (id, title, authors, year). */
const PAPER_HEADER = 25;
/** An answer of a few sentences, and what the verification replies per answer. */
const ANSWER = 150;
const VERDICTS = 100;

export interface AskEstimate extends CallEstimate {
  /** What it assumed, in words (shown with it). */
  basis: string;
}

/** The cost ahead of `question` in `conversation`; null when it makes no model call ("where did you find that?"). */
export function estimateAsk(
  conversation: Conversation,
  question: string,
  o: { evidence: number; papers?: number; verify: boolean },
): AskEstimate | null {
  if (isSourceQuestion(question.trim())) return null;
  const earlier = Math.min(REWRITE_TURNS, conversation.turns.filter((t) => t.kind !== 'sources').length);
  const papers = o.papers ?? o.evidence;
  const questionTokens = Math.ceil(question.split(/\s+/).length * 1.5);
  const evidence = o.evidence * QUOTE + papers * PAPER_HEADER;
  const steps: StepCalls[] = [
    { n: earlier ? 1 : 0, prompt: INSTRUCTIONS + earlier * TURN_TOKENS + questionTokens, completion: 30, parallel: 1 }, // rewrite
    { n: 1, prompt: INSTRUCTIONS + questionTokens + evidence, completion: ANSWER, parallel: 1 }, // answer
    ...(o.verify ? [{ n: 1, prompt: INSTRUCTIONS + evidence + ANSWER, completion: VERDICTS, parallel: 1 }] : []), // check
  ];
  const basis = [`${o.evidence} evidence sentences`, earlier ? 'a follow-up rewrite' : null, o.verify ? 'verified' : null]
    .filter(Boolean)
    .join(', ');
  return { ...estimateCalls(steps), basis };
}
