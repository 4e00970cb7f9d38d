// Shapes shared by the related-work pipeline's steps.
import type { BibIndex } from '../bib/bib-index.js';
import type { CitationCommand } from '../bib/cite.js';
import type { Embedder } from '../embed/types.js';
import type { ChatModel } from '../llm/chat.js';
import type { RunEstimate } from './estimate.js';
import type { CorpusStore, Hit, PaperRef } from '../store/types.js';
import type {
  CheckReport,
  CopiedSpan,
  OutputFormat,
  PaperTextSource,
  RemovedCitation,
  SectionFormat,
  SentenceReport,
  StepProgress,
  StepTrace,
  TraceTotal,
  VerifiedQuote,
} from '../grounding/index.js';
// The shared shapes a review's options and result are made of (grounding/types.ts), for the review's users.
export type {
  CheckReport,
  CopiedSpan,
  OutputFormat,
  PaperTextSource,
  RemovedCitation,
  SectionFormat,
  SentenceReport,
  StepProgress,
  StepTrace,
  TraceTotal,
  VerifiedQuote,
};
export type { PaperCandidate } from '../grounding/index.js';

/** The pipeline's named steps, in order (outline mode uses topic, decompose, retrieve, rerank, cluster, emit). */
export const REVIEW_STEPS = ['topic', 'decompose', 'retrieve', 'rerank', 'quotes', 'plan', 'write', 'check', 'emit'] as const;
export const OUTLINE_STEPS = ['topic', 'decompose', 'retrieve', 'rerank', 'cluster', 'emit'] as const;
export type StepName = (typeof REVIEW_STEPS)[number] | (typeof OUTLINE_STEPS)[number];

export interface ProgressEvent extends StepProgress {
  step: StepName;
  /** 1-based position of the step and the number of steps of this run. */
  index: number;
  total: number;
}

/** The rerank method: the chat model (batched scores), an HTTP `/rerank` endpoint, or MMR over embeddings. */
export type RerankConfig =
  | { kind: 'llm'; batchSize?: number }
  | { kind: 'http'; url: string; model: string; apiKey?: string; timeoutMs?: number }
  | { kind: 'mmr'; lambda?: number };

export interface ReviewOptions {
  store: CorpusStore;
  /** Embeds the rewritten query (vector search) and, for MMR and the outline, candidates. Null: keyword only. */
  embedder: Embedder | null;
  /** The chat model; null/undefined = no LLM configured → the evidence outline. */
  chat?: ChatModel | null;
  /** The topic; when empty, the title + abstract of `document`. */
  topic?: string;
  document?: { text: string; format: OutputFormat };
  format?: OutputFormat;
  /** LaTeX citation command (default `cite`). */
  citeCommand?: CitationCommand;
  /** LaTeX: `\subsection{}` (default) or `\paragraph{}` headings. */
  sectionCommand?: 'subsection' | 'paragraph';
  /** A comparison table after each list section (default false). */
  tables?: boolean;
  rerank?: RerankConfig;
  /** Candidates from each of semantic and keyword search (default 256). */
  candidates?: number;
  /** Papers kept after reranking (default 50). */
  papers?: number;
  /** Best passages kept per paper (default 4). */
  passagesPerPaper?: number;
  /** Parallel quote-extraction calls (default 4). */
  concurrency?: number;
  /** Minimum similarity of a fuzzy quote match on normalised text (default 0.9). */
  fuzzyThreshold?: number;
  /** Shortest copied run of words that is flagged (default 12). */
  copySpanWords?: number;
  /** Unsupported sentences: removed (default) or kept with a visible flag. */
  unsupported?: 'remove' | 'flag';
  /** Each sentence's backing quotes under its paragraph (LaTeX comments / Markdown footnotes); default true. */
  provenance?: boolean;
  /** With a chat model: one verification call per section whose "unsupported" overrides (default true). */
  verify?: boolean;
  /** Offline support threshold (default SUPPORT_THRESHOLD). */
  supportThreshold?: number;
  /** Sentences in the evidence outline (default 60) and its number of clusters (default: from the count). */
  outlineSentences?: number;
  outlineClusters?: number;
  /** The project's .bib: a cited paper it has (BibIndex.find) keeps that entry's key and gets no new entry. */
  existingBib?: BibIndex;
  /** Overrides the adapter built from the store. */
  paperText?: PaperTextSource;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  /** The write step's stream: text deltas of section `section` (0-based) as the model produces them. */
  onToken?: (section: number, title: string, delta: string) => void;
  /** The cost ahead (model calls, tokens, time): at the start, after retrieval, after the plan. */
  onEstimate?: (estimate: RunEstimate) => void;
}

export interface Decomposition {
  rewrittenQuery: string;
  keywordQuery: string;
  yearMin: number | null;
  yearMax: number | null;
  venues: string[];
  /** The words of the topic that stated the filters ("since 2020", "at ACL"), left out of both queries. */
  filterPhrases: string[];
}

/** A retrieved passage: a store hit with its rerank score. */
export interface Passage {
  hit: Hit;
  score: number;
}

export interface PlannedSection {
  name: string;
  format: SectionFormat;
  quoteIds: string[];
}

export interface CitedPaper {
  key: string;
  shortId: string;
  paper: PaperRef;
  bibtex: string;
  /** The key came from an existing .bib entry (no new entry needed). */
  reused: boolean;
}

export interface GeneratedSection {
  title: string;
  format: SectionFormat;
  /** The model's text after the check, citations as `[P<n>]`. */
  text: string;
  /** The emitted body (LaTeX or Markdown, with keys). */
  body: string;
  /** Short ids cited after the check, and the quotes available to the section. */
  cited: string[];
  quoteIds: string[];
  removedCitations: RemovedCitation[];
  copiedSpans: CopiedSpan[];
  uncitedSentences: number;
  table?: string;
  /** Every sentence the model wrote, with its verdict (removed ones too). */
  sentences: SentenceReport[];
}

export interface ReviewTrace {
  mode: 'review' | 'outline';
  model: string | null;
  steps: StepTrace<StepName>[];
  total: TraceTotal;
  /** With a model: the cost estimated before the run, after retrieval and after the plan (estimate.ts). */
  estimates?: RunEstimate[];
}

export interface ReviewResult {
  mode: 'review' | 'outline';
  topic: string;
  format: OutputFormat;
  /** The section(s) to insert: LaTeX or Markdown. */
  text: string;
  /** BibTeX of exactly the cited papers (reused keys included), and only the entries that are new. */
  bibtex: string;
  newBibtex: string;
  cited: CitedPaper[];
  sections: GeneratedSection[];
  /** Outline mode: how many themes (evidence clusters) the outline groups the sentences into. */
  themes?: number;
  quotes: VerifiedQuote[];
  decomposition: Decomposition;
  trace: ReviewTrace;
  check: CheckReport;
}
