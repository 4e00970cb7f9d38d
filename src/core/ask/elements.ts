// The figures, tables and equations shown with an answer, as cards the reader can open: the
// elements on the page (PDF) or in the section of the sentences the answer cites ("linked"), and elements that match
// the question themselves ("direct") by meaning or by words: their vector (label, caption, content, description and
// context) is at least DIRECT_ELEMENT_SIMILARITY times as close to the question as the weakest sentence the answer
// cites (relative, so that it holds for any embedding model's range of similarities), or their own text holds most
// of the question's terms (the element search always returns its top few, and an unrelated table beside an
// answer misleads). At most `max` cards (a setting), direct and linked in turn, best first. They are cards, not
// citations: the checked text cites sentences only.
import type { Embedder } from '../embed/types.js';
import { elementsForHits, hasElements } from '../retrieve/elements.js';
import { assessSupport } from '../grounding/index.js';
import { StoreError, type CorpusStore, type ElementHit, type Hit } from '../store/types.js';
import type { AskElement, Conversation } from './types.js';

/** Share of the question's content terms a direct element's own text must hold to be shown. */
export const DIRECT_ELEMENT_SUPPORT = 0.5;
/**
 * Share of the weakest cited sentence's similarity to the question a direct element's vector must reach. A caption
 * is shorter and more general than a sentence that states the answer: with the neural embedder a schematic of what
 * the question asks scored 0.58 where the cited sentences scored 0.67–0.69, and unrelated figures 0.1–0.2.
 */
export const DIRECT_ELEMENT_SIMILARITY = 0.8;
/** Cards per answer unless the caller says otherwise (corpusLens.ask.maxElements, `ask --max-elements`). */
export const DEFAULT_MAX_ELEMENTS = 3;

export async function answerElements(
  store: CorpusStore,
  embedder: Embedder,
  question: string,
  cited: readonly Hit[],
  conversation: Conversation,
  o: { max?: number; signal?: AbortSignal } = {},
): Promise<AskElement[]> {
  const max = Math.max(0, Math.floor(o.max ?? DEFAULT_MAX_ELEMENTS));
  if (!hasElements(store) || !max) return [];
  let found: ElementHit[];
  try {
    found = await elementsForHits(store, embedder, question, cited, { k: max, linked: max, signal: o.signal });
  } catch (err) {
    // A shared corpus not yet migrated to elements (Supabase before schema v7) still answers, without cards.
    if (err instanceof StoreError && /schema before v7|keeps no figures/.test(err.message)) return [];
    throw err;
  }
  // A cited sentence is evidence the answer rests on: an element nearly as close to the question means it too.
  const bar = cited.length ? Math.min(...cited.map((h) => h.similarity)) * DIRECT_ELEMENT_SIMILARITY : Infinity;
  const kept = found.filter(
    (h) =>
      h.match === 'linked' ||
      h.viaSentenceId !== undefined ||
      (h.similarity !== null && bar > 0 && h.similarity >= bar) ||
      assessSupport(question, [[h.element.label, h.element.caption, h.element.content, h.element.description].filter(Boolean).join(' ')], {
        threshold: 0,
      }).score >= DIRECT_ELEMENT_SUPPORT,
  );
  return alternate(
    kept.filter((h) => h.match === 'direct'),
    kept.filter((h) => h.match === 'linked'),
  )
    .slice(0, max)
    .map((h) => {
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
        description: h.element.description ?? null,
        ...(h.paper.metadataProposedBy ? { metadataProposedBy: h.paper.metadataProposedBy } : {}),
      };
    });
}

/** a[0], b[0], a[1], b[1], … then the rest of the longer. */
function alternate<T>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i]);
    if (i < b.length) out.push(b[i]);
  }
  return out;
}
