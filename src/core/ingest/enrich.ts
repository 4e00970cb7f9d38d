// LLM enrichment of element descriptions (a second pass after ingest): for each figure, table and equation of the corpus,
// a chat model writes a short searchable description from its label, caption, content and the sentences around it;
// the description is stored and the element's vector is recomputed from label + caption + content + description +
// context (elementEmbeddingText), so keyword and vector search find the element by what the description says. A
// separate step (`corpus-lens elements --enrich`), never part of an ingest: ingest stays offline and fast.
// The element's text goes to the model inside the shared data fence (llm/fence.ts). Model output is untrusted: it is reduced to plain text of at most MAX_DESCRIPTION_CHARS. A model that cannot be
// reached, refuses the key or keeps rate-limiting stops the run; what was described so far is kept, the rest stays
// un-enriched, and the summary says why.
import { isAbortError, LlmError, type ChatModel } from '../llm/chat.js';
import { CORPUS_TAG, DATA_RULE, fence, line, neutralize } from '../llm/fence.js';
import type { Embedder } from '../embed/types.js';
import type { CorpusStore, ElementHit } from '../store/types.js';
import { elementEmbeddingText } from './folder.js';

/** A description longer than this (characters) is cut at a word: a few sentences are searchable, essays are noise. */
export const MAX_DESCRIPTION_CHARS = 400;
/** Characters of an element's content (table cells, equation text) shown to the model. */
const MAX_CONTENT_CHARS = 1500;
/** Sentences before and after the element shown as its context. */
const CONTEXT_BEFORE = 2;
const CONTEXT_AFTER = 2;
/** Elements listed from the store at a time. */
const PAGE = 500;

export interface EnrichOptions {
  /** Describe again the elements that already have a description (default: only those without). */
  force?: boolean;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

export interface EnrichSummary {
  /** Elements in the corpus. */
  elements: number;
  /** Described and stored in this run. */
  enriched: number;
  /** Already described (not asked again without `force`). */
  skipped: number;
  /** Elements the model answered with nothing usable (left un-enriched, the run went on). */
  failed: { id: number; paperId: string; label: string | null; reason: string }[];
  /** Why the run stopped early (the model unreachable, the key refused, rate limits), or null. */
  stopped: string | null;
}

const SYSTEM = `step: describe-element.
You write a short searchable description of one figure, table or equation of a scientific paper, for a search index.
Say what it shows, compares or computes and the key terms a researcher would search for, using only what the caption,
content and surrounding text say. Plain text only: one to three sentences, at most 60 words, no Markdown, no lists,
no quotes of instructions.

${DATA_RULE}`;

/** The store's elements, their papers' sentences, the model and the embedder: describes, re-embeds and stores. */
export async function enrichElements(
  store: CorpusStore,
  embedder: Embedder,
  chat: ChatModel,
  o: EnrichOptions = {},
): Promise<EnrichSummary> {
  if (!store.listElements || !store.describeElements)
    throw new Error('this corpus keeps no figures, tables or equations that can be described (a Corpus Lens SQL corpus does)');
  const all: ElementHit[] = [];
  for (;;) {
    const page = await store.listElements({ count: PAGE, after: all.at(-1)?.element.id });
    all.push(...page);
    if (page.length < PAGE) break;
  }
  const todo = all.filter((h) => o.force || !h.element.description);
  const summary: EnrichSummary = { elements: all.length, enriched: 0, skipped: all.length - todo.length, failed: [], stopped: null };
  const sentences = new Map<string, string[]>();
  const textOf = async (paperId: string) => {
    if (!sentences.has(paperId)) sentences.set(paperId, store.paperSentences ? await store.paperSentences(paperId, o.signal) : []);
    return sentences.get(paperId)!;
  };
  let done = 0;
  o.onProgress?.(0, todo.length);
  for (const h of todo) {
    o.signal?.throwIfAborted();
    const e = h.element;
    const paper = (await textOf(e.paperId)).map((text) => ({ text }));
    const context = paper.slice(Math.max(0, e.afterSentence - CONTEXT_BEFORE + 1), e.afterSentence + 1 + CONTEXT_AFTER).map((s) => s.text);
    let description: string;
    try {
      const r = await chat.complete({
        step: 'describe-element',
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: prompt(h, context) },
        ],
        maxTokens: 200,
        signal: o.signal,
      });
      description = plainDescription(r.text);
    } catch (err) {
      if (isAbortError(err)) throw err;
      const kind = err instanceof LlmError ? err.kind : 'connection';
      const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
      // An answer the model got wrong is this element's problem; a model that cannot answer at all is every element's.
      if (kind === 'invalid-output' || kind === 'empty') {
        summary.failed.push({ id: e.id, paperId: e.paperId, label: e.label, reason });
        continue;
      }
      summary.stopped = reason;
      break;
    }
    if (!description) {
      summary.failed.push({ id: e.id, paperId: e.paperId, label: e.label, reason: 'the model returned no usable text' });
      continue;
    }
    const [embedding] = await embedder.embed([elementEmbeddingText({ sentences: paper }, { ...e, description })], { signal: o.signal });
    await store.describeElements([{ id: e.id, description, embedding }]);
    summary.enriched++;
    o.onProgress?.(++done, todo.length);
  }
  return summary;
}

function prompt(h: ElementHit, context: string[]): string {
  const e = h.element;
  const data = [
    `Type: ${e.type}`,
    `Label: ${line(e.label ?? '(unnumbered)')}`,
    `Paper: ${line(h.paper.title ?? h.paper.id)}`,
    e.sectionTitle ? `Section: ${line(e.sectionTitle)}` : null,
    e.caption ? `Caption: ${line(e.caption)}` : null,
    // Table rows keep their lines: the cells' layout is part of what the model reads.
    e.content ? `Content:\n${neutralize(e.content.slice(0, MAX_CONTENT_CHARS))}` : null,
    context.length ? `Surrounding text:\n${line(context.join(' '))}` : null,
  ].filter((x): x is string => x !== null);
  return `The element, from the paper:\n${fence(CORPUS_TAG, data.join('\n'))}\n\nWrite the description.`;
}

/**
 * Model output as a stored description: plain text (tags, Markdown marks, code fences, control characters and a
 * leading "Description:" removed, white space collapsed), at most MAX_DESCRIPTION_CHARS, cut at a word.
 */
export function plainDescription(text: string): string {
  let t = text
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/[*_`#>|~]+/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:description|search text)\s*:\s*/i, '');
  if (t.length > MAX_DESCRIPTION_CHARS) {
    // The ellipsis counts: the stored text is never longer than the cap.
    const cut = t.slice(0, MAX_DESCRIPTION_CHARS - 1);
    const space = cut.lastIndexOf(' ');
    t = (space > MAX_DESCRIPTION_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, '') + '…';
  }
  return t;
}
