// Shapes of "Ask the corpus": a conversation of questions and checked answers over one numbered source list.
// The conversation is plain JSON (the CLI's --history file, the extension's per-workspace state): numbers stay
// stable across turns because the source list only ever grows.
import type { StepTrace, TraceTotal } from '../grounding/index.js';
import type { Embedder } from '../embed/types.js';
import type { ChatModel } from '../llm/chat.js';
import type { CorpusStore } from '../store/types.js';
import type { AskEstimate } from './estimate.js';

/** One stored sentence an answer cites; `n` is its citation number, unique over the whole conversation. */
export interface AskSource {
  n: number;
  paperId: string;
  citationKey: string | null;
  title: string | null;
  authors: string[];
  year: number | null;
  section: string | null;
  /** The cited sentence's row id in the store, and its position in the paper. */
  sentenceId: number;
  globalIndex: number;
  /** The sentence as stored (checked against the paper's stored text), with its neighbours in the same section. */
  text: string;
  previous: string | null;
  next: string | null;
  /** The PDF page the store recorded at ingest (null for LaTeX/HTML/Markdown, or a store that does not return it). */
  page: number | null;
  /**
   * The lines it is printed on, counted on the page (SentenceLocation, src/core/store/types.ts): from lineStart on
   * `page` to lineEnd on pageEnd. Null for other sources, a PDF indexed before schema v8, or a store without them;
   * absent in conversations saved before they existed.
   */
  lineStart?: number | null;
  lineEnd?: number | null;
  pageEnd?: number | null;
  /**
   * Works the sentence itself cites ("as shown in [12]"), through its paper's reference list: its claim is theirs.
   * Absent when it cites none, its paper was indexed before schema v14, or the store does not keep them.
   */
  cites?: AskCite[];
  /**
   * The model that proposed its paper's title, authors and year (PaperRef.metadataProposedBy: none of them the paper's
   * own), or where a made-up title came from: shown with the title, as the panel does. Absent for real metadata.
   */
  metadataProposedBy?: string;
}

/** A work a source sentence cites, and the corpus paper it is when the corpus has it. */
export interface AskCite {
  /** "Smith et al. 2019" (see retrieve/inner-citations.ts). */
  work: string;
  title: string | null;
  year: number | null;
  inCorpus: { paperId: string; title: string | null; citationKey: string | null } | null;
}

/** supported / partial / connective sentences are kept; unsupported ones are removed (the related-work check). */
export interface AnswerSentence {
  /** As shown: citations as [n] of the conversation's sources. */
  text: string;
  /** As the model wrote it (LLM answers), before the check. */
  original: string;
  citations: number[];
  verdict: 'supported' | 'partial' | 'unsupported' | 'connective' | 'extract';
  /** Offline support score of the sentence against its cited quotes (1 for an extract: it is the stored text). */
  support: number;
  kept: boolean;
  reasons: string[];
}

/**
 * answer: prose from the LLM, every kept sentence checked and cited; extract: no LLM, the best evidence
 * sentences by paper; unknown: "I don't know" (evidence below the threshold, or nothing survived the check);
 * sources: "where did you find that?" — the previous answer's sources, no retrieval.
 */
export type AnswerKind = 'answer' | 'extract' | 'unknown' | 'sources';

export interface AskTurn {
  question: string;
  /** The question as searched: a follow-up rewritten to stand alone (equal to `question` otherwise). */
  standalone: string;
  rewrite: 'none' | 'llm' | 'terms';
  kind: AnswerKind;
  text: string;
  sentences: AnswerSentence[];
  /** Citation numbers this answer uses, in order of first use. */
  citations: number[];
  /** Share of the question's content terms found in the best evidence (the "I don't know" gate). */
  answerability: number;
  counts: AskCounts;
  model: string | null;
  /**
   * Figures, tables and equations shown with the answer (cards, not citations): linked to the cited sentences' page
   * or section, or matching the question themselves. Absent in conversations saved before elements existed.
   */
  elements?: AskElement[];
  /**
   * The year and venue filters the question stated ("since 2020", "at ACL"), applied to the search, and the words
   * that stated them (left out of the search). Absent when it stated none.
   */
  filters?: AskFilters;
  /**
   * Each stage of the turn (rewrite, search, answer, check, elements) with its wall time, model calls, answers from the
   * response cache and tokens. Absent in conversations saved before it existed.
   */
  trace?: AskTrace;
  /** With a chat model: the cost told before the turn ran (estimate.ts), beside what it cost (`trace`). */
  estimate?: AskEstimate;
}

export interface AskTrace {
  steps: StepTrace[];
  total: TraceTotal;
}

export interface AskFilters {
  yearMin: number | null;
  yearMax: number | null;
  venues: string[];
  phrases: string[];
}

/** An element card: what it is, where it is, and why it is shown. */
export interface AskElement {
  type: 'figure' | 'diagram' | 'table' | 'equation';
  label: string | null;
  caption: string | null;
  /** Table cells as text rows, an equation's LaTeX (PDF: its text), null for a figure. */
  content: string | null;
  paperId: string;
  citationKey: string | null;
  title: string | null;
  year: number | null;
  section: string | null;
  /** PDF page and region [x0, y0, x1, y1] (points from the page's top-left); null for other sources. */
  page: number | null;
  bbox: [number, number, number, number] | null;
  /** direct: it matched the question; linked: it is on the page / in the section of a cited sentence. */
  match: 'direct' | 'linked';
  similarity: number | null;
  /** Linked: the citation number of the sentence that brought it. */
  source: number | null;
  /** What a chat model wrote about it (enrichment: Describe Figures and Tables, `elements --enrich`); absent without one. */
  description?: string | null;
  /** As AskSource's: its paper's metadata was proposed by this model (or its title made up); absent for real metadata. */
  metadataProposedBy?: string;
}

export interface AskCounts {
  /** Evidence sentences retrieved and shown to the model / the extract. */
  evidence: number;
  papers: number;
  /** Evidence sentences whose text was not found in their paper's stored text (dropped). */
  unverifiedEvidence: number;
  /** LLM answers: sentences removed by the check, citations removed (invented or unbacked). */
  removedSentences: number;
  removedCitations: number;
  llmCalls: number;
  /** Wall time of the turn and the part spent waiting for the model. */
  ms: number;
  modelMs: number;
}

export interface Conversation {
  version: 1;
  turns: AskTurn[];
  sources: AskSource[];
}

export interface AskOptions {
  store: CorpusStore;
  embedder: Embedder;
  /** The chat model; null = extractive answers and deterministic follow-up rewrites. */
  chat?: ChatModel | null;
  /** Evidence sentences retrieved per question (default 8). */
  evidence?: number;
  /** The "I don't know" threshold on answerability (default ANSWERABILITY_THRESHOLD). */
  threshold?: number;
  /** Rank papers first and search their sentences when the corpus has more papers than this (default 200). */
  papersFirstAbove?: number;
  /** Papers never used as evidence: the author's own draft as indexed (src/core/retrieve/self.ts). */
  excludePaperIds?: readonly string[];
  /** With an LLM: the verification call of the related-work check (default true). */
  verify?: boolean;
  /** Figure, table and equation cards shown with an answer at most (default DEFAULT_MAX_ELEMENTS; 0: none). */
  maxElements?: number;
  signal?: AbortSignal;
  /** Told what the turn is doing while it runs, and handed the model's draft as it streams (see AskProgress). */
  onProgress?: (progress: AskProgress) => void;
}

/**
 * A running turn's progress. `estimate` comes first, with a chat model (the cost ahead). `draft` carries a delta of the model's answer as it streams: text BEFORE the check, with
 * the prompt's paper ids ([P1]) still in it; only the finished turn's sentences are the checked answer.
 */
export type AskProgress =
  | { kind: 'estimate'; estimate: AskEstimate }
  | { kind: 'stage'; stage: 'rewrite' | 'search' | 'answer' | 'check' }
  | { kind: 'standalone'; standalone: string; rewrite: 'none' | 'llm' | 'terms' }
  | { kind: 'evidence'; sentences: number; papers: number; answerable: boolean }
  | { kind: 'draft'; delta: string };
