// A conversation as JSON: created empty, parsed from a file (validated: a hand-edited or foreign file is one clear
// error, never a crash later), and the one place where sources get their numbers — one list for the conversation,
// a sentence cited again keeps its number (PaperQA's per-answer renumbering is the known issue this avoids).
import { z } from 'zod';
import type { Hit, SentenceLocation } from '../store/types.js';
import type { AskSource, AskTurn, Conversation } from './types.js';

export function newConversation(): Conversation {
  return { version: 1, turns: [], sources: [] };
}

const sourceSchema = z.object({
  n: z.number().int().positive(),
  paperId: z.string(),
  citationKey: z.string().nullable(),
  title: z.string().nullable(),
  authors: z.array(z.string()),
  year: z.number().nullable(),
  section: z.string().nullable(),
  sentenceId: z.number(),
  globalIndex: z.number(),
  text: z.string(),
  previous: z.string().nullable(),
  next: z.string().nullable(),
  page: z.number().nullable(),
  lineStart: z.number().nullable().optional(),
  lineEnd: z.number().nullable().optional(),
  pageEnd: z.number().nullable().optional(),
  // Kept through a save: the Ask tab's cards and Open cited paper read the saved conversation.
  cites: z
    .array(
      z.object({
        work: z.string(),
        title: z.string().nullable(),
        year: z.number().nullable(),
        inCorpus: z.object({ paperId: z.string(), title: z.string().nullable(), citationKey: z.string().nullable() }).nullable(),
      }),
    )
    .optional(),
  // Kept through a save: a reopened conversation still marks a proposed title.
  metadataProposedBy: z.string().optional(),
});

const sentenceSchema = z.object({
  text: z.string(),
  original: z.string(),
  citations: z.array(z.number()),
  verdict: z.enum(['supported', 'partial', 'unsupported', 'connective', 'extract']),
  support: z.number(),
  kept: z.boolean(),
  reasons: z.array(z.string()),
});

const tokensSchema = z.object({ prompt: z.number(), completion: z.number(), total: z.number(), estimated: z.boolean() });
const fallbackSchema = z.object({ model: z.string(), calls: z.number() }).optional();
const traceSchema = z.object({
  steps: z.array(
    z.object({
      step: z.string(),
      durationMs: z.number(),
      llmCalls: z.number(),
      cachedCalls: z.number(),
      tokens: tokensSchema,
      fallback: fallbackSchema,
      counts: z.record(z.string(), z.number()),
      notes: z.array(z.string()),
    }),
  ),
  total: z.object({
    durationMs: z.number(),
    llmCalls: z.number(),
    cachedCalls: z.number(),
    tokens: tokensSchema,
    fallback: fallbackSchema,
  }),
});

const turnSchema = z.object({
  question: z.string(),
  standalone: z.string(),
  rewrite: z.enum(['none', 'llm', 'terms']),
  kind: z.enum(['answer', 'extract', 'unknown', 'sources']),
  text: z.string(),
  sentences: z.array(sentenceSchema),
  citations: z.array(z.number()),
  answerability: z.number(),
  counts: z.object({
    evidence: z.number(),
    papers: z.number(),
    unverifiedEvidence: z.number(),
    removedSentences: z.number(),
    removedCitations: z.number(),
    llmCalls: z.number(),
    ms: z.number(),
    modelMs: z.number(),
  }),
  model: z.string().nullable(),
  elements: z
    .array(
      z.object({
        type: z.enum(['figure', 'diagram', 'table', 'equation']),
        label: z.string().nullable(),
        caption: z.string().nullable(),
        content: z.string().nullable(),
        paperId: z.string(),
        citationKey: z.string().nullable(),
        title: z.string().nullable(),
        year: z.number().nullable(),
        section: z.string().nullable(),
        page: z.number().nullable(),
        bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).nullable(),
        match: z.enum(['direct', 'linked']),
        similarity: z.number().nullable(),
        source: z.number().nullable(),
        description: z.string().nullable().optional(),
        metadataProposedBy: z.string().optional(),
      }),
    )
    .optional(),
  filters: z
    .object({ yearMin: z.number().nullable(), yearMax: z.number().nullable(), venues: z.array(z.string()), phrases: z.array(z.string()) })
    .optional(),
  trace: traceSchema.optional(),
  estimate: z
    .object({
      llmCalls: z.number(),
      tokens: z.object({ prompt: z.number(), completion: z.number(), total: z.number() }),
      seconds: z.number(),
      basis: z.string(),
    })
    .optional(),
});

const conversationSchema = z.object({ version: z.literal(1), turns: z.array(turnSchema), sources: z.array(sourceSchema) });

export class ConversationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversationError';
  }
}

/** Parses a saved conversation; throws a one-line ConversationError naming the first problem. */
export function parseConversation(json: string): Conversation {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    throw new ConversationError(`not JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const r = conversationSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ConversationError(`not a Corpus Lens conversation (version 1): ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  const c = r.data as Conversation;
  c.sources.forEach((s, i) => {
    if (s.n !== i + 1) throw new ConversationError(`not a Corpus Lens conversation: source ${i + 1} is numbered ${s.n}`);
  });
  for (const t of c.turns)
    for (const n of t.citations)
      if (n > c.sources.length) throw new ConversationError(`a turn cites [${n}], which is not in the source list`);
  return c;
}

export function serializeConversation(c: Conversation): string {
  return JSON.stringify(c, null, 2) + '\n';
}

/** The number of a hit's sentence in the conversation: its existing one, else the next (the source is added). */
export function sourceNumber(c: Conversation, hit: Hit, at: SentenceLocation | undefined): number {
  const existing = c.sources.find((s) => s.sentenceId === hit.sentence.id && s.paperId === hit.paper.id);
  if (existing) return existing.n;
  const source: AskSource = {
    n: c.sources.length + 1,
    paperId: hit.paper.id,
    citationKey: hit.paper.citationKey ?? null,
    title: hit.paper.title,
    authors: hit.paper.authors,
    year: hit.paper.year,
    section: hit.sentence.sectionTitle,
    sentenceId: hit.sentence.id,
    globalIndex: hit.sentence.globalIndex,
    text: hit.sentence.text,
    previous: hit.previous?.text ?? null,
    next: hit.next?.text ?? null,
    page: at?.page ?? null,
    lineStart: at?.lineStart ?? null,
    lineEnd: at?.lineEnd ?? null,
    pageEnd: at?.pageEnd ?? null,
    // Only where it is set: a source of real metadata (and `ask --json`'s) is as it was.
    ...(hit.paper.metadataProposedBy ? { metadataProposedBy: hit.paper.metadataProposedBy } : {}),
  };
  c.sources.push(source);
  return source.n;
}

/**
 * "Where did you find that?" and its close variants (what is your source, which paper says that, cite your
 * sources, show me the sources): a question about the previous answer, answered from its sources alone.
 */
const SOURCE_QUESTION =
  /^\s*(?:(?:and|so|ok(?:ay)?|but)[,\s]+)?(?:where|how)\s+(?:did|do|does|can)\s+(?:you|it|one|i)\s+(?:find|get|see|read|learn|know)\s+(?:that|this|it|those|these|the\s+(?:answer|claim|information))\b|^\s*(?:what|which)(?:'s|\s+is|\s+are|\s+were|\s+was)?\s+(?:(?:your|the|its|that|those)\s+)?(?:sources?|references?|evidence|citations?)\b(?!\s+(?:of|for|on|about)\s+(?!that|this|it)\w)|^\s*(?:which|what)\s+(?:papers?|sources?|studies|study)\s+(?:says?|said|is|are|was|were|did|does)\s+(?:that|this|it|those|these)\b|^\s*(?:source|sources|citation|citations|reference|references)\s*\??\s*$|^\s*(?:show|give|list|cite)\s+(?:me\s+)?(?:your|the)\s+(?:sources?|references?|evidence|citations?)\b/i;

export function isSourceQuestion(question: string): boolean {
  return SOURCE_QUESTION.test(question.trim());
}

/** The last turn that answered a question (what "that" refers to; an "I don't know" has no sources), or null. */
export function lastAnswer(c: Conversation): AskTurn | null {
  for (let i = c.turns.length - 1; i >= 0; i--) if (c.turns[i].kind !== 'sources') return c.turns[i];
  return null;
}
