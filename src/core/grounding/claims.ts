// The check step, sentence by sentence: every sentence of a written section is split out, its citations
// settled (our [P<n>] ids kept when the section's quotes back them; foreign forms resolved or reported), copied
// runs of ≥ 12 words settled by the copy rule (copies.ts: a quoted whole clause, attributed, or removed), and its
// claim judged against the verified quotes of the papers it cites (support.ts). A sentence that states a finding
// without a valid citation, cites what cannot be resolved, copies corpus text that is not a verified quote, or is
// not supported by its quotes is unsupported: removed, or kept with a visible flag (`unsupported: 'flag'`).
import { resolveForeignCitations, type CitablePaper } from './citations.js';
import { filterShortIds } from './check.js';
import { assessSupport, evidenceIndex, numbersOf } from './support.js';
import { settleCopies } from './copies.js';
import { words, type ShingleIndex } from '../text/match.js';
import type { PaperCandidate, RemovedCitation, SectionFormat, SentenceReport, SentenceVerdict, VerifiedQuote } from './types.js';

export type UnsupportedMode = 'remove' | 'flag';

export interface SectionUnit {
  kind: 'paragraph' | 'item';
  sentences: SentenceReport[];
}

export interface CheckedSection {
  units: SectionUnit[];
  /** Every sentence, in order (kept or not). */
  sentences: SentenceReport[];
  removed: RemovedCitation[];
}

export interface SectionCheckInput {
  /** 0-based section index (sentence ids are `S<section+1>.<n>`). */
  index: number;
  text: string;
  format: SectionFormat;
  topic: string;
  /** The section's verified quotes (their papers are the citable ones). */
  sectionQuotes: readonly VerifiedQuote[];
  /** Every verified quote of the run, for the evidence of a cited paper. */
  allQuotes: readonly VerifiedQuote[];
  papers: readonly PaperCandidate[];
  /** All corpus sentences seen, for the copy check. */
  shingles: ShingleIndex;
  threshold?: number;
}

/** Sentence boundaries: after . ! ? (not "et al.", "e.g.", "i.e.", "cf.", "vs.", "Fig."), before a capital, digit, quote or bracket. */
const BOUNDARY = /(?<!\b(?:al|e\.g|i\.e|cf|vs|Fig|Eq|approx|resp)\.)(?<=[.!?]["”’)]?)\s+(?=[\p{Lu}\d"“([\\])/u;

export function splitSentences(text: string): string[] {
  const parts = text
    .split(BOUNDARY)
    .map((s) => s.trim())
    .filter(Boolean);
  // A citation the model put after the full stop ("… results. [P1]") belongs to the sentence before.
  const out: string[] = [];
  for (const p of parts) {
    if (out.length && /^(?:\[P\d+\]\s*)+[.!?]?$/.test(p))
      out[out.length - 1] = out[out.length - 1].replace(/([.!?])$/, ` ${p.replace(/[.!?]$/, '')}$1`);
    else out.push(p);
  }
  return out;
}

/** Paragraphs (blank-line separated) or list items ("- ", "1. "), each a run of sentences. */
export function splitUnits(text: string, format: SectionFormat): { kind: 'paragraph' | 'item'; text: string }[] {
  const out: { kind: 'paragraph' | 'item'; text: string }[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
    let para: string[] = [];
    let inItem = false;
    const flush = () => {
      if (para.length) out.push({ kind: 'paragraph', text: para.join(' ') });
      para = [];
    };
    for (const raw of block.split('\n')) {
      const line = raw.trim();
      if (!line) continue;
      const item = /^(?:[-*•]|\d+[.)])\s+(.*)$/.exec(line);
      if (item && format === 'list') {
        flush();
        out.push({ kind: 'item', text: item[1] });
        inItem = true;
      } else if (inItem && !item)
        out[out.length - 1].text += ` ${line}`; // an item's continuation line
      else para.push(item ? item[1] : line);
    }
    flush();
  }
  return out;
}

/** Words that mark a statement about what prior work does or finds (vs. a connective sentence). */
const FINDING =
  /\b(?:show|shows|showed|shown|find|finds|found|report\w*|demonstrat\w*|propos\w*|introduc\w*|achiev\w*|outperform\w*|improv\w*|reduc\w*|increas\w*|extend\w*|develop\w*|present\w*|evaluat\w*|observ\w*|prove[sdn]?|reveal\w*|suggest\w*|stud(?:y|ies|ied)|works?|authors?|papers?|researchers|et al|recent|prior|previous|earlier|later)\b/i;

/** A sentence that states a finding (a number, a named method, a finding verb, or several terms beyond the topic). */
export function isClaim(sentence: string, topic: string): boolean {
  if (numbersOf(sentence).size || FINDING.test(sentence)) return true;
  const topicWords = new Set(words(topic));
  const own = words(sentence).filter((w) => w.length > 3 && !topicWords.has(w));
  return own.length > 6;
}

/** Checks one section's sentences (offline). */
export function checkSentences(input: SectionCheckInput): CheckedSection {
  const sectionPapers = new Set(input.sectionQuotes.map((q) => q.paperShortId));
  const byShort = new Map(input.papers.map((p) => [p.shortId, p]));
  const citable: CitablePaper[] = [...sectionPapers].map((id) => byShort.get(id)!).filter(Boolean);
  const known = new Set(input.papers.map((p) => p.shortId));
  const units: SectionUnit[] = [];
  const all: SentenceReport[] = [];
  const removedAll: RemovedCitation[] = [];
  let n = 0;
  for (const unit of splitUnits(input.text, input.format)) {
    const sentences: SentenceReport[] = [];
    for (const original of splitSentences(unit.text)) {
      const report = checkSentence(original, `S${input.index + 1}.${++n}`, input, citable, sectionPapers, known, byShort);
      removedAll.push(...report.removedCitations);
      sentences.push(report);
      all.push(report);
    }
    // A list item names its work: an item that cites no paper is not a connective remark but an uncited finding.
    if (unit.kind === 'item' && sentences.every((s) => !s.cited.length))
      for (const s of sentences.filter((x) => x.verdict === 'connective')) {
        s.verdict = 'unsupported';
        s.reasons.push('a list item that cites no paper');
      }
    if (sentences.length) units.push({ kind: unit.kind, sentences });
  }
  return { units, sentences: all, removed: removedAll };
}

function checkSentence(
  original: string,
  id: string,
  input: SectionCheckInput,
  citable: readonly CitablePaper[],
  sectionPapers: ReadonlySet<string>,
  known: ReadonlySet<string>,
  byShort: ReadonlyMap<string, PaperCandidate>,
): SentenceReport {
  const reasons: string[] = [];
  const foreign = resolveForeignCitations(original, citable);
  const removedCitations: RemovedCitation[] = foreign.unresolved.map((f) => ({ id: f, reason: 'raw-citation' as const }));
  const ids = filterShortIds(foreign.text, sectionPapers, known);
  removedCitations.push(...ids.removed);
  const cited = new Set(ids.cited);
  const copies = settleCopies(
    ids.text,
    { shingles: input.shingles, sectionQuotes: input.sectionQuotes, papers: input.papers, citable: sectionPapers },
    cited,
  );
  const text = copies.text;
  for (const f of foreign.unresolved) reasons.push(`cites ${f}, which is not a paper among the section's quotes`);
  for (const r of ids.removed)
    reasons.push(
      r.reason === 'unknown-paper' ? `cites ${r.id}, which was not retrieved` : `cites ${r.id}, whose quotes are not in this part`,
    );
  reasons.push(...copies.problems);

  let verdict: SentenceVerdict;
  let support = 0;
  let quoteIds: string[] = [];
  if (!cited.size) {
    if (removedCitations.length || copies.problems.length || isClaim(text, input.topic)) {
      reasons.push('states a finding without a valid citation');
      verdict = 'unsupported';
    } else verdict = 'connective';
  } else {
    const evidence = input.allQuotes.filter((q) => cited.has(q.paperShortId));
    quoteIds = evidence.map((q) => q.id);
    const papers = [...cited].map((s) => byShort.get(s)).filter((p): p is PaperCandidate => !!p);
    // The cited papers' titles and author names are theirs to mention ("Hopper [P2] showed …").
    const titles = papers.map((p) => `${p.paper.title ?? ''} . ${p.paper.authors.join(' ')}`).join(' . ');
    const result = assessSupport(
      text,
      evidenceIndex(
        evidence.map((q) => q.text),
        `${input.topic} . ${titles}`,
      ),
      {
        threshold: input.threshold,
        allowedNumbers: papers.map((p) => p.paper.year).filter((y): y is number => typeof y === 'number'),
      },
    );
    support = result.score;
    reasons.push(...result.reasons);
    verdict = reasons.length ? 'unsupported' : 'supported';
  }
  return {
    id,
    text,
    original,
    cited: [...cited],
    quoteIds,
    support,
    verdict,
    reasons,
    removedCitations,
    quotations: copies.quotations,
    resolvedCitations: foreign.resolved.map((r) => ({ form: r.form, shortId: r.shortId })),
  };
}

/** The section's text from its kept sentences (paragraphs blank-line separated, items as "- " lines). */
export function joinUnits(units: readonly SectionUnit[], keep: (s: SentenceReport) => boolean): string {
  const parts: string[] = [];
  let list: string[] = [];
  const flushList = () => {
    if (list.length) parts.push(list.join('\n'));
    list = [];
  };
  for (const u of units) {
    const kept = u.sentences.filter(keep).map((s) => s.text);
    if (!kept.length) continue;
    if (u.kind === 'item') list.push(`- ${kept.join(' ')}`);
    else {
      flushList();
      parts.push(kept.join(' '));
    }
  }
  flushList();
  return parts.join('\n\n');
}

export function keptSentence(mode: UnsupportedMode): (s: SentenceReport) => boolean {
  return (s) => s.verdict !== 'unsupported' || mode === 'flag';
}
