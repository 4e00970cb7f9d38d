// Figures, tables and equations next to sentences: elements that match the query themselves
// ("direct": their caption + context vector and their label, caption and cells by keyword), and elements on the
// same PDF page, else in the same section, as the best sentences ("linked"). A store without elements (CorpusStudio,
// a Supabase project before schema v7) has none, and says nothing: sentences still work.
import type { Embedder } from '../embed/types.js';
import { StoreError } from '../store/types.js';
import type { CorpusStore, ElementHit, ElementType, Hit } from '../store/types.js';
import { checkQuery, checkQueryText } from './index.js';

export interface ElementSearchOptions {
  /** Direct elements (default 3: a few cards beside the sentences, not a second result list). */
  k?: number;
  /** Linked elements at most (default 3). */
  linked?: number;
  type?: ElementType | null;
  paperIds?: readonly string[];
  signal?: AbortSignal;
}

/** Whether the store keeps elements at all. */
export function hasElements(store: CorpusStore): boolean {
  return !!store.matchElements && !!store.linkedElements;
}

/** Elements best first for a query (vector of caption + context fused with keyword over label, caption, cells). */
export async function searchElements(
  store: CorpusStore,
  embedder: Embedder,
  text: string,
  o: ElementSearchOptions = {},
): Promise<ElementHit[]> {
  checkQueryText(text);
  if (!store.matchElements)
    throw new StoreError('this corpus keeps no figures, tables or equations (a Corpus Lens corpus of schema v7 does)');
  const [vector] = await embedder.embed([text], { signal: o.signal, role: 'query' });
  await checkQuery(store, { model: embedder.model, vector });
  return store.matchElements(vector, text, { count: o.k ?? 3, type: o.type ?? null, paperIds: o.paperIds });
}

/**
 * The direct matches and the elements linked to the given sentence hits (best first), each element once: one that
 * is both stays direct and carries the sentence that links it (`viaSentenceId`), so a caller that shows linked
 * elements whatever their text does not lose it for also matching. Stores without elements give none.
 */
export async function elementsForHits(
  store: CorpusStore,
  embedder: Embedder,
  text: string,
  hits: readonly Hit[],
  o: ElementSearchOptions = {},
): Promise<ElementHit[]> {
  if (!hasElements(store)) return [];
  const direct = await searchElements(store, embedder, text, o);
  const byId = new Map(direct.map((d) => [d.element.id, d]));
  const ids = [...new Set(hits.map((h) => h.sentence.id))];
  const all = ids.length
    ? await store.linkedElements!(ids, { count: (o.linked ?? 3) + byId.size, type: o.type ?? null, paperIds: o.paperIds })
    : [];
  const linked: ElementHit[] = [];
  for (const l of all) {
    const d = byId.get(l.element.id);
    if (!d) linked.push(l);
    else if (d.viaSentenceId === undefined) d.viaSentenceId = l.viaSentenceId;
  }
  return [...direct, ...linked.slice(0, o.linked ?? 3)];
}
