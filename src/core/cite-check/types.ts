// The citation checker's types: what the editor (completion, diagnostics, quick fixes, hover) and the CLI
// (`corpus-lens check`) exchange with the core. Everything here is plain data (JSON-safe), so a face can pass it
// through a webview or print it.
//
// The flow, for one document:
//   const sites = findCitations(text, 'latex');                        // every \cite… / [@…] with its sentence
//   const catalog = await PaperCatalog.load(store, bib);               // corpus papers by id, key, DOI, title
//   const report = await checkDocument({ store, embedder, text, format, bib, catalog });
//   report.sites[i].cites[j]: { key, status: 'missing-from-bib' | 'not-in-corpus' | 'checked', check? }
// and for one sentence and paper (the CLI's --claims, the hover):
//   const c = await checkCitation({ store, embedder, catalog }, { sentence, cite: 'key or paper id' });
//   c.verdict / c.score / c.evidence (best first, with page and lines where the paper has them)
import type { PaperRef } from '../store/types.js';

/** Document formats the checker reads. */
export type CiteFormat = 'latex' | 'markdown';

/** LaTeX commands read as citations unless the caller configures others (natbib, biblatex and plain LaTeX). */
export const DEFAULT_CITE_COMMANDS: readonly string[] = ['cite', 'citep', 'citet', 'autocite', 'parencite', 'textcite'];

/** A character range [start, end) in a document's text. */
export interface TextRange {
  start: number;
  end: number;
}

/** One citation as written: `\citep[p.~3]{a,b}` or Markdown `[@a, p. 3; @b]` / `@a`. */
export interface CitationSite {
  /** The LaTeX command without its backslash (`citep`, `autocite*` keeps no star: `autocite`), or `markdown`. */
  command: string;
  /** The cited keys in order (what is between the braces / after each `@`). */
  keys: string[];
  /** The whole citation in the text (the command with its arguments; the Markdown brackets). */
  range: TextRange;
  /** Each key's own range, for replacing one key of several (a quick fix "Cite instead"). */
  keyRanges: Array<TextRange & { key: string }>;
  /** 0-based line and column of range.start (VS Code's Position). */
  line: number;
  character: number;
  /**
   * The locator already written: `\cite[p.~3]{k}` → `p.~3` (LaTeX's postnote; with two optional arguments the
   * second), `[@k, p. 3]` → `p. 3`; null when there is none.
   */
  locator: string | null;
  /**
   * Where a locator goes when there is none yet (LaTeX: just after the command name, before `{`; Markdown: just
   * after the key, inside the brackets; a bare `@key` has none: null).
   */
  locatorInsertAt: number | null;
  /** The citing sentence: its plain text (citations and LaTeX/Markdown markup removed) and its range in the text. */
  sentence: { text: string; range: TextRange };
  /** The file it was read from (a project's `\input` file), null for a text given directly. */
  file: string | null;
}

export interface FindOptions {
  /** LaTeX citation commands (default DEFAULT_CITE_COMMANDS); starred forms (`\citet*`) are included. */
  commands?: readonly string[];
  /** The file the text came from (copied to each site). */
  file?: string | null;
}

/** A LaTeX project's or Markdown paper's citations across its files. */
export interface ProjectCitations {
  /** Every file read (the main file first, then `\input`/`\include` files in order). */
  files: string[];
  /** Citation sites of every file, each with its `file`; offsets and lines are in that file's own text. */
  sites: CitationSite[];
  /** The .bib files the project names (`\bibliography{}`, `\addbibresource{}`, front matter `bibliography:`) that exist. */
  bibFiles: string[];
  /** Problems reading it (a missing `\input` file, a named .bib that does not exist): one line each. */
  warnings: string[];
}

/** Verdicts: `contradicted` is only given by an LLM; `not-in-corpus` when the cited paper is not in the corpus. */
export type CitationVerdict = 'supported' | 'unsupported' | 'contradicted' | 'not-in-corpus';

/** One stored sentence of the cited paper, as evidence for (or nearest to) the citing sentence. */
export interface Evidence {
  /** Position of the sentence in its paper (its global index, 0-based, in reading order). */
  sentenceIndex: number;
  /** The store's row id (for Open source / the panel), null where the store gives none. */
  sentenceId: number | null;
  text: string;
  /** 1-based PDF page, null for sources without pages. */
  page: number | null;
  /** PDF lines on that page (see store SentenceLocation), null without. */
  lines: { start: number; end: number } | null;
  /** Section title, when the paper has one. */
  section: string | null;
  /** This sentence's support score for the citing sentence (0–1, higher supports better). */
  score: number;
}

/** The check of one citing sentence against one cited paper. */
export interface CitationCheck {
  /** The key or id as cited. */
  cite: string;
  /** The corpus paper it resolved to, null when not in the corpus (verdict `not-in-corpus`). */
  paper: PaperRef | null;
  verdict: CitationVerdict;
  /** The paper's support score for the sentence (0–1): what the verdict's threshold is compared with. */
  score: number;
  /** The threshold in force (offline verdicts: score ≥ threshold is `supported`). */
  threshold: number;
  /** The paper's sentences closest to the citing sentence, best first (up to CheckOptions.evidence, default 3). */
  evidence: Evidence[];
  /** Who gave the verdict: the offline score, or the configured chat model (then `quote` is its chosen sentence). */
  judgedBy: 'offline' | 'llm';
  /** LLM only: the paper sentence the model based its verdict on (verified to be one of the paper's sentences). */
  quote?: Evidence | null;
  /** One line saying why (e.g. "best sentence scores 0.21 < 0.35", or the model's reason). */
  reason: string;
}

/** What every check needs: the open corpus, its embedder, and (optionally) a loaded catalog to resolve keys with. */
export interface CheckContext {
  store: import('../store/types.js').CorpusStore;
  embedder: import('../embed/types.js').Embedder;
  /** Papers by id / citation key / DOI / arXiv id / title; loaded from the store (and the .bib) when absent. */
  catalog?: PaperCatalogLike;
  /** A chat model for the 3-way LLM verdict; null/absent = offline only. */
  chat?: import('../llm/chat.js').ChatModel | null;
  signal?: AbortSignal;
}

export interface CheckOptions {
  /** Offline threshold on CitationCheck.score (default: CHECK_THRESHOLD, chosen on Citation-Integrity train). */
  threshold?: number;
  /** How many evidence sentences to return (default 3). */
  evidence?: number;
}

/** Resolves a cited key or paper id to a corpus paper (PaperCatalog implements it). */
export interface PaperCatalogLike {
  /**
   * The corpus paper a key or id names: the paper id itself, the paper's citation key (its .bib / Zotero key), or
   * the identifiers of the project's .bib entry for that key (DOI, arXiv id, normalised title). Null when none.
   */
  resolve(cite: string): PaperRef | null;
  /** Every corpus paper (for completion: keys from the corpus). */
  papers(): readonly PaperRef[];
}

/** A corpus paper that supports the sentence better (a quick fix "Cite instead / also"). */
export interface Alternative {
  paper: PaperRef;
  /** The key to cite it by: its .bib key when the project's .bib has it, else its corpus key, else null (Cite adds one). */
  key: string | null;
  /** True when the project's .bib already holds it. */
  inBib: boolean;
  score: number;
  /** Its supporting sentences, best first (the first is the quote to show). */
  evidence: Evidence[];
}

/** A completion candidate as the face collects it (.bib, corpus, Zotero). */
export interface CompletionCandidate {
  key: string;
  /** The corpus paper id when the face already knows it; otherwise resolved through the catalog by key. */
  paperId?: string | null;
  title?: string | null;
  authors?: string[];
  year?: number | null;
  source: 'bib' | 'corpus' | 'zotero';
}

/** A candidate with its support for the sentence being written; rankForCompletion returns them best first. */
export interface RankedCandidate extends CompletionCandidate {
  /** The corpus paper it resolved to (null: not in the corpus, ranked after every scored one). */
  paper: PaperRef | null;
  /** Its best sentence's score against the sentence (null when not in the corpus). */
  score: number | null;
  /** That best sentence. */
  best: Evidence | null;
}

/** The status of one cited key in a document check. */
export type CiteStatus = 'missing-from-bib' | 'not-in-corpus' | 'checked';

export interface SiteCiteResult {
  key: string;
  status: CiteStatus;
  /** The corpus paper the key names (also for `missing-from-bib` when the corpus has it: fix = add its entry). */
  paper: PaperRef | null;
  /** `checked` only. */
  check?: CitationCheck;
  /** `checked` and not supported: corpus papers that support the sentence (best first). */
  alternatives?: Alternative[];
}

export interface DocumentCheck {
  sites: Array<{ site: CitationSite; cites: SiteCiteResult[] }>;
  /** Sentences stating a finding or number with no citation that a corpus paper supports closely (only when asked). */
  citationNeeded: Array<{ sentence: { text: string; range: TextRange }; line: number; file: string | null; suggestion: Alternative }>;
  warnings: string[];
}

export interface DocumentCheckOptions extends CheckOptions {
  /** Also report `citationNeeded` (off by default). */
  citationNeeded?: boolean;
  /** Give each unsupported citation up to this many alternatives (default 1; 0 = none). */
  alternatives?: number;
  commands?: readonly string[];
}

/** An edit of the document's text (one undoable edit in the editor): replace `range` with `text`. */
export interface TextEdit {
  range: TextRange;
  text: string;
}

// The functions src/core/cite-check/index.ts exports (signatures agreed with the editor face before they land):
//
//   findCitations(text: string, format: CiteFormat, options?: FindOptions): CitationSite[]
//   findProjectCitations(mainPath: string, options?: { commands?: readonly string[] }): ProjectCitations
//       LaTeX: the main file with its \input/\include files (ingest's project reader); Markdown: the one file.
//   PaperCatalog.load(store: CorpusStore, bib?: BibIndex | null): Promise<PaperCatalog>   (implements PaperCatalogLike)
//   checkCitation(ctx: CheckContext, input: { sentence: string; cite: string }, options?: CheckOptions): Promise<CitationCheck>
//   suggestAlternatives(ctx: CheckContext, sentence: string, options?: { exclude?: readonly string[]; count?: number;
//       bib?: BibIndex | null }): Promise<Alternative[]>
//   rankForCompletion(ctx: CheckContext, sentence: string, candidates: readonly CompletionCandidate[]): Promise<RankedCandidate[]>
//   checkDocument(ctx: CheckContext, input: { text: string; format: CiteFormat; file?: string | null; bib: BibIndex | null },
//       options?: DocumentCheckOptions): Promise<DocumentCheck>
//   locatorEdit(site: CitationSite, format: CiteFormat, page: number): TextEdit | null   (\cite[p.~3]{k}; [@k, p. 3]; null: has one)
//   replaceKeyEdit(site: CitationSite, oldKey: string, newKey: string, mode: 'instead' | 'also'): TextEdit | null
//   CHECK_THRESHOLD, CITATION_NEEDED_THRESHOLD: number;  formatOfPath(path): CiteFormat
