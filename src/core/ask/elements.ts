// The figures, tables and equations shown with an answer, as cards the reader can open: the
// elements on the page (PDF) or in the section of the sentences the answer cites ("linked"), and elements whose own
// label, caption and cells hold most of the question's terms ("direct"; the element search always returns its top
// few, and an unrelated table beside an answer misleads). They are cards, not citations: the checked text cites
// sentences only.
import type { Embedder } from '../embed/types.js';
import { elementsForHits, hasElements } from '../retrieve/elements.js';
import { assessSupport } from '../grounding/index.js';
import { StoreError, type CorpusStore, type ElementHit, type Hit } from '../store/types.js';
import type { AskElement, Conversation } from './types.js';

/** Share of the question's content terms a direct element's own text must hold to be shown. */
export const DIRECT_ELEMENT_SUPPORT = 0.5;
const DIRECT = 3;
const LINKED = 3;

export async function answerElements(
  store: CorpusStore,
  embedder: Embedder,
  question: string,
  cited: readonly Hit[],
  conversation: Conversation,
  signal?: AbortSignal,
): Promise<AskElement[]> {
  if (!hasElements(store)) return [];
  let found: ElementHit[];
  try {
    found = await elementsForHits(store, embedder, question, cited, { k: DIRECT, linked: LINKED, signal });
  } catch (err) {
    // A shared corpus not yet migrated to elements (Supabase before schema v7) still answers, without cards.
    if (err instanceof StoreError && /schema before v7|keeps no figures/.test(err.message)) return [];
    throw err;
  }
  const kept = found.filter(
    (h) =>
      h.match === 'linked' ||
      h.viaSentenceId !== undefined ||
      assessSupport(question, [[h.element.label, h.element.caption, h.element.content, h.element.description].filter(Boolean).join(' ')], {
        threshold: 0,
      }).score >= DIRECT_ELEMENT_SUPPORT,
  );
  return kept.map((h) => {
    const via =
      h.viaSentenceId === undefined
        ? undefined
        : conversation.sources.find((s) => s.sentenceId === h.viaSentenceId && s.paperId === h.element.paperId);
    return {
      type: h.element.type,
      label: h.element.label,
      caption: h.element.caption,
      content: h.element.content,
      paperId: h.element.paperId,
      citationKey: h.paper.citationKey ?? null,
      title: h.paper.title,
      year: h.paper.year,
      section: h.element.sectionTitle,
      page: h.element.page,
      bbox: h.element.bbox,
      match: h.match,
      similarity: h.similarity,
      source: via?.n ?? null,
    };
  });
}
