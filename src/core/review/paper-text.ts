// All stored sentences of a paper, for verifying quotes. The CorpusStore interface has no such lookup yet; this
// adapter uses, in order: a `paperSentences(paperId)` method if the store has one; for the Corpus Lens SQL
// schema (PGlite, Postgres) one statement through the store's driver; otherwise (Supabase, CorpusStudio) the
// keyword lookup restricted to the paper, which returns the sentences sharing words with the quote.
import type { CorpusStore } from '../store/types.js';
import type { PaperTextSource } from './types.js';

interface WithPaperSentences {
  paperSentences(paperId: string, signal?: AbortSignal): Promise<string[]>;
}
interface WithDriver {
  driver: { query(sql: string, params?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }> };
}

/** Adapts a store; results are cached per paper for the run. `probe` supplies the text for the keyword fallback. */
export function paperTextSource(store: CorpusStore, probe?: (paperId: string) => string): PaperTextSource {
  const cache = new Map<string, Promise<string[]>>();
  const s = store as CorpusStore & Partial<WithPaperSentences> & Partial<WithDriver>;
  let load: (paperId: string, signal?: AbortSignal) => Promise<string[]>;
  if (typeof s.paperSentences === 'function') {
    load = (id, signal) => s.paperSentences!(id, signal);
  } else if (store.schema === 'corpusLens' && s.driver && typeof s.driver.query === 'function') {
    const driver = s.driver;
    load = async (id) => {
      const { rows } = await driver.query(
        'SELECT text FROM sentences WHERE paper_id = $1 ORDER BY section_index, sentence_index, global_index',
        [id],
      );
      return rows.map((r) => String(r.text));
    };
  } else {
    load = async (id) => {
      const text = probe?.(id) ?? '';
      if (!text.trim()) return [];
      try {
        const hits = await store.matchKeyword(text, { count: 200, paperIds: [id] });
        return hits.map((h) => h.sentence.text);
      } catch {
        return []; // no keyword search on this backend: the retrieved passages (always checked too) remain
      }
    };
  }
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
