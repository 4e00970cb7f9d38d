// The two kinds of answer. With a chat model: prose from the evidence, then the related-work check sentence by
// sentence (claims.ts: citations settled, invented ones removed, unquoted copies caught, support judged against the
// cited papers' quotes; verify.ts: the model's own verification), unsupported sentences removed, and each kept
// citation narrowed to the evidence sentences of that paper that back the sentence, numbered for the conversation.
// Without one: the best evidence sentences grouped by paper, with their context — stored text only, never prose.
import { isAbortError, type ChatModel } from '../llm/chat.js';
import {
  addressesModel,
  assessSupport,
  checkSentences,
  keptSentence,
  StepContext,
  SUPPORT_THRESHOLD,
  verifySection,
  type PaperCandidate,
  type StepTrace,
  type VerifiedQuote,
} from '../grounding/index.js';
import { ShingleIndex } from '../text/match.js';
import type { Hit, SentenceLocation } from '../store/types.js';
import { pageAndLines } from './location.js';
import { sourceNumber } from './conversation.js';
import { answerPrompt, DONT_KNOW } from './prompts.js';
import type { AnswerSentence, AskOptions, Conversation } from './types.js';
import { askCite, citesLine } from './cites.js';
import type { InnerCitation } from '../retrieve/inner-citations.js';

/** Sentence id → the works it cites (retrieve/inner-citations.ts). */
type InnerCites = ReadonlyMap<number, readonly InnerCitation[]>;

/** "Smith et al. 2019; Lee 2020" for a quote that cites them. */
const citedNames = (cites: readonly InnerCitation[]) => cites.map((c) => c.work).join('; ');

/** Shortest copied run of words flagged as an unquoted copy (the related-work default). */
const COPY_SPAN_WORDS = 12;

export interface Drafted {
  kind: 'answer' | 'extract' | 'unknown';
  text: string;
  sentences: AnswerSentence[];
  citations: number[];
  removedSentences: number;
  removedCitations: number;
  llmCalls: number;
  /** With a model: the answer call and the check, timed, with their tokens. */
  steps?: StepTrace[];
}

/** Hits grouped by paper, papers in the order of their best hit; short ids P1, P2, … and quote ids Q1, Q2, …. */
function byPaper(hits: readonly Hit[]): { papers: PaperCandidate[]; quotes: VerifiedQuote[]; hitOf: Map<string, Hit> } {
  const papers: PaperCandidate[] = [];
  const quotes: VerifiedQuote[] = [];
  const hitOf = new Map<string, Hit>();
  for (const h of hits) {
    let p = papers.find((x) => x.paper.id === h.paper.id);
    if (!p) papers.push((p = { shortId: `P${papers.length + 1}`, paper: h.paper, score: h.score, passages: [] }));
    p.passages.push(h);
    // The evidence is stored text by construction (checked again in evidence.ts): an exact quote.
    const q: VerifiedQuote = {
      id: `Q${quotes.length + 1}`,
      paperShortId: p.shortId,
      paperId: h.paper.id,
      text: h.sentence.text,
      match: 'exact',
      similarity: 1,
    };
    quotes.push(q);
    hitOf.set(q.id, h);
  }
  return { papers, quotes, hitOf };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

const pageOf = (pages: ReadonlyMap<number, SentenceLocation>, h: Hit) => pages.get(h.sentence.id);

function unknown(extra: Partial<Drafted> = {}): Drafted {
  return {
    kind: 'unknown',
    text: DONT_KNOW,
    sentences: [],
    citations: [],
    removedSentences: 0,
    removedCitations: 0,
    llmCalls: 0,
    ...extra,
  };
}

export function dontKnow(): Drafted {
  return unknown();
}

export async function answerWithModel(
  conversation: Conversation,
  question: string,
  hits: readonly Hit[],
  pages: ReadonlyMap<number, SentenceLocation>,
  chat: ChatModel,
  options: { verify: boolean; signal?: AbortSignal; onProgress?: AskOptions['onProgress']; inner?: InnerCites },
): Promise<Drafted> {
  const { papers, quotes, hitOf } = byPaper(hits);
  const progress = options.onProgress;
  progress?.({ kind: 'stage', stage: 'answer' });
  // Streamed only when someone listens: the reply is the same either way (the client assembles the deltas).
  const onToken = progress ? (delta: string) => progress({ kind: 'draft', delta }) : undefined;
  const answer = new StepContext('answer', options.signal, () => undefined);
  const t0 = performance.now();
  const reply = await chat.complete({
    step: 'answer',
    messages: answerPrompt(question, papers, quotes),
    signal: options.signal,
    temperature: 0,
    onToken,
  });
  answer.usage(reply.usage);
  answer.trace.durationMs = round(performance.now() - t0);
  progress?.({ kind: 'stage', stage: 'check' });
  const text = reply.text.trim();
  if (!text || /^i\s+(?:do\s+not|don['’]t)\s+know\b/i.test(text))
    return unknown({ llmCalls: answer.trace.llmCalls, steps: [answer.trace] });
  const ctx = new StepContext('check', options.signal, () => undefined);
  const t1 = performance.now();

  const context = hits
    .flatMap((h) => [h.previous, h.sentence, h.next])
    .filter((s) => !!s)
    .map((s) => ({ text: s!.text, paperId: s!.paperId }));
  // The question is not evidence: the check reads the cited quotes and the cited papers' titles and authors only.
  // Text addressing a model reached it inside the data fence, but backs nothing (grounding/instructions.ts).
  const evidence = quotes.filter((q) => !addressesModel(q.text));
  const checked = checkSentences({
    index: 0,
    text,
    format: 'paragraph',
    topic: '',
    sectionQuotes: evidence,
    allQuotes: evidence,
    papers,
    shingles: new ShingleIndex(context, COPY_SPAN_WORDS),
  });
  if (options.verify) {
    try {
      await verifySection(checked.sentences, new Map(evidence.map((q) => [q.id, q])), chat, ctx);
    } catch (err) {
      if (isAbortError(err)) throw err; // a failed verification leaves the offline verdicts standing, as in review
    }
  }
  ctx.trace.durationMs = round(performance.now() - t1);
  const llmCalls = answer.trace.llmCalls + ctx.trace.llmCalls;
  const steps = [answer.trace, ctx.trace];
  const keep = keptSentence('remove');
  const sentences: AnswerSentence[] = [];
  const citations: number[] = [];
  for (const s of checked.sentences) {
    const kept = keep(s);
    let shown = s.text;
    const numbers: number[] = [];
    if (kept) {
      const secondHand = /\bas cited in\b/i.test(s.text);
      shown = s.text.replace(/\[(P\d+)\]/g, (_m, shortId: string) => {
        const own = quotes.filter((q) => q.paperShortId === shortId);
        return backingQuotes(s.text, own)
          .map((q) => {
            const hit = hitOf.get(q.id)!;
            const n = sourceNumber(conversation, hit, pageOf(pages, hit));
            numbers.push(n);
            // A quote that itself cites work states that work's claim: the answer says whose it is.
            const inner = options.inner?.get(hit.sentence.id);
            return inner?.length && !secondHand ? `(${citedNames(inner)}, as cited in [${n}])` : `[${n}]`;
          })
          .join('');
      });
      for (const n of numbers) if (!citations.includes(n)) citations.push(n);
    }
    sentences.push({
      text: shown,
      original: s.original,
      citations: [...new Set(numbers)],
      verdict: s.verdict,
      support: s.support,
      kept,
      reasons: s.reasons,
    });
  }
  const removedSentences = sentences.filter((s) => !s.kept).length;
  const removedCitations = checked.removed.length;
  if (!sentences.some((s) => s.kept && s.citations.length))
    return unknown({ sentences, removedSentences, removedCitations, llmCalls, steps });
  return {
    kind: 'answer',
    text: sentences
      .filter((s) => s.kept)
      .map((s) => s.text)
      .join(' '),
    sentences,
    citations,
    removedSentences,
    removedCitations,
    llmCalls,
    steps,
  };
}

/**
 * The sentence-level citation: of the cited paper's evidence sentences, the one that backs the answer sentence best
 * and any other that backs it on its own (support ≥ the check's threshold).
 */
function backingQuotes(sentence: string, own: readonly VerifiedQuote[]): VerifiedQuote[] {
  const scored = own.map((q) => ({ q, score: assessSupport(sentence, [q.text]).score }));
  scored.sort((a, b) => b.score - a.score);
  return scored.filter((x, i) => i === 0 || x.score >= SUPPORT_THRESHOLD).map((x) => x.q);
}

/** Evidence shown per paper and papers shown in an extract. */
const EXTRACT = { papers: 3, perPaper: 2 } as const;

function clip(s: string, max = 200): string {
  return s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s;
}

/** No LLM: the best evidence sentences by paper, each with the sentence before and after it. */
export function extractiveAnswer(
  conversation: Conversation,
  hits: readonly Hit[],
  pages: ReadonlyMap<number, SentenceLocation>,
  inner: InnerCites = new Map(),
): Drafted {
  const { papers } = byPaper(hits);
  const lines: string[] = [];
  const sentences: AnswerSentence[] = [];
  const citations: number[] = [];
  for (const p of papers.slice(0, EXTRACT.papers)) {
    const shown = p.passages.filter((h) => !addressesModel(h.sentence.text)).slice(0, EXTRACT.perPaper);
    if (!shown.length) continue;
    // A neighbour that is itself one of the paper's evidence lines is not repeated as context.
    const own = new Set(shown.map((h) => h.sentence.id));
    const context = (s: Hit['previous']) => (s && !own.has(s.id) ? clip(s.text) : null);
    const who = p.paper.citationKey ?? (p.paper.authors[0] ?? '').split(/\s+/).pop() ?? '';
    lines.push(`${p.paper.title ?? p.paper.id}${who || p.paper.year ? ` (${[who, p.paper.year].filter(Boolean).join(', ')})` : ''}:`);
    for (const h of shown) {
      const n = sourceNumber(conversation, h, pageOf(pages, h));
      citations.push(n);
      const at = pages.get(h.sentence.id);
      const where = [h.sentence.sectionTitle, at ? pageAndLines(at) : null].filter(Boolean).join(', ');
      const before = context(h.previous);
      const after = context(h.next);
      lines.push(`  ${where ? `${where}: ` : ''}${before ? `${before} ` : ''}“${h.sentence.text}” [${n}]${after ? ` ${after}` : ''}`);
      for (const c of inner.get(h.sentence.id) ?? []) lines.push(`    ${citesLine(askCite(c))}`);
      sentences.push({
        text: `“${h.sentence.text}” [${n}]`,
        original: h.sentence.text,
        citations: [n],
        verdict: 'extract',
        support: 1,
        kept: true,
        reasons: [],
      });
    }
  }
  return { kind: 'extract', text: lines.join('\n'), sentences, citations, removedSentences: 0, removedCitations: 0, llmCalls: 0 };
}
