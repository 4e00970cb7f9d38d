// The prompts of "Ask the corpus": the follow-up rewrite and the answer. Same rules as the related-work prompts
// (review/prompts.ts, grounding/prompts.ts): corpus text and the user's words fenced as data (llm/fence.ts), papers
// by short id, the step named on the system prompt's first line.
import type { ChatMessage } from '../llm/chat.js';
import { CORPUS_TAG, DATA_RULE, fence, line, TOPIC_TAG } from '../llm/fence.js';
import { evidenceRows, type PaperCandidate, type VerifiedQuote } from '../grounding/index.js';

/** What the model says when the evidence does not answer the question. */
export const DONT_KNOW = "I don't know.";

function system(step: string, body: string): ChatMessage {
  return { role: 'system', content: `Corpus Lens question-answering assistant — step: ${step}.\n${body}\n\n${DATA_RULE}` };
}

/** Rewrites a follow-up into a question that stands alone, from the previous questions and answers. */
export function rewritePrompt(question: string, history: readonly { question: string; answer: string }[]): ChatMessage[] {
  const rows = history.flatMap((h, i) => [`Q${i + 1}: ${line(h.question)}`, `A${i + 1}: ${line(h.answer).slice(0, 600)}`]);
  return [
    system(
      'rewrite',
      'You rewrite the follow-up question of a conversation about research papers so that it can be understood ' +
        'without the conversation: resolve pronouns and references ("it", "that study", "the second one") from the ' +
        'earlier questions and answers. Keep its meaning; do not answer it. Reply with the rewritten question only, ' +
        'on one line. If it already stands alone, reply with it unchanged.',
    ),
    {
      role: 'user',
      content: `The conversation so far:\n${fence(CORPUS_TAG, rows.join('\n'))}\n\nThe follow-up question:\n${fence(TOPIC_TAG, line(question))}`,
    },
  ];
}

/** The answer, from evidence sentences grouped by paper (the related-work write step's data layout). */
export function answerPrompt(question: string, papers: readonly PaperCandidate[], quotes: readonly VerifiedQuote[]): ChatMessage[] {
  const rows = evidenceRows(papers, quotes);
  const ids = papers.map((p) => `[${p.shortId}]`).join(', ');
  return [
    system(
      'answer',
      'You answer a question about research papers from evidence sentences quoted from them, in a few sentences of ' +
        'plain prose.\nRules:\n' +
        `- Every sentence ends with the citation(s) of the papers whose quotes state it, in square brackets, using ONLY ` +
        `these paper ids: ${ids}. Several papers: [P1][P2].\n` +
        '- State only what the quotes state: no numbers, methods or findings that are not in them, nothing from memory.\n' +
        '- Never write author names with years as citations, and no \\cite commands or other citation formats.\n' +
        '- Paraphrase: never reuse 12 or more consecutive words of a quote. If exact wording matters, quote a short ' +
        'phrase in quotation marks with its citation.\n' +
        `- If the quotes do not answer the question, reply exactly: ${DONT_KNOW}\n` +
        '- Plain text only: no heading, no list, no Markdown or LaTeX markup, no preamble or closing remarks.',
    ),
    {
      role: 'user',
      content: `The question:\n${fence(TOPIC_TAG, line(question))}\n\nThe evidence, by paper id:\n${fence(CORPUS_TAG, rows.join('\n'))}`,
    },
  ];
}
