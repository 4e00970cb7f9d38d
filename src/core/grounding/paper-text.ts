// All stored sentences of a paper, for verifying quotes: the store's `paperSentences` where it has one (the Corpus
// Lens SQL schema, in process or through the corpus process), otherwise (Supabase, CorpusStudio) the keyword
// lookup restricted to the paper, which returns the sentences sharing words with the quote.
import type { CorpusStore } from '../store/types.js';
import type { PaperTextSource } from './types.js';

/** Adapts a store; results are cached per paper for the run. `probe` supplies the text for the keyword fallback. */
export function paperTextSource(store: CorpusStore, probe?: (paperId: string) => string): PaperTextSource {
  const cache = new Map<string, Promise<string[]>>();
  const load: (paperId: string, signal?: AbortSignal) => Promise<string[]> = store.paperSentences
    ? (id, signal) => store.paperSentences!(id, signal)
    : async (id) => {
        const text = probe?.(id) ?? '';
        if (!text.trim()) return [];
        try {
          const hits = await store.matchKeyword(text, { count: 200, paperIds: [id] });
          return hits.map((h) => h.sentence.text);
        } catch {
          return []; // no keyword search on this backend: the retrieved passages (always checked too) remain
        }
      };
  return {
    paperSentences(paperId, signal) {
      let p = cache.get(paperId);
      if (!p) {
        p = load(paperId, signal);
        cache.set(paperId, p);
        p.catch(() => cache.delete(paperId));
      }
      return p;
    },
  };
}
