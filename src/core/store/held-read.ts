// What a store reads about the whole corpus and lookups need again and again: the venue list, which Ask and related
// work read whenever a question may name a venue ("at ACL"), and the papers whose metadata a model proposed, which
// every hit is marked from. Read once and kept until the next write through the same store. A corpus others may
// write to (a shared server, Supabase) is read again after `maxAgeMs`, as their writes do not pass through this store.

import type { PaperRef } from './types.js';

export class HeldRead<T> {
  private held: { at: number; value: Promise<T> } | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly maxAgeMs: number,
  ) {}

  get(): Promise<T> {
    if (!this.held || Date.now() - this.held.at > this.maxAgeMs) {
      const value = this.read();
      this.held = { at: Date.now(), value };
      // A failed read is not kept: the next question reads again.
      value.catch(() => {
        if (this.held?.value === value) this.held = undefined;
      });
    }
    return this.held.value;
  }

  /** After a write: the next question reads again. */
  clear(): void {
    this.held = undefined;
  }
}

/** The papers whose title, authors and year a model proposed (papers.metadata_proposed_by): id → model. */
export type Proposals = ReadonlyMap<string, string>;

/**
 * Hits (sentence or element hits) with their paper marked from `proposals` (the lookups' SQL does not read the column:
 * no schema change). Only a proposed paper gets the field, so a hit of real metadata (and the CLI's JSON of it) is as
 * it was.
 */
export function markProposed<T extends { paper: PaperRef }>(hits: T[], proposals: Proposals): T[] {
  for (const h of hits) {
    const model = proposals.get(h.paper.id);
    if (model) h.paper.metadataProposedBy = model;
  }
  return hits;
}
