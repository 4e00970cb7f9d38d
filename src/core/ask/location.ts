// Where a cited PDF sentence is printed, as a reader looks it up: "p. 3, ll. 12–14" (SentenceLocation in
// src/core/store/types.ts says how lines are counted). Pure, so the panel's webview formats it the same way.

export interface PrintedAt {
  page: number | null;
  lineStart?: number | null;
  lineEnd?: number | null;
  /** The page the sentence ends on, when it runs over a page break. */
  pageEnd?: number | null;
}

/** "p. 3", "p. 3, l. 12", "p. 3, ll. 12–14", or over a page break "p. 3, l. 40 – p. 4, l. 2"; null without a page. */
export function pageAndLines(at: PrintedAt): string | null {
  if (at.page == null) return null;
  const { lineStart: a, lineEnd: b } = at;
  if (a == null || b == null) return `p. ${at.page}`;
  const end = at.pageEnd ?? at.page;
  if (end !== at.page) return `p. ${at.page}, l. ${a} – p. ${end}, l. ${b}`;
  return a === b ? `p. ${at.page}, l. ${a}` : `p. ${at.page}, ll. ${a}–${b}`;
}
