// Shared pieces of every reader: stable ids, content hashes, reference-section detection and the assembler that
// turns (section, sentence) pairs into the ParsedPaper model.
import { createHash } from 'node:crypto';
import type { BibIndex, BibRecord } from '../bib/index.js';
import { formatBibtexEntry, makeCitationKey } from '../bib/format.js';
import { figureKind } from './diagram.js';
import type { ParsedElement, ParsedPaper, ParsedSection, ParsedSentence, SentenceSource } from './types.js';
import type { PaperMeta } from '../paper/fields.js';
import { normaliseArxivId, normaliseDoi, normaliseTitle } from '../paper/ids.js';
import { parseInTextCitations, type InTextCitation } from '../bib/in-text.js';
import { linkCitedWorks, referenceEntries, type ReferenceEntry } from './references.js';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

const REFERENCE_TITLES = new Set([
  'references',
  'reference',
  'bibliography',
  'works cited',
  'literature cited',
  'reference list',
  'references and notes',
  'cited literature',
  'literature',
  'references cited',
  'citations',
]);

/** True for a References / Bibliography / Works Cited … heading (never ingested as prose). */
export function isReferenceSection(title: string | null | undefined): boolean {
  if (!title) return false;
  return REFERENCE_TITLES.has(normaliseTitle(title.replace(/^\s*(?:[0-9]+(?:\.[0-9]+)*|[A-Z])\.?\s+/, '')));
}

/**
 * Collects sections and sentences in reading order. A new section starts whenever `section()` is called with a
 * heading; sentences of reference sections (and their subsections) are dropped.
 */
export class PaperAssembler {
  readonly sections: ParsedSection[] = [];
  readonly sentences: ParsedSentence[] = [];
  private current = -1;
  private skipping: { level: number } | null = null;
  private perSection = 0;
  /** Sentences of the section titled 'Abstract' (for the abstract field). */
  readonly abstractParts: string[] = [];
  /** Figures, tables and equations, with the (raw) section they were met in. */
  private readonly elements: (ParsedElement & { rawSection: number })[] = [];
  /** Each sentence's in-text citations, by global index (sentences that cite nothing are absent). */
  private readonly cites = new Map<number, InTextCitation[]>();
  /** The reference list's lines as read (a PDF's References section), unless the reader sets `references`. */
  readonly referenceLines: string[] = [];
  /** The reference list's entries, when the reader has them whole (a LaTeX project's \bibitem entries). */
  references: ReferenceEntry[] | null = null;

  /** Start a section. Returns false when it is a reference section (its sentences will be dropped). */
  section(title: string, number: string | null, level: number): boolean {
    if (this.skipping && level > this.skipping.level) return false;
    this.skipping = null;
    if (isReferenceSection(title)) {
      this.skipping = { level };
      return false;
    }
    this.sections.push({ title: title.trim(), number, level });
    this.current = this.sections.length - 1;
    this.perSection = 0;
    return true;
  }

  get inReferences(): boolean {
    return this.skipping !== null;
  }

  get currentSection(): ParsedSection | undefined {
    return this.sections[this.current];
  }

  sentence(
    text: string,
    page: number | null = null,
    lines?: { lineStart: number; lineEnd: number; pageEnd: number } | SentenceSource,
    /** Its citations, when its source holds what the clean text dropped (`\cite{key}`); else read from the text. */
    cites?: InTextCitation[],
  ): void {
    const t = text.replace(/\s+/g, ' ').trim();
    if (this.skipping) {
      if (t) this.referenceLines.push(t);
      return;
    }
    if (!t) return;
    const found = cites ?? parseInTextCitations(t);
    if (found.length) this.cites.set(this.sentences.length, found);
    if (this.current < 0) this.section('', null, 1);
    const sec = this.sections[this.current];
    if (sec.title === 'Abstract') this.abstractParts.push(t);
    this.sentences.push({
      sectionIndex: this.current,
      sentenceIndex: this.perSection++,
      globalIndex: this.sentences.length,
      page,
      ...lines,
      text: t,
    });
  }

  /**
   * A figure, table or equation met here in reading order: it follows the last sentence so far, in the current
   * section (dropped inside a reference section). Fields the reader sets win; a figure whose caption names a drawing
   * of a structure is a diagram (diagram.ts).
   */
  element(e: Omit<ParsedElement, 'sectionIndex' | 'sectionTitle' | 'afterSentence'> & Partial<ParsedElement>): void {
    if (this.skipping) return;
    const raw = this.current;
    this.elements.push({
      ...e,
      type: e.type === 'figure' ? figureKind(e.caption) : e.type,
      sectionTitle: e.sectionTitle ?? (this.sections[raw]?.title || null),
      sectionIndex: null,
      afterSentence: e.afterSentence ?? this.sentences.length - 1,
      rawSection: raw,
    });
  }

  /** The collected model, with empty sections removed and indexes renumbered. */
  finish(): Assembled {
    const used = new Set(this.sentences.map((s) => s.sectionIndex));
    const remap = new Map<number, number>();
    const sections: ParsedSection[] = [];
    this.sections.forEach((s, i) => {
      if (used.has(i)) {
        remap.set(i, sections.length);
        sections.push(s);
      }
    });
    return {
      sections,
      sentences: this.sentences.map((s) => ({ ...s, sectionIndex: remap.get(s.sectionIndex)! })),
      // An element in a section without sentences keeps its title but no index (context never points there).
      elements: this.elements.map(({ rawSection, ...e }) => ({ ...e, sectionIndex: remap.get(rawSection) ?? null })),
      cites: this.cites,
      references: this.references ?? referenceEntries(this.referenceLines),
    };
  }
}

/** Fill what `meta` lacks from a BibTeX record (the record wins for bibtex and citation key). */
export function mergeBib(meta: PaperMeta, rec: BibRecord | undefined): PaperMeta {
  if (!rec) return meta;
  return {
    title: meta.title || rec.title,
    authors: meta.authors && meta.authors.length ? meta.authors : rec.authors,
    year: meta.year ?? rec.year,
    venue: meta.venue || rec.venue,
    doi: meta.doi || rec.doi,
    arxivId: meta.arxivId || rec.arxivId,
    url: meta.url || rec.url,
    abstract: meta.abstract || rec.abstract,
    bibtex: rec.bibtex,
    citationKey: rec.key || meta.citationKey,
  };
}

/** The stable id: DOI, else arXiv id, else a hash of the normalised content. */
export function paperId(meta: PaperMeta, sentences: ParsedSentence[]): string {
  const doi = normaliseDoi(meta.doi);
  if (doi) return `doi:${doi}`;
  const arxiv = normaliseArxivId(meta.arxivId);
  if (arxiv) return `arxiv:${arxiv}`;
  const content = [normaliseTitle(meta.title ?? ''), ...sentences.map((s) => s.text.toLowerCase().replace(/\s+/g, ' '))].join('\n');
  return `sha256:${sha256Hex(content)}`;
}

/** What an assembler collected; the citations and reference list become the paper's cited works. */
interface Assembled {
  sections: ParsedSection[];
  sentences: ParsedSentence[];
  elements?: ParsedElement[];
  cites?: ReadonlyMap<number, readonly InTextCitation[]>;
  references?: readonly ReferenceEntry[];
}

/** Build the final ParsedPaper: bib match, id, abstract, citation key, BibTeX and the works it cites. */
export function buildPaper(
  metaIn: PaperMeta,
  assembled: Assembled,
  source: { path: string | null; contentHash: string },
  bib?: BibIndex,
  abstractParts: string[] = [],
): ParsedPaper {
  const rec = bib?.match({ doi: metaIn.doi ?? null, title: metaIn.title ?? null, arxivId: metaIn.arxivId ?? null });
  const meta = mergeBib(metaIn, rec);
  const doi = normaliseDoi(meta.doi);
  const arxivId = normaliseArxivId(meta.arxivId);
  const abstract = meta.abstract || (abstractParts.length ? abstractParts.join(' ') : null);
  const paper: ParsedPaper = {
    id: paperId({ ...meta, doi, arxivId }, assembled.sentences),
    title: meta.title?.trim() || null,
    authors: (meta.authors ?? []).map((a) => a.trim()).filter(Boolean),
    year: meta.year ?? null,
    venue: meta.venue?.trim() || null,
    doi,
    arxivId,
    url: meta.url ?? (doi ? `https://doi.org/${doi}` : arxivId ? `https://arxiv.org/abs/${arxivId}` : null),
    abstract,
    bibtex: meta.bibtex ?? null,
    citationKey: meta.citationKey ?? null,
    ownKey: !!meta.citationKey,
    sourcePath: source.path,
    contentHash: source.contentHash,
    sections: assembled.sections,
    sentences: assembled.sentences,
    elements: assembled.elements ?? [],
    citedWorks: assembled.cites?.size ? linkCitedWorks(assembled.cites, assembled.references ?? [], bib) : [],
  };
  if (!paper.citationKey) paper.citationKey = makeCitationKey(paper, new Set());
  if (!paper.bibtex) paper.bibtex = formatBibtexEntry(paper, paper.citationKey);
  return paper;
}
