// Turns the store's hits into the panel protocol's HitView / BookmarkView (the host's side of the panel: the
// webview bundle never sees a store type).
import { madeUpFrom } from '../../core/paper/made-up-title.js';
import type { Hit } from '../../core/store/types.js';
import type { BookmarkView, HitView } from '../../../webview/protocol.js';

/**
 * The protocol's view of a store hit. Its `id` is the displayed sentence's corpus id, so it is stable across
 * lookups (a bookmark made at offset 1 keeps the sentence that was shown). The store keeps no landing page, so
 * `url` is null: "Open source" uses the DOI, else the paper's indexed file.
 */
export function toHitView(hit: Hit): HitView {
  return {
    id: String(hit.sentence.id),
    similarity: hit.similarity,
    sentence: { text: hit.sentence.text, sectionTitle: hit.sentence.sectionTitle },
    previous: hit.previous ? { text: hit.previous.text } : null,
    next: hit.next ? { text: hit.next.text } : null,
    paper: {
      id: hit.paper.id,
      title: hit.paper.title,
      authors: [...hit.paper.authors],
      year: hit.paper.year,
      venue: hit.paper.venue,
      doi: hit.paper.doi,
      url: null,
      citationKey: hit.paper.citationKey ?? null,
      metadataProposedBy: hit.paper.metadataProposedBy ?? null,
      // A name made up for a source without \title is stored as proposed by where it came from (paper/made-up-title.ts).
      ...(madeUpFrom(hit.paper.metadataProposedBy) ? { titleMadeUp: true } : {}),
    },
  };
}

/** A bookmark of a displayed hit (what the host persists per workspace and posts back in `bookmarks`). */
export function toBookmark(hit: HitView, addedAt: Date = new Date()): BookmarkView {
  return {
    id: hit.id,
    sentence: { ...hit.sentence },
    paper: { ...hit.paper, authors: [...hit.paper.authors] },
    addedAt: addedAt.toISOString(),
  };
}
