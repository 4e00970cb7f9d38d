// Citations inside quotes: a corpus sentence that itself cites work ("as shown in [12]", "(Smith et al., 2019)", a
// `\cite{key}` in its source) states that work's claim, not its own paper's. Ingest stored which works each sentence
// cites (papers.cited_works, ingest/references.ts); here a quote's cited works are named and looked up in the corpus
// (by DOI, title, a title printed in the reference entry, or a bare citation key), so that Ask and related work can
// offer the original and never attribute the claim to the quoting paper without saying so.
import { normaliseDoi, normaliseTitle } from '../paper/ids.js';
import type { CitedWork, CorpusStore, Hit, PaperRef } from '../store/types.js';

/** A work a quoted sentence cites, named as its paper's reference list names it, with the corpus paper it is. */
export interface InnerCitation {
  /** Short name: "Smith et al. 2019", else the entry's opening words, else its key or number. */
  work: string;
  title: string | null;
  year: number | null;
  /** The corpus paper it is, when the corpus has it (never the quoting paper itself). */
  paper: PaperRef | null;
}

/**
 * A corpus title shorter than this is not looked for inside a reference entry's text (too many false matches), a Han
 * or kana character counting two (titleLength): a Chinese or Japanese title says in 10 characters what a Latin one
 * says in 20 or more, and "深度学习" (deep learning, 4) is as generic as "deep learning".
 */
const MIN_TITLE_CHARS = 20;
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;

/** A normalised title's length against MIN_TITLE_CHARS: its characters, a Han or kana one counting two. */
function titleLength(normalised: string): number {
  return normalised.length + (normalised.match(WIDE)?.length ?? 0);
}

function surname(name: string): string {
  const n = name.trim();
  return n.includes(',') ? n.split(',')[0].trim() : (n.split(/\s+/).pop() ?? n);
}

/** "Smith 2019", "Smith and Lee 2019", "Smith et al. 2019" from authors and year. */
export function workName(authors: readonly string[], year: number | null): string | null {
  if (!authors.length) return null;
  const who =
    authors.length === 1
      ? surname(authors[0])
      : authors.length === 2
        ? `${surname(authors[0])} and ${surname(authors[1])}`
        : `${surname(authors[0])} et al.`;
  return year ? `${who} ${year}` : who;
}

/** The corpus paper a cited work is, or null: same DOI, same title, its title printed in the entry, or a bare key. */
export function corpusPaperOf(work: CitedWork, papers: readonly PaperRef[], quoting: string): PaperRef | null {
  const doi = normaliseDoi(work.doi);
  const title = work.title ? normaliseTitle(work.title) : '';
  const text = ` ${normaliseTitle(work.text)} `;
  const key = work.key?.toLowerCase();
  for (const p of papers) {
    if (p.id === quoting) continue;
    if (doi && (normaliseDoi(p.doi) === doi || p.id === `doi:${doi}`)) return p;
    const t = p.title ? normaliseTitle(p.title) : '';
    if (t && title && t === title) return p;
    if (titleLength(t) >= MIN_TITLE_CHARS && text.includes(` ${t} `)) return p;
    // Only a key is known (no entry in the list or .bib): the user's own key of a corpus paper names it.
    if (key && !work.text && p.citationKey?.toLowerCase() === key) return p;
  }
  return null;
}

function nameOf(work: CitedWork, paper: PaperRef | null): string {
  return (
    workName(work.authors, work.year) ??
    (paper ? workName(paper.authors, paper.year) : null) ??
    (work.text ? work.text.split(/\s+/).slice(0, 8).join(' ') + (work.text.split(/\s+/).length > 8 ? '…' : '') : null) ??
    work.key ??
    `[${work.label}]`
  );
}

/**
 * The corpus papers these works may be: the store's lookup by DOI, title and key (a few rows), else every paper (a
 * store without it). corpusPaperOf then picks from them as from the whole list, so both give the same answer.
 */
async function candidates(store: CorpusStore, works: readonly CitedWork[]): Promise<PaperRef[]> {
  if (!store.findPapers) return (await store.listPapers?.()) ?? [];
  const set = (xs: Array<string | null | undefined>) => [...new Set(xs.filter((x): x is string => !!x))];
  return store.findPapers({
    dois: set(works.map((w) => normaliseDoi(w.doi))),
    // Also normalised: a ligature or accent the SQL key drops is folded here (title_key in store/sql/lookup.ts).
    titles: set(works.flatMap((w) => (w.title ? [w.title, normaliseTitle(w.title)] : []))),
    keys: set(works.filter((w) => !w.text).map((w) => w.key?.toLowerCase())),
    texts: set(works.flatMap((w) => (w.text ? [w.text, normaliseTitle(w.text)] : []))),
  });
}

/**
 * Sentence id → the works that sentence cites, for the hits whose paper stored its cited works (none on a store
 * without them, or for papers ingested before schema v14). The corpus is asked once, only when a hit cites
 * something, for the papers those works may be.
 */
export async function innerCitations(store: CorpusStore, hits: readonly Hit[]): Promise<Map<number, InnerCitation[]>> {
  const out = new Map<number, InnerCitation[]>();
  if (!hits.length || !store.citedWorks) return out;
  const stored = new Map((await store.citedWorks([...new Set(hits.map((h) => h.paper.id))])).map((r) => [r.id, r.works]));
  const cited = hits.map((h) => ({ h, works: (stored.get(h.paper.id) ?? []).filter((w) => w.citedBy.includes(h.sentence.globalIndex)) }));
  if (!cited.some((c) => c.works.length)) return out;
  const papers = await candidates(
    store,
    cited.flatMap((c) => c.works),
  );
  for (const { h, works } of cited) {
    if (!works.length) continue;
    out.set(
      h.sentence.id,
      works.map((w) => {
        const paper = corpusPaperOf(w, papers, h.paper.id);
        return { work: nameOf(w, paper), title: w.title ?? paper?.title ?? null, year: w.year ?? paper?.year ?? null, paper };
      }),
    );
  }
  return out;
}
