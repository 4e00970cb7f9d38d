// A title a reader made up: a LaTeX source without \title is shown by its first heading, else its file name, so that
// it has a name in the panel, the hover and its BibTeX. It is not the paper's title: matching ignores it and another
// record's real title replaces it (ingest/identity.ts, ingest/stored-work.ts). Stored (no schema change) where a
// model's proposed title is, in papers.metadata_proposed_by, as where the name came from: the panel and the hover
// then say "(title proposed by its first heading)", which reads right, and the corpus health report lists the paper
// under "Without a title" rather than under a model's proposals. These two values are never a model's name.

/** Where a made-up title was taken from, as stored in papers.metadata_proposed_by. */
export type MadeUpFrom = 'its first heading' | 'its file name';

const MADE_UP_FROM: ReadonlySet<string> = new Set<MadeUpFrom>(['its first heading', 'its file name']);

/** Where the title was made up from, when the stored proposer (metadata_proposed_by) says it was; null otherwise. */
export function madeUpFrom(proposedBy: string | null | undefined): MadeUpFrom | null {
  return proposedBy && MADE_UP_FROM.has(proposedBy) ? (proposedBy as MadeUpFrom) : null;
}
