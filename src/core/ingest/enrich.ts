// LLM enrichment of element descriptions (a second pass after ingest): for each figure, table and equation of the corpus,
// a chat model writes a short searchable description from its label, caption, content and the text of its page (a
// PDF element: every sentence stored on that page; otherwise the sentences of its section around it, about a page);
// the description is stored and the element's vector is recomputed from label + caption + content + description +
// context (elementEmbeddingText), so keyword and vector search find the element by what the description says. A
// separate step (`corpus-lens elements --enrich`), never part of an ingest: ingest stays offline and fast.
// The element's text goes to the model inside the shared data fence (llm/fence.ts). Model output is untrusted: it is reduced to plain text of at most MAX_DESCRIPTION_CHARS. A model that cannot be
// reached, refuses the key or keeps rate-limiting stops the run; what was described so far is kept, the rest stays
// un-enriched, and the summary says why.
import { isAbortError, LlmError, type ChatModel } from '../llm/chat.js';
import { CORPUS_TAG, DATA_RULE, fence, line, neutralize } from '../llm/fence.js';
import type { Embedder } from '../embed/types.js';
import type { CorpusStore, ElementHit, ElementRef } from '../store/types.js';
import { elementEmbeddingText } from './folder.js';

/** A description longer than this (characters) is cut at a word: a few sentences are searchable, essays are noise. */
export const MAX_DESCRIPTION_CHARS = 400;
/** Characters of an element's content (table cells, equation text) shown to the model. */
const MAX_CONTENT_CHARS = 1500;
/** Without a page (LaTeX, HTML): the sentences of its section this far before and after it stand for the page. */
const PAGE_SENTENCES = 12;
/** Characters of page text shown to the model (centred on the element when the page holds more). */
const MAX_PAGE_CHARS = 4000;
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
content and the text of its page say. Plain text only: one to three sentences, at most 60 words, no Markdown, no lists,
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
  const sentences = new Map<string, PageSentence[]>();
  const textOf = async (paperId: string) => {
    if (!sentences.has(paperId)) sentences.set(paperId, await paperText(store, paperId, o.signal));
    return sentences.get(paperId)!;
  };
  let done = 0;
  o.onProgress?.(0, todo.length);
  for (const h of todo) {
    o.signal?.throwIfAborted();
    const e = h.element;
    const paper = await textOf(e.paperId);
    const context = pageText(paper, e);
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

interface PageSentence {
  text: string;
  page: number | null;
  sectionTitle: string | null;
}

/** A paper's sentences in reading order (index = global index), with page and section where the store keeps them. */
async function paperText(store: CorpusStore, paperId: string, signal?: AbortSignal): Promise<PageSentence[]> {
  if (store.paperRows)
    return (await store.paperRows(paperId, { signal })).map(({ text, page, sectionTitle }) => ({ text, page, sectionTitle }));
  if (store.paperSentences) return (await store.paperSentences(paperId, signal)).map((text) => ({ text, page: null, sectionTitle: null }));
  return [];
}

/**
 * The text of an element's page: a PDF element's every sentence on its page; else the sentences of its section within
 * PAGE_SENTENCES of it. At most MAX_PAGE_CHARS, sentences nearest the element first kept.
 */
export function pageText(paper: readonly PageSentence[], e: Pick<ElementRef, 'page' | 'sectionTitle' | 'afterSentence'>): string {
  const at = Math.max(0, e.afterSentence);
  const onPage = (s: PageSentence, i: number) =>
    e.page != null && s.page != null
      ? s.page === e.page
      : Math.abs(i - at) <= PAGE_SENTENCES && (e.sectionTitle == null || s.sectionTitle == null || s.sectionTitle === e.sectionTitle);
  const kept = paper.map((s, i) => ({ s, i })).filter(({ s, i }) => onPage(s, i));
  // Nearest first until the budget is spent, then back in reading order.
  const chosen: typeof kept = [];
  let chars = 0;
  for (const k of [...kept].sort((a, b) => Math.abs(a.i - at) - Math.abs(b.i - at) || a.i - b.i)) {
    if (chars + k.s.text.length > MAX_PAGE_CHARS) break;
    chosen.push(k);
    chars += k.s.text.length + 1;
  }
  return chosen
    .sort((a, b) => a.i - b.i)
    .map((k) => k.s.text)
    .join(' ');
}

function prompt(h: ElementHit, context: string): string {
  const e = h.element;
  const data = [
    `Type: ${e.type}`,
    `Label: ${line(e.label ?? '(unnumbered)')}`,
    `Paper: ${line(h.paper.title ?? h.paper.id)}`,
    e.sectionTitle ? `Section: ${line(e.sectionTitle)}` : null,
    e.caption ? `Caption: ${line(e.caption)}` : null,
    // Table rows keep their lines: the cells' layout is part of what the model reads.
    e.content ? `Content:\n${neutralize(e.content.slice(0, MAX_CONTENT_CHARS))}` : null,
    context ? `Text of its page:\n${line(context)}` : null,
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
