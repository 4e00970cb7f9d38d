// A corpus indexed before cross-references left a placeholder (latex-inline.ts now writes `[ref]` where `\ref` stood)
// holds sentences such as "as in Fig.." and "(see Sec.)": the pointer word with nothing after it. Text taken from the
// corpus into the author's paper gets the placeholder back, so it never reads as a doubled period or a bare "Sec.".

/** Pointer words a `\\ref` follows in papers, abbreviated and in full (capitalised, as written before a number). */
const ABBREVIATED = String.raw`(?:Figs?|Tabs?|Secs?|Eqs?|Apps?|Algs?|Thms?|Chaps?)`;
const FULL = String.raw`(?:Figures?|Tables?|Sections?|Equations?|Appendix|Algorithms?|Theorems?|Lemmas?|Chapters?|Listings?)`;
/** The pointer before punctuation or the end ("Fig..", "Sec.)", "Figure,"), or an abbreviation before a lower-case word ("as Fig. shows"). */
const DANGLING = new RegExp(String.raw`\b(${ABBREVIATED})\.(?=\s*(?:[.,;:)\]]|$)|\s+[a-z])|\b(${FULL})(?=\s*(?:[.,;:)\]]|$))`, 'g');

/** `text` with `[ref]` after each pointer word whose reference was dropped: "as in Fig.." → "as in Fig. [ref].". */
export function mendDroppedReferences(text: string): string {
  return text.replace(DANGLING, (_m, abbr: string | undefined, full: string | undefined) => (abbr ? `${abbr}. [ref]` : `${full} [ref]`));
}
