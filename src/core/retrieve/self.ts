// The author's own draft in the corpus: the papers that are the document being edited, so that lookups, the hover,
// the originality check and Ask leave them out (a draft indexed with "Index This Paper", or a corpus paper's own
// file opened, would otherwise match each of its sentences against itself at 1.00). A paper is the draft when it was
// indexed from the same file (or the LaTeX project the file belongs to), from a file with the same bytes, or when
// its stored sentences carry the draft's content fingerprint (the same text indexed from elsewhere, or its PDF).
import { fingerprint, sameWork } from '../paper/fingerprint.js';
import type { CorpusStore, Hit, PaperSource } from '../store/types.js';

/** The document being edited, as the corpus could know it. */
export interface Draft {
  /** Its file, and the files of the project it belongs to (a LaTeX main file), absolute. */
  paths: readonly string[];
  /** sha256 hex of its bytes as saved, when known (the ingest pipeline's content hash of a single-file source). */
  contentHash?: string | null;
  /** Its sentences (plain text), for the content fingerprint. */
  sentences: readonly string[];
}

/** Similarity from which a hit's paper is checked for being the draft: the draft's own sentence comes back at ~1. */
export const SELF_CHECK_SIMILARITY = 0.8;

/** Papers indexed from one of the draft's files or from a file with its bytes (no store round trip beyond `sources`). */
export function papersFromDraftSource(sources: readonly PaperSource[], draft: Pick<Draft, 'paths' | 'contentHash'>): string[] {
  const paths = new Set(draft.paths.map(normalisePath));
  return sources
    .filter(
      (s) =>
        (s.sourcePath != null && paths.has(normalisePath(s.sourcePath))) || (!!draft.contentHash && s.contentHash === draft.contentHash),
    )
    .map((s) => s.id);
}

/** Paths compared as the file system would on every platform the extension runs on. */
function normalisePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/\/+$/, '');
}

/**
 * What is known of one draft's own papers in one corpus: those found by source at once, the others decided paper by
 * paper from the hits of its lookups (each paper read and fingerprinted once).
 */
export class SelfPapers {
  private readonly decided = new Map<string, boolean>();
  private fromSource: Promise<string[]> | undefined;
  private readonly print: Set<number>;

  constructor(
    private readonly store: Pick<CorpusStore, 'sources' | 'paperSentences'>,
    private readonly draft: Draft,
  ) {
    this.print = fingerprint(draft.sentences);
  }

  /** The papers known to be the draft so far. */
  async known(): Promise<string[]> {
    this.fromSource ??= this.store.sources().then((s) => papersFromDraftSource(s, this.draft));
    const fromSource = await this.fromSource;
    return [...new Set([...fromSource, ...[...this.decided].filter(([, self]) => self).map(([id]) => id)])];
  }

  /**
   * Checks the papers of near-identical hits not yet decided (reading each one's sentences once); true when one of
   * them is the draft, so the lookup must run again without it. Stores that cannot list a paper's sentences decide
   * by source only.
   */
  async learnFrom(hits: readonly Hit[], signal?: AbortSignal): Promise<boolean> {
    if (!this.store.paperSentences) return false;
    const known = new Set(await this.known());
    const suspects = new Set(
      hits
        .filter((h) => h.similarity >= SELF_CHECK_SIMILARITY && !known.has(h.paper.id) && !this.decided.has(h.paper.id))
        .map((h) => h.paper.id),
    );
    let found = false;
    for (const id of suspects) {
      const self = sameWork(fingerprint(await this.store.paperSentences(id, signal)), this.print);
      this.decided.set(id, self);
      found ||= self;
    }
    return found;
  }
}

/**
 * A lookup without the draft's own papers: run with those known, then, when a near-identical hit's paper turns out to
 * be the draft by its content, once more without it.
 */
export async function lookupExcludingSelf(
  self: SelfPapers | null,
  lookup: (exclude: string[]) => Promise<Hit[]>,
  signal?: AbortSignal,
): Promise<Hit[]> {
  if (!self) return lookup([]);
  const hits = await lookup(await self.known());
  return (await self.learnFrom(hits, signal)) ? lookup(await self.known()) : hits;
}
