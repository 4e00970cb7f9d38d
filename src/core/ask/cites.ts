// The works a source sentence itself cites, as Ask shows them: "cites: Smith et al. 2019 — in your corpus (Title)".
import type { InnerCitation } from '../retrieve/inner-citations.js';
import type { AskCite } from './types.js';

/** An inner citation as the conversation keeps it (plain JSON). */
export function askCite(c: InnerCitation): AskCite {
  return {
    work: c.work,
    title: c.title,
    year: c.year,
    inCorpus: c.paper ? { paperId: c.paper.id, title: c.paper.title, citationKey: c.paper.citationKey ?? null } : null,
  };
}

/** "cites: Smith et al. 2019 — in your corpus (Title)" / "… — not in your corpus". */
export function citesLine(c: AskCite): string {
  return `cites: ${c.work} — ${c.inCorpus ? `in your corpus (${c.inCorpus.title ?? c.inCorpus.paperId})` : 'not in your corpus'}`;
}
