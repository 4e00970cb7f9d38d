// The corpus health report (`corpus-lens stats`, *Corpus Lens: Corpus Health*): what a corpus holds by source, and
// the papers that make it worse than it could be (no title, authors or year; metadata a model proposed; an `anon…`
// key; a stub of a few sentences; two papers of one work; a LaTeX project missing an \input file), each with the
// command that fixes it.
// Read only: it changes nothing.
import { existsSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { readdirSync } from 'node:fs';
import { fingerprint, sameWork, containment } from '../paper/fingerprint.js';
import { idsOfPaperId, normaliseArxivId, normaliseDoi, normaliseTitle } from '../paper/ids.js';
import { madeUpFrom, type MadeUpFrom } from '../paper/made-up-title.js';
import { expandLatexProject } from '../ingest/latex.js';
import { textRank } from '../ingest/identity.js';
import type { CorpusStore, PaperStat } from '../store/types.js';

/** Fewer sentences than this make a stub: the issue's bar for a PDF that yields far less than Zotero's cache. */
export const STUB_SENTENCES = 20;

export type SourceKind = 'latex' | 'markdown' | 'html' | 'pdf' | 'bib' | 'zotero' | 'web' | 'metadata' | 'import';

/** A paper as the report names it. */
export interface PaperBrief {
  id: string;
  title: string | null;
  citationKey: string | null;
  sourcePath: string | null;
  kind: SourceKind;
  sentences: number;
  /**
   * Where its title was made up from (a LaTeX source without \title: `its first heading`, `its file name`), when it
   * was: then `title` is a display name, not the paper's title (paper/made-up-title.ts). Absent otherwise.
   */
  titleMadeUpFrom?: MadeUpFrom;
}

/** How to fix a finding: a command line to run (null when none can), and what it does. */
export interface Fix {
  action: 'merge' | 'reindex' | 'metadata' | 'fetch' | 'none';
  text: string;
  command: string | null;
}

export interface PaperFinding {
  paper: PaperBrief;
  fix: Fix;
}

/** A paper whose title, authors and year a chat model proposed from its first page (it had none): to be checked. */
export interface ProposedFinding extends PaperFinding {
  /** The model that proposed them. */
  model: string;
}

export interface DuplicateGroup {
  /** What the papers share: a DOI, an arXiv id, a normalised title, or most of their text (fingerprint). */
  reason: 'doi' | 'arxiv' | 'title' | 'fingerprint';
  /** The shared DOI, arXiv id or title; for a fingerprint, the share of the smaller paper's shingles in the larger. */
  key: string;
  papers: PaperBrief[];
  fix: Fix;
}

export interface MissingInput {
  paper: PaperBrief;
  /** The main file and the \input/\include files it names that are not on disk now. */
  file: string;
  missing: string[];
  fix: Fix;
}

export interface HealthReport {
  papers: number;
  sentences: number;
  bySource: Array<{ kind: SourceKind; papers: number; sentences: number }>;
  missingTitle: PaperFinding[];
  missingAuthors: PaperFinding[];
  missingYear: PaperFinding[];
  anonymousKeys: PaperFinding[];
  /** Papers whose metadata a model proposed (ingest with an LLM, a PDF without any): shown, never confirmed. */
  proposedMetadata: ProposedFinding[];
  stubs: PaperFinding[];
  duplicates: DuplicateGroup[];
  /**
   * LaTeX papers whose main file names an \input/\include file that is not there. Ingest does not store its warnings,
   * so this is checked on disk when the report is made (papers whose main file is gone are left out).
   */
  missingInputs: MissingInput[];
  /** What the report could not check on this corpus, and why (e.g. the fingerprint where the store cannot list a paper's sentences). */
  notes: string[];
}

export interface HealthOptions {
  /** How the fix command lines name the corpus (`--db …`). */
  db: string;
  signal?: AbortSignal;
}

/** Where a paper's text came from, from its source path or web source. */
export function sourceKind(p: Pick<PaperStat, 'sourcePath' | 'source'>): SourceKind {
  const path = (p.sourcePath ?? '').toLowerCase();
  if (path.startsWith('zotero:')) return 'zotero';
  if (path) {
    if (/\.(tex|ltx)$/.test(path)) return 'latex';
    if (/\.(md|markdown|qmd|rmd)$/.test(path)) return 'markdown';
    if (/\.x?html?$/.test(path)) return 'html';
    if (/\.pdf$/.test(path)) return 'pdf';
    if (/\.bib(tex)?$/.test(path)) return 'bib';
  }
  if (p.source) return /^metadata:/.test(p.source) ? 'metadata' : 'web';
  return 'import';
}

/** A shell word: quoted unless it is plain. */
function sh(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function brief(p: PaperStat): PaperBrief {
  const madeUp = madeUpFrom(p.metadataProposedBy);
  return {
    id: p.id,
    title: p.title,
    citationKey: p.citationKey,
    sourcePath: p.sourcePath,
    kind: sourceKind(p),
    sentences: p.sentences,
    ...(madeUp ? { titleMadeUpFrom: madeUp } : {}),
  };
}

/** The .bib files beside a source file (where ingest would take its metadata from), if any. */
function bibsBeside(path: string): string[] {
  try {
    const dir = dirname(path);
    return readdirSync(dir)
      .filter((f) => extname(f).toLowerCase() === '.bib')
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

/** The DOI or arXiv id a paper can be fetched by, if it has one. */
function fetchId(p: PaperStat): string | null {
  const ids = idsOfPaperId(p.id);
  return normaliseDoi(p.doi) ?? ids.doi ?? ids.arxivId ?? null;
}

/** Re-index a paper's file (with the .bib beside it, whose entry then gives its metadata), or fetch it again. */
function metadataFix(p: PaperStat, db: string, what: string): Fix {
  const kind = sourceKind(p);
  if (p.sourcePath && kind !== 'zotero' && existsSync(p.sourcePath)) {
    const bibs = kind === 'bib' ? [] : bibsBeside(p.sourcePath);
    return {
      action: 'metadata',
      text: bibs.length
        ? `re-index it with the .bib beside it, whose entry gives its ${what}`
        : `add an entry for it (with its ${what}) to a .bib beside the file, then re-index both`,
      command: `corpus-lens ingest --db ${sh(db)} --reindex ${[p.sourcePath, ...bibs].map(sh).join(' ')}`,
    };
  }
  if (kind === 'zotero') {
    return { action: 'metadata', text: `fill in its ${what} in Zotero, then index the library again`, command: null };
  }
  const id = fetchId(p);
  if (id)
    return {
      action: 'fetch',
      text: `fetch its metadata again by its identifier`,
      command: `corpus-lens fetch --db ${sh(db)} --ids ${sh(id)} --yes`,
    };
  return { action: 'none', text: `its source file is not on this machine: index it from a file that has its ${what}`, command: null };
}

/**
 * A title the reader made up (a LaTeX source without \title): the PDF compiled from it, when it is beside it, gives the
 * real one (an ingest run of it retitles the paper, its LaTeX text kept); else a .bib entry, as for a missing title.
 */
function titleFix(p: PaperStat, db: string): Fix {
  const from = madeUpFrom(p.metadataProposedBy);
  if (!from) return metadataFix(p, db, 'title');
  const pdf = p.sourcePath?.replace(/\.(tex|ltx)$/i, '.pdf');
  if (pdf && pdf !== p.sourcePath && existsSync(pdf)) {
    return {
      action: 'metadata',
      text: `its source names no title (shown by ${from}): index the PDF compiled from it, whose title the paper takes (its LaTeX text stays)`,
      command: `corpus-lens ingest --db ${sh(db)} ${sh(pdf)}`,
    };
  }
  const fix = metadataFix(p, db, 'title');
  return { ...fix, text: `its source names no title (shown by ${from}): ${fix.text}` };
}

/** Metadata a model proposed: checked against the page at ingest, still to be confirmed by someone who knows the paper. */
function proposedFix(p: PaperStat, db: string): Fix {
  const id = fetchId(p);
  if (id)
    return {
      action: 'fetch',
      text: 'check them against the paper, or replace them: fetch its metadata by its identifier',
      command: `corpus-lens fetch --db ${sh(db)} --ids ${sh(id)} --yes`,
    };
  return {
    action: 'metadata',
    text: "check them against its first page; to replace them, index its LaTeX source or another copy that has its metadata (one paper per work: a source's own metadata is kept over a proposal)",
    command: null,
  };
}

function stubFix(p: PaperStat, db: string): Fix {
  const kind = sourceKind(p);
  const id = fetchId(p);
  if (kind === 'bib' || kind === 'metadata') {
    return id
      ? {
          action: 'fetch',
          text: 'only its abstract is indexed: fetch its open full text',
          command: `corpus-lens fetch --db ${sh(db)} --ids ${sh(id)} --yes`,
        }
      : { action: 'reindex', text: 'only its abstract is indexed: index its PDF or LaTeX source', command: null };
  }
  if (kind === 'zotero') {
    return {
      action: 'reindex',
      text: "its attachment yields little text: index the library again (Zotero's full-text cache is used when larger)",
      command: null,
    };
  }
  if (kind === 'pdf') {
    return {
      action: 'reindex',
      text: 'its PDF yields little text (scanned, or image-only): index its LaTeX source or another copy, or fetch it',
      command: id ? `corpus-lens fetch --db ${sh(db)} --ids ${sh(id)} --yes` : null,
    };
  }
  return {
    action: 'reindex',
    text: 'its source holds little text: if the file has more now (a missing \\input found, text added), re-index it',
    command: p.sourcePath && existsSync(p.sourcePath) ? `corpus-lens ingest --db ${sh(db)} --reindex ${sh(p.sourcePath)}` : null,
  };
}

/** The papers of one work merged: their files re-indexed in one run (one paper per work: best text, metadata field by field). */
function mergeFix(papers: readonly PaperStat[], db: string): Fix {
  const files = papers.map((p) => p.sourcePath).filter((f): f is string => !!f && !f.startsWith('zotero:') && existsSync(f));
  if (files.length === papers.length) {
    return {
      action: 'merge',
      text: 'merge: re-index their files in one run (one paper, the best text, metadata merged field by field)',
      command: `corpus-lens ingest --db ${sh(db)} --reindex ${files.map(sh).join(' ')}`,
    };
  }
  return {
    action: 'merge',
    text: 'merge: re-index the files of these papers in one run (not every one is on this machine, or one came from Zotero or the web)',
    command: files.length ? `corpus-lens ingest --db ${sh(db)} --reindex ${files.map(sh).join(' ')}` : null,
  };
}

/** The report: one read of every paper's metadata, and of every paper's sentences for the fingerprints. */
export async function healthReport(store: CorpusStore, options: HealthOptions): Promise<HealthReport> {
  if (!store.paperStats) throw new Error('this corpus cannot list its papers for a health report (a CorpusStudio database)');
  const stats = await store.paperStats();
  const { db, signal } = options;
  const notes: string[] = [];
  const bySource = new Map<SourceKind, { kind: SourceKind; papers: number; sentences: number }>();
  for (const p of stats) {
    const k = sourceKind(p);
    const row = bySource.get(k) ?? { kind: k, papers: 0, sentences: 0 };
    row.papers++;
    row.sentences += p.sentences;
    bySource.set(k, row);
  }
  const finding = (p: PaperStat, fix: Fix): PaperFinding => ({ paper: brief(p), fix });
  const report: HealthReport = {
    papers: stats.length,
    sentences: stats.reduce((n, p) => n + p.sentences, 0),
    bySource: [...bySource.values()].sort((a, b) => b.papers - a.papers || a.kind.localeCompare(b.kind)),
    // A title the reader made up (its first heading) is none: the paper is listed until a source of it brings one.
    missingTitle: stats.filter((p) => !p.title?.trim() || madeUpFrom(p.metadataProposedBy)).map((p) => finding(p, titleFix(p, db))),
    missingAuthors: stats.filter((p) => !p.authors.length).map((p) => finding(p, metadataFix(p, db, 'authors'))),
    missingYear: stats.filter((p) => p.year == null).map((p) => finding(p, metadataFix(p, db, 'year'))),
    anonymousKeys: stats.filter((p) => /^anon/i.test(p.citationKey ?? '')).map((p) => finding(p, metadataFix(p, db, 'authors'))),
    proposedMetadata: stats
      .filter((p) => p.metadataProposedBy && !madeUpFrom(p.metadataProposedBy))
      .map((p) => ({ ...finding(p, proposedFix(p, db)), model: p.metadataProposedBy! })),
    stubs: stats.filter((p) => p.sentences < STUB_SENTENCES).map((p) => finding(p, stubFix(p, db))),
    duplicates: await duplicates(store, stats, db, notes, signal),
    missingInputs: missingInputs(stats, db),
    notes,
  };
  return report;
}

/** Papers of one work: by DOI, arXiv id, normalised title, then (papers left unpaired) by their text's fingerprint. */
async function duplicates(
  store: CorpusStore,
  stats: readonly PaperStat[],
  db: string,
  notes: string[],
  signal?: AbortSignal,
): Promise<DuplicateGroup[]> {
  const groups: DuplicateGroup[] = [];
  const grouped = new Set<string>();
  const by = (reason: DuplicateGroup['reason'], keyOf: (p: PaperStat) => string | null | undefined) => {
    const map = new Map<string, PaperStat[]>();
    for (const p of stats) {
      const k = keyOf(p);
      if (k) map.set(k, [...(map.get(k) ?? []), p]);
    }
    for (const [key, papers] of map) {
      if (papers.length < 2 || papers.every((p) => grouped.has(p.id))) continue;
      papers.forEach((p) => grouped.add(p.id));
      groups.push({ reason, key, papers: byText(papers).map(brief), fix: mergeFix(papers, db) });
    }
  };
  by('doi', (p) => normaliseDoi(p.doi) ?? idsOfPaperId(p.id).doi);
  by('arxiv', (p) => normaliseArxivId(idsOfPaperId(p.id).arxivId));
  by('title', (p) => normaliseTitle(p.title ?? '') || null);
  if (!store.paperSentences) {
    notes.push('duplicates by text (fingerprint) need the sentences of each paper, which this store cannot list in one call: not checked');
    return groups;
  }
  // Exact shingle sets, compared through an inverted index: a few thousand shingles a paper.
  const prints = new Map<string, Set<number>>();
  const index = new Map<number, string[]>();
  for (const p of stats) {
    if (p.sentences < 2) continue;
    signal?.throwIfAborted();
    const print = fingerprint(await store.paperSentences(p.id, signal));
    prints.set(p.id, print);
    for (const s of print) index.set(s, [...(index.get(s) ?? []), p.id]);
  }
  const byId = new Map(stats.map((p) => [p.id, p]));
  const paired = new Set<string>();
  for (const p of stats) {
    const a = prints.get(p.id);
    if (!a || paired.has(p.id)) continue;
    const shared = new Map<string, number>();
    for (const s of a) for (const id of index.get(s) ?? []) if (id !== p.id) shared.set(id, (shared.get(id) ?? 0) + 1);
    const same = [...shared.keys()].filter((id) => !paired.has(id) && sameWork(a, prints.get(id)!));
    if (!same.length) continue;
    const papers = [p, ...same.map((id) => byId.get(id)!)];
    // Already grouped by an identifier or title: the same finding.
    if (papers.every((x) => grouped.has(x.id))) continue;
    papers.forEach((x) => paired.add(x.id));
    const share = Math.min(...same.map((id) => Math.max(containment(a, prints.get(id)!), containment(prints.get(id)!, a))));
    groups.push({ reason: 'fingerprint', key: share.toFixed(2), papers: byText(papers).map(brief), fix: mergeFix(papers, db) });
  }
  return groups;
}

/** Best text first (the one a merge keeps). */
function byText(papers: readonly PaperStat[]): PaperStat[] {
  return [...papers].sort((a, b) => textRank(b) - textRank(a) || b.sentences - a.sentences);
}

function missingInputs(stats: readonly PaperStat[], db: string): MissingInput[] {
  const out: MissingInput[] = [];
  for (const p of stats) {
    if (sourceKind(p) !== 'latex' || !p.sourcePath || !existsSync(p.sourcePath)) continue;
    let warnings;
    try {
      warnings = expandLatexProject(p.sourcePath).warnings;
    } catch {
      continue;
    }
    const missing = warnings.map((w) => /^\\\w+\{([^}]*)\}: file not found/.exec(w.reason)?.[1]).filter((m): m is string => !!m);
    if (!missing.length) continue;
    out.push({
      paper: brief(p),
      file: p.sourcePath,
      missing,
      fix: {
        action: 'reindex',
        text: 'the text of the missing files is not indexed: generate them (build the paper once) or copy them beside the main file, then re-index it',
        command: `corpus-lens ingest --db ${sh(db)} --reindex ${sh(p.sourcePath)}`,
      },
    });
  }
  return out;
}
