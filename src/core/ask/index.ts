// ask/ holds "Ask the corpus" (its evidence, answers, conversation, insertion); it grounds answers with grounding/.
//
// "Ask the corpus": one question of a conversation → (follow-up rewritten to stand alone) → evidence → "I don't know"
// below the answerability threshold (of the question as asked) → a checked, cited answer (LLM) or an extract (no
// LLM). "Where did you find that?" answers from the previous answer's sources without searching. The turn is
// appended to the conversation.
import { StepContext, traceTotal, type StepTrace } from '../grounding/index.js';
import { TimedChat } from '../llm/timed.js';
import { answerWithModel, dontKnow, extractiveAnswer, type Drafted } from './answer.js';
import { askCite, citesLine } from './cites.js';
import { isSourceQuestion, lastAnswer } from './conversation.js';
import { answerability, ANSWERABILITY_THRESHOLD, gatherEvidence } from './evidence.js';
import { answerElements } from './elements.js';
import { pageAndLines } from './location.js';
import { hasOwnTerms, standaloneQuestion } from './rewrite.js';
import { questionFilters } from './filters.js';
import { estimateAsk } from './estimate.js';
import { innerCitations, type InnerCitation } from '../retrieve/inner-citations.js';
import type { AskOptions, AskTurn, Conversation } from './types.js';

export { ANSWERABILITY_THRESHOLD, answerability, gatherEvidence, sentencePages } from './evidence.js';
export { DIRECT_ELEMENT_SUPPORT } from './elements.js';
export {
  ConversationError,
  isSourceQuestion,
  lastAnswer,
  newConversation,
  parseConversation,
  serializeConversation,
} from './conversation.js';
export { isFollowUp, rewriteWithTerms } from './rewrite.js';
export { DONT_KNOW } from './prompts.js';
export { pageAndLines, type PrintedAt } from './location.js';
export * from './types.js';
export type { AskEstimate } from './estimate.js';

export const ASK_DEFAULTS = { evidence: 8, papersFirstAbove: 200 } as const;

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Answers `question` in `conversation` (which gains the turn and any new sources) and returns the turn. */
export async function ask(conversation: Conversation, question: string, o: AskOptions): Promise<AskTurn> {
  const t0 = performance.now();
  const chat = o.chat ? new TimedChat(o.chat) : null;
  const model = o.chat?.model ?? null;
  const q = question.trim();

  if (isSourceQuestion(q)) {
    const last = lastAnswer(conversation);
    const turn: AskTurn = {
      question: q,
      standalone: q,
      rewrite: 'none',
      kind: 'sources',
      text: !last
        ? 'There is no earlier answer in this conversation to give sources for.'
        : last.kind === 'unknown'
          ? 'The last answer was "I don\'t know": the corpus had no evidence for it, so it has no sources.'
          : sourcesText(conversation, last.citations),
      sentences: [],
      citations: last ? [...last.citations] : [],
      answerability: last?.answerability ?? 0,
      counts: {
        evidence: 0,
        papers: 0,
        unverifiedEvidence: 0,
        removedSentences: 0,
        removedCitations: 0,
        llmCalls: 0,
        ms: round(performance.now() - t0),
        modelMs: 0,
      },
      model,
      // "Show me the element": the last answer's cards come with its sources.
      ...(last?.elements?.length && last.kind !== 'unknown' ? { elements: last.elements } : {}),
    };
    conversation.turns.push(turn);
    return turn;
  }

  // The cost ahead, told before any call (a model call per step: the follow-up rewrite, the answer, its verification).
  const estimate = chat ? estimateAsk(conversation, q, { evidence: o.evidence ?? ASK_DEFAULTS.evidence, verify: o.verify ?? true }) : null;
  if (estimate) o.onProgress?.({ kind: 'estimate', estimate });
  // Each stage timed, with its model calls and tokens (the turn's trace).
  const steps: StepTrace[] = [];
  const timed = async <T>(name: string, fn: (ctx: StepContext) => Promise<T>): Promise<T> => {
    const ctx = new StepContext(name, o.signal, () => undefined);
    const t = performance.now();
    try {
      return await fn(ctx);
    } finally {
      ctx.trace.durationMs = round(performance.now() - t);
      steps.push(ctx.trace);
    }
  };
  const progress = o.onProgress;
  const followUp = conversation.turns.some((t) => t.kind !== 'sources');
  if (followUp) progress?.({ kind: 'stage', stage: 'rewrite' });
  const rewriting = (ctx?: StepContext) =>
    standaloneQuestion(q, conversation.turns, chat, o.signal).then((r) => {
      if (r.usage) ctx?.usage(r.usage);
      else if (ctx) ctx.trace.llmCalls += r.llmCalls; // a call that failed (the terms rewrite took over)
      return r;
    });
  // A first question has nothing to rewrite: no step.
  const rewrite = followUp ? await timed('rewrite', rewriting) : await rewriting();
  progress?.({ kind: 'standalone', standalone: rewrite.standalone, rewrite: rewrite.rewrite });
  progress?.({ kind: 'stage', stage: 'search' });
  // "since 2020", "at ACL": searched as filters, and their words left out of the search and of the gate.
  const { filters, query, asked } = await questionFilters(o.store, rewrite.standalone, q);
  const evidence = await timed('search', () =>
    gatherEvidence(o.store, o.embedder, query, {
      k: o.evidence ?? ASK_DEFAULTS.evidence,
      papersFirstAbove: o.papersFirstAbove ?? ASK_DEFAULTS.papersFirstAbove,
      excludePaperIds: o.excludePaperIds,
      filters,
      signal: o.signal,
    }),
  );
  // The gate reads the question as asked: terms borrowed from earlier turns (or a model's rewrite) are found in the
  // earlier topic's papers and would let a new question through on the old topic's evidence. A question with no
  // words of its own ("Why?") is judged by its rewrite.
  const gated = rewrite.rewrite === 'none' || !hasOwnTerms(q) ? evidence.answerability : answerability(asked, evidence.hits);
  const answerable = evidence.hits.length > 0 && gated >= (o.threshold ?? ANSWERABILITY_THRESHOLD);
  progress?.({ kind: 'evidence', sentences: evidence.hits.length, papers: new Set(evidence.hits.map((h) => h.paper.id)).size, answerable });
  // What the evidence sentences themselves cite: a claim they report is the cited work's, not their paper's.
  const inner = answerable ? await innerCitations(o.store, evidence.hits) : new Map<number, InnerCitation[]>();
  let drafted: Drafted;
  if (!answerable) drafted = dontKnow();
  else if (chat)
    drafted = await answerWithModel(conversation, rewrite.standalone, evidence.hits, evidence.pages, chat, {
      verify: o.verify ?? true,
      signal: o.signal,
      onProgress: progress,
      inner,
    });
  else drafted = extractiveAnswer(conversation, evidence.hits, evidence.pages, inner);
  steps.push(...(drafted.steps ?? []));
  for (const s of conversation.sources) {
    const cites = inner.get(s.sentenceId);
    if (cites?.length && !s.cites) s.cites = cites.map(askCite);
  }
  // Cards for the figures, tables and equations next to what the answer cites (none for "I don't know").
  const citedIds = new Set(drafted.citations.map((n) => conversation.sources[n - 1]?.sentenceId));
  const elements =
    drafted.kind === 'unknown'
      ? []
      : await timed('elements', () =>
          answerElements(
            o.store,
            o.embedder,
            rewrite.standalone,
            evidence.hits.filter((h) => citedIds.has(h.sentence.id)),
            conversation,
            { max: o.maxElements, signal: o.signal },
          ),
        );

  const turn: AskTurn = {
    question: q,
    standalone: rewrite.standalone,
    rewrite: rewrite.rewrite,
    kind: drafted.kind,
    text: drafted.text,
    sentences: drafted.sentences,
    citations: drafted.citations,
    answerability: gated,
    counts: {
      evidence: evidence.hits.length,
      papers: new Set(evidence.hits.map((h) => h.paper.id)).size,
      unverifiedEvidence: evidence.unverified,
      removedSentences: drafted.removedSentences,
      removedCitations: drafted.removedCitations,
      llmCalls: rewrite.llmCalls + drafted.llmCalls,
      ms: round(performance.now() - t0),
      modelMs: round(chat?.busy() ?? 0),
    },
    model,
    ...(elements.length ? { elements } : {}),
    ...(filters ? { filters } : {}),
    trace: { steps, total: traceTotal(steps, performance.now() - t0) },
    ...(estimate ? { estimate } : {}),
  };
  conversation.turns.push(turn);
  return turn;
}

/** The numbered sources as text: paper, section, page where known, and the cited sentence. */
export function sourcesText(conversation: Conversation, numbers: readonly number[]): string {
  if (!numbers.length) return 'The previous answer cited no source.';
  return numbers
    .map((n) => conversation.sources[n - 1])
    .filter((s) => !!s)
    .map((s) => {
      const paper = `${s.title ?? s.paperId}${s.citationKey || s.year ? ` (${[s.citationKey, s.year].filter(Boolean).join(', ')})` : ''}`;
      const where = [s.section ? `section "${s.section}"` : null, pageAndLines(s)].filter(Boolean).join(', ');
      const cites = (s.cites ?? []).map((c) => `\n    ${citesLine(c)}`);
      return `[${s.n}] ${paper}${where ? `, ${where}` : ''}: “${s.text}”${cites.join('')}`;
    })
    .join('\n');
}
