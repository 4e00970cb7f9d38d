// A quote that itself cites work ("as shown in [12]") states the cited work's claim, not its own paper's: a written
// sentence resting on such a quote says so. The cited work is cited too when the review cites it anyway (one of its
// papers); otherwise the claim is marked "(Smith et al. 2019, as cited in [P1])".
import { assessSupport, SUPPORT_THRESHOLD, type PaperCandidate, type SentenceReport, type VerifiedQuote } from '../grounding/index.js';
import { innerCitations, type InnerCitation } from '../retrieve/inner-citations.js';
import { normalizeText } from '../text/match.js';
import type { CorpusStore } from '../store/types.js';

/** Quote id → the works its sentence cites (quotes are matched to their retrieved sentence by their text). */
export async function quoteCitations(
  store: CorpusStore,
  papers: readonly PaperCandidate[],
  quotes: readonly VerifiedQuote[],
): Promise<Map<string, InnerCitation[]>> {
  const hits = papers.flatMap((p) => p.passages);
  const inner = await innerCitations(store, hits);
  const out = new Map<string, InnerCitation[]>();
  if (!inner.size) return out;
  for (const q of quotes) {
    const t = normalizeText(q.text);
    const hit = hits.find((h) => h.paper.id === q.paperId && inner.has(h.sentence.id) && normalizeText(h.sentence.text).includes(t));
    if (hit) out.set(q.id, inner.get(hit.sentence.id)!);
  }
  return out;
}

/**
 * The sentence with each citation of a paper whose backing quote cites other work made second-hand: `[P2] (as cited
 * in [P1])` when the cited work is one of the review's papers, else `(Smith et al. 2019, as cited in [P1])`. Returns
 * the text and the short ids it now cites (the original's added). A sentence that already says "as cited in" is left.
 */
export function markSecondHand(
  s: Pick<SentenceReport, 'text' | 'cited' | 'quoteIds'>,
  quotes: ReadonlyMap<string, VerifiedQuote>,
  cites: ReadonlyMap<string, readonly InnerCitation[]>,
  papers: readonly PaperCandidate[],
): { text: string; cited: string[] } {
  if (!cites.size || /\bas cited in\b/i.test(s.text)) return { text: s.text, cited: s.cited };
  const cited = [...s.cited];
  const text = s.text.replace(/\[(P\d+)\]/g, (m, shortId: string) => {
    const inner = s.quoteIds
      .map((id) => quotes.get(id))
      .filter((q): q is VerifiedQuote => !!q && q.paperShortId === shortId && !!cites.get(q.id)?.length)
      .filter((q) => assessSupport(s.text, [q.text]).score >= SUPPORT_THRESHOLD)
      .flatMap((q) => cites.get(q.id)!);
    if (!inner.length) return m;
    const originals = inner.map((c) => papers.find((p) => c.paper && p.paper.id === c.paper.id)?.shortId);
    if (originals.every(Boolean)) {
      for (const id of originals) if (!cited.includes(id!)) cited.push(id!);
      return `${[...new Set(originals)].map((id) => `[${id}]`).join('')} (as cited in ${m})`;
    }
    return `(${[...new Set(inner.map((c) => c.work))].join('; ')}, as cited in ${m})`;
  });
  return { text, cited };
}
