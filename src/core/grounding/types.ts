// The shapes grounding works on: the evidence (papers and their verified quotes), each checked sentence with its
// verdict, and what a step records. Shared by related work (review/), Ask (ask/) and the citation checker.
import type { Hit, PaperRef } from '../store/types.js';

export type OutputFormat = 'latex' | 'markdown';
export type SectionFormat = 'paragraph' | 'list';

/**
 * All stored sentences of a paper, in reading order (for checking quotes). The store does not offer this yet;
 * {@link paperTextSource} adapts a store (see there).
 */
export interface PaperTextSource {
  paperSentences(paperId: string, signal?: AbortSignal): Promise<string[]>;
}

/** A reranked paper with its best passages (reading order) and its short id `P<n>`. */
export interface PaperCandidate {
  shortId: string;
  paper: PaperRef;
  score: number;
  passages: Hit[];
}

export interface VerifiedQuote {
  /** `Q<n>`, unique over the run. */
  id: string;
  paperShortId: string;
  paperId: string;
  /** The quote as stored in the corpus (exact match: the model's text; fuzzy: the stored span). */
  text: string;
  match: 'exact' | 'fuzzy';
  similarity: number;
}

export interface CopiedSpan {
  section: number;
  words: number;
  text: string;
  paperId: string;
}

export interface RemovedCitation {
  id: string;
  reason: 'unknown-paper' | 'not-in-section' | 'raw-citation';
}

/** supported / partial (kept; the verification model's "partial") / unsupported / connective (no finding, no citation). */
export type SentenceVerdict = 'supported' | 'partial' | 'unsupported' | 'connective';

/** One generated sentence as checked: what it cites, what backs it, and the verdict. */
export interface SentenceReport {
  /** `S<section>.<n>` (1-based). */
  id: string;
  /** The checked sentence: citations as [P<n>], copied quote runs in quotation marks. */
  text: string;
  /** As the model wrote it. */
  original: string;
  /** Short ids cited after the check. */
  cited: string[];
  /** The verified quotes of the cited papers (the sentence's evidence). */
  quoteIds: string[];
  /** Offline support score (0–1): share of its content terms found in the evidence. */
  support: number;
  verdict: SentenceVerdict;
  /** Why it is unsupported. */
  reasons: string[];
  removedCitations: RemovedCitation[];
  /** Author-year / key citations converted to a section paper. */
  resolvedCitations: { form: string; shortId: string }[];
  /** Copied runs turned into explicit quotations. */
  quotations: number;
  /** The verification model's verdict, when one was asked. */
  llmVerdict?: 'supported' | 'partial' | 'unsupported';
  /** Kept in the output (false: removed as unsupported). */
  kept?: boolean;
}

/** What one step did (a review step, Ask's check): its time, LLM calls, tokens, counts and notes. */
export interface StepTrace<S extends string = string> {
  step: S;
  durationMs: number;
  /** Requests the model answered (not those answered from the response cache). */
  llmCalls: number;
  /** Requests answered from the response cache: no call, no tokens. */
  cachedCalls: number;
  tokens: { prompt: number; completion: number; total: number; estimated: boolean };
  /** The fallback model, when it answered some of this step's requests (the primary failed). */
  fallback?: { model: string; calls: number };
  counts: Record<string, number>;
  notes: string[];
}

/** A run's steps summed: wall time, calls, answers from the response cache, tokens, and the fallback's share. */
export interface TraceTotal {
  durationMs: number;
  llmCalls: number;
  /** Requests answered from the response cache (no call, no tokens). */
  cachedCalls: number;
  tokens: { prompt: number; completion: number; total: number; estimated: boolean };
  /** The fallback model and how many requests it answered, when the primary failed. */
  fallback?: { model: string; calls: number };
}

/** The §3 check over the emitted output. */
export interface CheckReport {
  ok: boolean;
  citedKeysMissingFromBib: string[];
  bibEntriesNotInCorpus: string[];
  citationsWithoutVerifiedQuote: { section: number; key: string }[];
  copiedSpans: { section: number; words: number; text: string }[];
  /** Sentences judged unsupported and kept with a flag (`unsupported: 'flag'`); removed ones are in the trace. */
  flaggedSentences?: number;
  /** Outline mode: lines that are not comments (must be 0: never pasted prose). */
  uncommentedLines?: number;
}

/** A progress message from within a step (e.g. 12/50 papers); the review's ProgressEvent adds the step. */
export interface StepProgress {
  /** 'start' | 'progress' (within a step, e.g. 12/50 papers) | 'done'. */
  phase: 'start' | 'progress' | 'done';
  message: string;
  done?: number;
  of?: number;
}
