// One paper per work across ingest runs: a record read now (a PDF) is matched against the papers stored by earlier
// runs (its LaTeX source) by its text, where no DOI or arXiv id ties them. Each candidate's stored sentences are
// fingerprinted and compared exactly as within a run (identity.ts), so a paper is never matched on a shared sentence
// alone. Which stored papers are candidates depends on how much was stored before the run:
// - a small corpus (an author's own papers, the samples): every stored paper's fingerprint is read once per run into
//   one table of shingle → papers, and a record's shared shingles with each paper are counted from its own
//   shingles, with no search per record (a .bib of thousands of abstracts would otherwise cost three keyword
//   searches each);
// - a large one: the stored papers a keyword search finds for a few of the record's sentences.
// A record so matched is written under the stored paper's id with the metadata it lacks (fillFromStored).
import { fingerprint, MIN_SHINGLES, SAME_WORK, sameWork } from '../paper/fingerprint.js';
import { idsOfPaperId } from '../paper/ids.js';
import { madeUpFrom } from '../paper/made-up-title.js';
import type { CorpusStore, PaperMetadata, PaperRef } from '../store/types.js';
import { formatBibtexEntry, makeCitationKey } from '../bib/format.js';
import { conflicting } from './identity.js';
import type { ParsedPaper } from './types.js';

/** Sentences of the record searched for (the longest of each third of the paper: specific words, spread out). */
const PROBES = 3;
/** Hits per probe: a stored copy of the work ranks at the top for its own sentence. */
const HITS = 3;
/**
 * Up to this many stored sentences, the stored papers' fingerprints are held in memory for the run (about 20
 * shingles a sentence: a few MB) instead of searching per record.
 */
const TABLE_UP_TO = 20_000;

/** The longest sentence of each third of the paper. */
function probes(paper: ParsedPaper): string[] {
  const n = paper.sentences.length;
  const out: string[] = [];
  for (let i = 0; i < PROBES; i++) {
    const part = paper.sentences.slice(Math.floor((i * n) / PROBES), Math.floor(((i + 1) * n) / PROBES));
    const best = part.reduce<string | null>((b, s) => (!b || s.text.length > b.length ? s.text : b), null);
    if (best) out.push(best);
  }
  return out;
}

/** The stored papers' fingerprints as one table: which papers hold each shingle, and each paper's size and metadata. */
interface ShingleTable {
  papers: Array<{ ref: PaperRef; size: number }>;
  holders: Map<number, number | number[]>;
}

/** Finds, for each record of one ingest run, the paper stored before the run that is the same work. */
export class StoredWorks {
  private table: Promise<ShingleTable | undefined> | undefined;

  /** `stored`: the ids of the papers stored when the run began; `tableUpTo`: the corpus size (sentences) up to which the table is read. */
  constructor(
    private readonly store: CorpusStore,
    private readonly stored: ReadonlySet<string>,
    private readonly tableUpTo = TABLE_UP_TO,
  ) {}

  /**
   * The stored paper (one of `eligible`) that is the same work as `paper`, with its metadata; undefined when there
   * is none, the record is too short to tell, or the store cannot list a paper's sentences (Supabase).
   */
  async find(paper: ParsedPaper, eligible: (id: string) => boolean, signal?: AbortSignal): Promise<PaperRef | undefined> {
    if (!this.store.paperSentences || !this.stored.size) return undefined;
    const print = fingerprint(paper.sentences.map((s) => s.text));
    if (print.size < MIN_SHINGLES) return undefined;
    this.table ??= this.readTable(signal);
    const table = await this.table;
    return table ? this.fromTable(table, paper, print, eligible) : this.byProbes(paper, print, eligible, signal);
  }

  /** The table of the stored fingerprints, or undefined when the corpus is too large to hold it. */
  private async readTable(signal?: AbortSignal): Promise<ShingleTable | undefined> {
    if (!this.store.listPapers || (await this.store.counts()).sentences > this.tableUpTo) return undefined;
    const table: ShingleTable = { papers: [], holders: new Map() };
    for (const ref of await this.store.listPapers()) {
      if (!this.stored.has(ref.id)) continue;
      signal?.throwIfAborted();
      const print = fingerprint(await this.store.paperSentences!(ref.id, signal));
      const n = table.papers.push({ ref, size: print.size }) - 1;
      for (const s of print) {
        const held = table.holders.get(s);
        if (held === undefined) table.holders.set(s, n);
        else if (typeof held === 'number') table.holders.set(s, [held, n]);
        else held.push(n);
      }
    }
    return table;
  }

  /** The eligible stored paper sharing the largest part of the smaller fingerprint, if that part makes one work. */
  private fromTable(
    table: ShingleTable,
    paper: ParsedPaper,
    print: ReadonlySet<number>,
    eligible: (id: string) => boolean,
  ): PaperRef | undefined {
    const shared = new Map<number, number>();
    for (const s of print) {
      const held = table.holders.get(s);
      if (held === undefined) continue;
      for (const n of typeof held === 'number' ? [held] : held) shared.set(n, (shared.get(n) ?? 0) + 1);
    }
    // Two fingerprints are one work when their shared shingles are most of the smaller one (sameWork).
    return [...shared]
      .map(([n, count]) => ({ ...table.papers[n], share: count / Math.min(print.size, table.papers[n].size) }))
      .filter((c) => c.size >= MIN_SHINGLES && c.share >= SAME_WORK && eligible(c.ref.id))
      .sort((a, b) => b.share - a.share)
      .find((c) => !conflicting(paper, storedWork(c.ref)))?.ref;
  }

  /** Candidates from a keyword search for a few of the record's sentences, each compared in full. */
  private async byProbes(
    paper: ParsedPaper,
    print: ReadonlySet<number>,
    eligible: (id: string) => boolean,
    signal?: AbortSignal,
  ): Promise<PaperRef | undefined> {
    const candidates = new Map<string, PaperRef>();
    for (const text of probes(paper)) {
      signal?.throwIfAborted();
      let hits;
      try {
        hits = await this.store.matchKeyword(text, { count: HITS });
      } catch {
        continue; // a probe the keyword search refuses (nothing but stop words) decides nothing
      }
      for (const h of hits) if (eligible(h.paper.id)) candidates.set(h.paper.id, h.paper);
    }
    for (const [id, ref] of candidates) {
      if (conflicting(paper, storedWork(ref))) continue;
      if (sameWork(print, fingerprint(await this.store.paperSentences!(id, signal)))) return ref;
    }
    return undefined;
  }
}

/** A stored paper as matching sees it: a title made up by the reader (stored as its proposer) is not its title. */
function storedWork(ref: PaperRef) {
  return { ...ref, arxivId: idsOfPaperId(ref.id).arxivId, titleFallback: madeUpFrom(ref.metadataProposedBy) };
}

/**
 * A record that is a stored paper's work, under that paper's id (freshPapers then keeps the better text), with the
 * metadata it lacks taken from the stored paper, and the stored key where its own is a made-up `anon…` one.
 */
export function fillFromStored(paper: ParsedPaper, stored: PaperRef): ParsedPaper {
  const anon = (key: string | null | undefined) => !key || /^anon/i.test(key);
  // The stored title may itself be made up (a LaTeX source without \title, paper/made-up-title.ts): then a real
  // title or a model's proposal of the record's own is kept over it, as within a run (identity.ts mergeWork).
  const storedMadeUp = madeUpFrom(stored.metadataProposedBy);
  // A model's proposal (fillProposed) yields to the stored paper's real title, authors and year.
  const own =
    paper.metadataProposedBy && stored.title && !storedMadeUp
      ? { ...paper, title: null, authors: [], year: null, metadataProposedBy: null, citationKey: null }
      : paper;
  // A title the reader made up (titleFallback: a LaTeX file's first heading) yields to the stored paper's.
  const ownTitle = own.titleFallback && stored.title ? null : own.title;
  const filled: ParsedPaper = {
    ...own,
    id: stored.id,
    title: ownTitle || stored.title,
    titleFallback: ownTitle ? (own.titleFallback ?? null) : storedMadeUp,
    authors: own.authors.length ? own.authors : stored.authors,
    year: own.year ?? stored.year,
    // The stored title a model proposed stays marked as proposed (it was shown as the paper's own when the mark was lost).
    metadataProposedBy:
      ownTitle || !stored.title ? (own.metadataProposedBy ?? null) : storedMadeUp ? null : (stored.metadataProposedBy ?? null),
    venue: paper.venue || stored.venue,
    doi: paper.doi ?? stored.doi,
  };
  // A key made from a title that yielded (a first heading) is made again, as a made-up one.
  if (own.ownKey || (!anon(own.citationKey) && own.title === ownTitle)) return filled;
  const key = !anon(stored.citationKey) ? stored.citationKey! : makeCitationKey(filled, new Set());
  return { ...filled, citationKey: key, bibtex: formatBibtexEntry(filled, key) };
}

/**
 * A record about to be written over its stored paper (a re-index, or an edit that changed no sentence, so the same id):
 * where the reader made its title up and the
 * stored paper has a real one (a later PDF or .bib entry brought it, see retitled), it keeps the stored title and key;
 * otherwise it is as read.
 */
export function keepStoredTitle(paper: ParsedPaper, stored: PaperRef | undefined): ParsedPaper {
  if (!paper.titleFallback || !stored?.title || madeUpFrom(stored.metadataProposedBy)) return paper;
  return fillFromStored(paper, stored);
}

/**
 * The metadata a stored paper with a made-up title takes from a later record of its work that has a real one (its
 * PDF, the user's .bib entry), `filled` being that record after fillFromStored; null when there is nothing to take.
 * The record's text is worse, so it is not written: only the paper's metadata changes, its sentences stay. The key
 * and BibTeX made from the made-up name are made again (the record's own where they are the user's); any other key,
 * the user's own above all, stays with its BibTeX.
 */
export function retitled(stored: PaperRef, filled: ParsedPaper): PaperMetadata | null {
  if (!madeUpFrom(stored.metadataProposedBy) || !filled.title?.trim() || filled.titleFallback) return null;
  const meta = {
    title: filled.title,
    authors: stored.authors.length ? stored.authors : filled.authors,
    year: stored.year ?? filled.year,
    metadataProposedBy: filled.metadataProposedBy ?? null,
  };
  const paper = { ...stored, ...meta, arxivId: idsOfPaperId(stored.id).arxivId, url: null };
  const madeUpKey = makeCitationKey({ ...stored, citationKey: null }, new Set());
  if (stored.citationKey && stored.citationKey !== madeUpKey) return { ...meta, citationKey: stored.citationKey };
  const key = filled.ownKey && filled.citationKey ? filled.citationKey : makeCitationKey({ ...paper, citationKey: null }, new Set());
  return { ...meta, citationKey: key, bibtex: filled.ownKey && filled.bibtex ? filled.bibtex : formatBibtexEntry(paper, key) };
}
