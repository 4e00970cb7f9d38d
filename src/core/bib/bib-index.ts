// What a .bib already holds, in one index: each entry's key, DOI, arXiv id and normalised title (normalisers of
// core/paper, the same everywhere). Cite, Cite from Zotero, Generate Related Work (its keys and its BibTeX append)
// and ingest all ask it, so they agree on whether a paper is already there and under which key.
//
// Entries come from the real parser (bib/parse.ts). An entry the parser rejects or cuts short (unbalanced braces,
// a stray quote) still names a key and usually a DOI or title that the user means: what the parser left empty is
// read leniently, so that a malformed .bib never makes Cite add a duplicate or reuse a key that is taken. Nothing
// here throws on bad input.
import { parseBibtex, type BibParseResult, type BibRecord } from './parse.js';
import { idsOfPaperId, normaliseArxivId, normaliseDoi, normaliseTitle } from '../paper/ids.js';

/** The identifiers of one .bib entry; `record` is the parsed entry, absent for one only read leniently. */
export interface BibEntryIds {
  key: string;
  doi: string | null;
  arxivId: string | null;
  title: string | null;
  record?: BibRecord;
}

/** What the index is asked about a paper: its identifiers and the key it comes with (Zotero's, the indexed one). */
export interface PaperIds {
  /** A corpus paper's id ('doi:…', 'arxiv:…', 'sha256:…'): its DOI or arXiv id where the fields lack them. */
  id?: string | null;
  doi?: string | null;
  arxivId?: string | null;
  title?: string | null;
  citationKey?: string | null;
}

/** Titles shorter than this (normalised) are too generic to identify a paper ('Introduction', 'Notes'). */
const MIN_TITLE_CHARS = 8;

const ENTRY_START = /@\s*(\w+)\s*[{(]\s*([^,\s]+)\s*,/g;
const NOT_ENTRIES = /^(comment|string|preamble)$/i;

/** The keys of a .bib text as written, also of entries no parser can read (a new key must not collide with them). */
export function bibKeys(text: string): string[] {
  return [...text.matchAll(ENTRY_START)].filter((m) => !NOT_ENTRIES.test(m[1])).map((m) => m[2]);
}

/** Key, DOI, arXiv id and title of every entry, read with regular expressions: the fallback for rejected entries. */
function lenientEntries(text: string): BibEntryIds[] {
  const starts = [...text.matchAll(ENTRY_START)].filter((m) => !NOT_ENTRIES.test(m[1]));
  return starts.map((m, i) => {
    const body = text.slice(m.index, i + 1 < starts.length ? starts[i + 1].index : text.length);
    const field = (name: string): string | null => {
      const f = new RegExp(`\\b${name}\\s*=\\s*(?:\\{((?:[^{}]|\\{[^{}]*\\})*)\\}|"([^"]*)")`, 'i').exec(body);
      return f ? (f[1] ?? f[2] ?? '').replace(/[{}]/g, '').trim() || null : null;
    };
    const url = field('url');
    return {
      key: m[2],
      doi: normaliseDoi(field('doi')) ?? (url && /doi\.org/i.test(url) ? normaliseDoi(url) : null),
      arxivId: normaliseArxivId(field('eprint')) ?? (url && /arxiv\.org/i.test(url) ? normaliseArxivId(url) : null),
      title: field('title'),
    };
  });
}

/** The entries of .bib texts, looked up by DOI, arXiv id, normalised title and key. */
export class BibIndex {
  /** The parsed entries (what ingest merges into papers). */
  readonly records: BibRecord[] = [];
  private readonly byDoi = new Map<string, BibEntryIds>();
  private readonly byArxiv = new Map<string, BibEntryIds>();
  private readonly byTitle = new Map<string, BibEntryIds>();
  /** By lower-cased key: BibTeX compares keys without case, and so does makeCitationKey. */
  private readonly byKey = new Map<string, BibEntryIds>();
  /** Every key written in the texts read, parsed or not, by its lower-cased form. */
  private readonly written = new Map<string, string>();

  constructor(records: Iterable<BibRecord> = []) {
    for (const r of records) this.add(r);
  }

  /**
   * The index of a .bib text: its parsed entries, plus the keys and identifiers of those the parser rejected.
   * Never throws: even a parser that cannot load leaves the lenient reading. `errors` are the parser's.
   */
  static async fromBibtex(text: string, file: string | null = null): Promise<{ index: BibIndex; errors: BibParseResult['errors'] }> {
    let parsed: BibParseResult;
    try {
      parsed = await parseBibtex(text, file);
    } catch (err) {
      parsed = {
        records: [],
        errors: [{ file: file ?? '<bibtex>', reason: err instanceof Error ? err.message : String(err) }],
        warnings: [],
      };
    }
    const index = new BibIndex(parsed.records);
    // The lenient reading only fills what the parser left empty: a rejected entry comes back with no fields (or
    // those before the error), never with wrong ones.
    for (const e of lenientEntries(text)) {
      const parsedEntry = index.byKey.get(e.key.toLowerCase());
      if (!parsedEntry) index.put(e);
      else {
        const filled = {
          ...parsedEntry,
          doi: parsedEntry.doi ?? e.doi,
          arxivId: parsedEntry.arxivId ?? e.arxivId,
          title: parsedEntry.title ?? e.title,
        };
        index.byKey.set(e.key.toLowerCase(), filled);
        index.put(filled);
      }
    }
    for (const k of bibKeys(text)) if (!index.written.has(k.toLowerCase())) index.written.set(k.toLowerCase(), k);
    return { index, errors: parsed.errors };
  }

  /** The index of a .bib text (see fromBibtex), without the parser's complaints. */
  static async read(text: string, file: string | null = null): Promise<BibIndex> {
    return (await BibIndex.fromBibtex(text, file)).index;
  }

  add(r: BibRecord): void {
    this.records.push(r);
    this.put({ key: r.key, doi: r.doi, arxivId: r.arxivId, title: r.title, record: r });
  }

  private put(e: BibEntryIds): void {
    const doi = normaliseDoi(e.doi);
    const arxiv = normaliseArxivId(e.arxivId);
    const title = e.title ? normaliseTitle(e.title) : '';
    // The first entry for an identifier wins: a later duplicate in the .bib is the one BibTeX ignores too.
    if (doi && !this.byDoi.has(doi)) this.byDoi.set(doi, e);
    if (arxiv && !this.byArxiv.has(arxiv)) this.byArxiv.set(arxiv, e);
    if (title.length >= MIN_TITLE_CHARS && !this.byTitle.has(title)) this.byTitle.set(title, e);
    if (e.key) {
      if (!this.byKey.has(e.key.toLowerCase())) this.byKey.set(e.key.toLowerCase(), e);
      if (!this.written.has(e.key.toLowerCase())) this.written.set(e.key.toLowerCase(), e.key);
    }
  }

  get size(): number {
    return this.records.length;
  }

  /** Every key the .bib uses (the keys a new entry must avoid). */
  get keys(): string[] {
    return [...this.written.values()];
  }

  hasKey(key: string): boolean {
    return this.written.has(key.toLowerCase());
  }

  /** The entry under a key (BibTeX compares keys without case), parsed or read leniently. */
  entry(key: string): BibEntryIds | undefined {
    return this.byKey.get(key.toLowerCase());
  }

  /** The parsed entry for a paper's DOI, else arXiv id, else normalised title (what ingest merges in). */
  match(q: PaperIds): BibRecord | undefined {
    return this.byIdentifier(q)?.record;
  }

  /**
   * The entry that already stands for `paper`: by DOI, else arXiv id, else normalised title, else the entry under
   * the paper's own key when that entry does not name another paper (no DOI, arXiv id or title that differs).
   */
  find(paper: PaperIds): BibEntryIds | undefined {
    const fromId = idsOfPaperId(paper.id);
    paper = { ...paper, doi: paper.doi || fromId.doi, arxivId: paper.arxivId || fromId.arxivId };
    const hit = this.byIdentifier(paper);
    if (hit) return hit;
    const own = paper.citationKey ? this.byKey.get(paper.citationKey.toLowerCase()) : undefined;
    return own && !namesAnother(own, paper) ? own : undefined;
  }

  private byIdentifier(q: PaperIds): BibEntryIds | undefined {
    const doi = normaliseDoi(q.doi);
    const byDoi = doi ? this.byDoi.get(doi) : undefined;
    if (byDoi) return byDoi;
    const ax = normaliseArxivId(q.arxivId);
    const byArxiv = ax ? this.byArxiv.get(ax) : undefined;
    if (byArxiv) return byArxiv;
    const t = q.title ? normaliseTitle(q.title) : '';
    return t ? this.byTitle.get(t) : undefined;
  }
}

/** An entry names another paper when it has an identifier the paper also has, with another value. */
function namesAnother(e: BibEntryIds, p: PaperIds): boolean {
  const differ = (a: string | null, b: string | null) => !!a && !!b && a !== b;
  return (
    differ(normaliseDoi(e.doi), normaliseDoi(p.doi)) ||
    differ(normaliseArxivId(e.arxivId), normaliseArxivId(p.arxivId)) ||
    differ(e.title ? normaliseTitle(e.title) : null, p.title ? normaliseTitle(p.title) : null)
  );
}
