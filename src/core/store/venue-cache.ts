// The corpus's venue list, which Ask and related work read whenever a question may name a venue ("at ACL"): read
// once and kept until the next write through the same store. A corpus others may write to (a shared server,
// Supabase) is read again after `maxAgeMs`, as their writes do not pass through this store.

export class VenueCache {
  private held: { at: number; venues: Promise<string[]> } | undefined;

  constructor(
    private readonly read: () => Promise<string[]>,
    private readonly maxAgeMs: number,
  ) {}

  get(): Promise<string[]> {
    if (!this.held || Date.now() - this.held.at > this.maxAgeMs) {
      const venues = this.read();
      this.held = { at: Date.now(), venues };
      // A failed read is not kept: the next question reads again.
      venues.catch(() => {
        if (this.held?.venues === venues) this.held = undefined;
      });
    }
    return this.held.venues;
  }

  /** After a write: the next question reads the venues again. */
  clear(): void {
    this.held = undefined;
  }
}
