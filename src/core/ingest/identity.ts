// One paper per work: the same work read from several sources (its LaTeX source and the PDF compiled from it, an
// arXiv HTML page, a Zotero item, a .bib entry, a fetch) is recognised and kept once. Records are the same work when
// they share a DOI or an arXiv id, the same normalised title, first author and year, or (no identifier needed) the
// same content fingerprint (src/core/paper/fingerprint.ts). The best text wins; metadata is merged field by field;
// the user's own key (a .bib entry's, a Zotero item's) is kept.
import { fingerprint, MIN_SHINGLES } from '../paper/fingerprint.js';
import { idsOfPaperId, normaliseArxivId, normaliseDoi, normaliseTitle } from '../paper/ids.js';
import { formatBibtexEntry, makeCitationKey } from '../bib/format.js';
import type { ParsedPaper } from './types.js';

/**
 * How good a source's text is, best highest: an author's LaTeX (or Markdown) source, then arXiv's HTML, a typeset PDF
 * (a Zotero item reads its PDF), Zotero's full-text cache, and last a record with an abstract at most (a .bib entry,
 * metadata from a web service). Decided from where the text came from: the path, or a web source's URL.
 */
export function textRank(source: { sourcePath?: string | null; source?: string | null }): number {
  const where = (source.source && !source.sourcePath ? source.source : (source.sourcePath ?? '')).toLowerCase();
  if (/^metadata:/.test(where) || /\.bib(tex)?$/.test(where)) return 1;
  if (/zotero-ft-cache/.test(where)) return 2;
  if (/\.(tex|ltx|md|markdown|qmd|rmd)$/.test(where)) return 5;
  if (/\.x?html?$/.test(where) || /arxiv\.org\/html\//.test(where)) return 4;
  return 3;
}

/** Last name of a display name ('Ada Lovelace', 'Lovelace, Ada'), folded: the first-author part of a title key. */
function lastName(author: string | undefined): string {
  if (!author) return '';
  const name = author.includes(',') ? author.split(',')[0] : (author.trim().split(/\s+/).pop() ?? '');
  return normaliseTitle(name);
}

/** The title the record says is the paper's: none for a display name a reader made up (titleFallback). */
function realTitle(p: { title: string | null; titleFallback?: string | null }): string | null {
  return p.titleFallback ? null : p.title;
}

/** Normalised title + first author's last name + year, or null when one of them is missing (or the title made up). */
export function titleKey(p: Pick<ParsedPaper, 'title' | 'authors' | 'year' | 'titleFallback'>): string | null {
  const title = normaliseTitle(realTitle(p) ?? '');
  const author = lastName(p.authors[0]);
  return title && author && p.year ? `${title}|${author}|${p.year}` : null;
}

/** What decides whether two records of the same text are different papers (a stored paper's PaperRef has it too). */
type WorkMeta = Pick<ParsedPaper, 'title' | 'doi' | 'year' | 'titleFallback'> & { arxivId?: string | null };

/** A work seen in this run (or stored before it, known by its id alone). */
export interface Work {
  id: string;
  /** The record as read (null for a paper stored before the run: only its id is known). */
  paper: ParsedPaper | null;
  /** Its shingles, shared with the index. */
  print: Set<number>;
}

/**
 * Share of a fingerprint two records of one work share at least (containment of the smaller in the larger): a LaTeX
 * source and its compiled PDF share ~0.99; papers written from one template with different facts (generated test
 * papers) share up to ~0.6, so the bar is well above that.
 */
const SAME_WORK = 0.8;
/** Works a shingle may belong to and still name candidates (see WorkIndex.find). */
const COMMON_SHINGLE = 64;

/**
 * The works of an ingest run, looked up by identifier, by title key, and by fingerprint through an inverted index
 * of shingles (so a run of thousands of papers does not compare every pair).
 */
export class WorkIndex {
  private readonly byId = new Map<string, Work>();
  private readonly byDoi = new Map<string, Work>();
  private readonly byArxiv = new Map<string, Work>();
  private readonly byTitle = new Map<string, Work>();
  private readonly byShingle = new Map<number, Work[]>();

  /** A paper stored before the run: matched by the DOI or arXiv id its id carries. */
  addStored(id: string): void {
    const work: Work = { id, paper: null, print: new Set() };
    this.byId.set(id, work);
    const { doi, arxivId } = idsOfPaperId(id);
    if (doi && !this.byDoi.has(doi)) this.byDoi.set(doi, work);
    if (arxivId && !this.byArxiv.has(arxivId)) this.byArxiv.set(arxivId, work);
  }

  /** Records a paper of this run (replacing the work it was merged into, when `replaces` is given). */
  add(paper: ParsedPaper, replaces?: Work): Work {
    if (replaces) this.remove(replaces);
    const work: Work = { id: paper.id, paper, print: fingerprint(paper.sentences.map((s) => s.text)) };
    this.byId.set(work.id, work);
    const doi = normaliseDoi(paper.doi);
    const arxiv = normaliseArxivId(paper.arxivId);
    const key = titleKey(paper);
    if (doi) this.byDoi.set(doi, work);
    if (arxiv) this.byArxiv.set(arxiv, work);
    if (key) this.byTitle.set(key, work);
    for (const s of work.print) {
      const list = this.byShingle.get(s);
      if (list) list.push(work);
      else this.byShingle.set(s, [work]);
    }
    return work;
  }

  private remove(work: Work): void {
    for (const map of [this.byId, this.byDoi, this.byArxiv, this.byTitle]) {
      for (const [k, w] of map) if (w === work) map.delete(k);
    }
    for (const s of work.print) {
      const list = this.byShingle.get(s);
      if (!list) continue;
      const kept = list.filter((w) => w !== work);
      if (kept.length) this.byShingle.set(s, kept);
      else this.byShingle.delete(s);
    }
  }

  /** The work a paper is a record of, if the run (or the corpus) already has it; its own id never matches itself. */
  find(paper: ParsedPaper): Work | undefined {
    const doi = normaliseDoi(paper.doi);
    const arxiv = normaliseArxivId(paper.arxivId);
    const key = titleKey(paper);
    const direct = (doi && this.byDoi.get(doi)) || (arxiv && this.byArxiv.get(arxiv)) || (key && this.byTitle.get(key)) || undefined;
    if (direct && direct.paper !== paper) return direct;
    const print = fingerprint(paper.sentences.map((s) => s.text));
    if (print.size < MIN_SHINGLES) return undefined;
    // Candidates through the shingles few works share: a shingle of hundreds of works (a template's boilerplate, the
    // same sentence in every abstract of a generated .bib) names no work, and walking its list for every record made
    // a large .bib quadratic. A candidate's share is then counted over all its shingles.
    const candidates = new Set<Work>();
    for (const s of print) {
      const list = this.byShingle.get(s);
      if (list && list.length <= COMMON_SHINGLE) for (const w of list) candidates.add(w);
    }
    let best: Work | undefined;
    let bestShare = 0;
    for (const w of candidates) {
      if (w.print.size < MIN_SHINGLES || w.paper === paper || (w.paper && conflicting(w.paper, paper))) continue;
      let n = 0;
      const [small, large] = w.print.size < print.size ? [w.print, print] : [print, w.print];
      for (const s of small) if (large.has(s)) n++;
      const share = n / Math.min(w.print.size, print.size);
      if (share >= SAME_WORK && share > bestShare) [best, bestShare] = [w, share];
    }
    return best;
  }
}

/**
 * Metadata that says two records with the same text are different papers: other DOIs, other arXiv ids, years more
 * than one apart (a preprint and its publication), or titles of which neither holds the other (a PDF's title line
 * may carry a subtitle). Papers written from one template (generated ones) share their text but not these. A title a
 * reader made up (a LaTeX file without \title named by its first heading) says nothing.
 */
export function conflicting(a: WorkMeta, b: WorkMeta): boolean {
  const differ = <T>(x: T | null, y: T | null) => x != null && y != null && x !== y;
  // Padded, so that a title holds another only word for word ('paper 1' is not in 'paper 21').
  const ta = ` ${normaliseTitle(realTitle(a) ?? '')} `;
  const tb = ` ${normaliseTitle(realTitle(b) ?? '')} `;
  return (
    differ(normaliseDoi(a.doi), normaliseDoi(b.doi)) ||
    differ(normaliseArxivId(a.arxivId), normaliseArxivId(b.arxivId)) ||
    (a.year != null && b.year != null && Math.abs(a.year - b.year) > 1) ||
    (!!ta.trim() && !!tb.trim() && !ta.includes(tb) && !tb.includes(ta))
  );
}

/**
 * One record of a work from two: the text (sections, sentences, elements, source) of the better source (the earlier
 * record on a tie), each metadata field from whichever has it (the better text's first), the user's own key where
 * either has one, and the id of the best identifier (DOI, arXiv id, else the better text's).
 */
export function mergeWork(a: ParsedPaper, b: ParsedPaper): ParsedPaper {
  const [text, other] = textRank(b) > textRank(a) ? [b, a] : [a, b];
  const keyFrom = text.ownKey ? text : other.ownKey ? other : text;
  const doi = normaliseDoi(text.doi) ?? normaliseDoi(other.doi);
  const arxivId = normaliseArxivId(text.arxivId) ?? normaliseArxivId(other.arxivId);
  // Metadata a model proposed (propose-metadata.ts) yields to a record's own: title, authors and year come as a set.
  const [meta, rest] = text.metadataProposedBy && !other.metadataProposedBy && realTitle(other) ? [other, text] : [text, other];
  // A made-up title (titleFallback) yields to any other title, a proposal's included (that one stays marked).
  const titleFrom = meta.title && (realTitle(meta) || !rest.title) ? meta : rest;
  const merged: ParsedPaper = {
    ...text,
    id: doi ? `doi:${doi}` : arxivId ? `arxiv:${arxivId}` : text.id,
    title: titleFrom.title,
    authors: meta.authors.length ? meta.authors : rest.authors,
    year: meta.year ?? rest.year,
    metadataProposedBy: titleFrom.metadataProposedBy ?? null,
    titleFallback: titleFrom.titleFallback ?? null,
    venue: text.venue || other.venue,
    doi,
    arxivId,
    url: text.url || other.url,
    abstract: text.abstract || other.abstract,
    // A key made from a proposal or a made-up title that yielded is made again below.
    citationKey:
      !keyFrom.ownKey && (keyFrom.metadataProposedBy || keyFrom.titleFallback) && titleFrom !== keyFrom ? null : keyFrom.citationKey,
    ownKey: !!keyFrom.ownKey,
    bibtex: null,
  };
  // Neither key is the user's: one made from the merged metadata (a PDF without authors made `anon…`).
  if (!merged.ownKey) merged.citationKey = makeCitationKey(merged, new Set());
  merged.bibtex = merged.ownKey && keyFrom.bibtex ? keyFrom.bibtex : formatBibtexEntry(merged, merged.citationKey!);
  return merged;
}
