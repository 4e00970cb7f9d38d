// Step 8: check each written section — citations to papers outside the section's verified quotes (or not
// retrieved at all) are removed and counted; citation formats the model was told not to use (\cite{…},
// [@key], author-year parentheses) are removed, since their keys are unchecked; runs of ≥ 12 words copied from
// a corpus sentence are flagged. And `checkReview`, the §3 check over the EMITTED output (tests and --json).
import { ShingleIndex, type SpanSource } from './text-match.js';
import type { CheckReport, CopiedSpan, OutputFormat, VerifiedQuote } from './types.js';

/** A group of short-id citations: [P1], [P1, P3], [P1; P3], (P2). */
const GROUP = /[ \t]*[\[(]\s*(P\s?\d+(?:\s*[,;]\s*P?\s?\d+)*)\s*[\])]/gi;
/** Citation syntax the model must not produce (keys we did not make). */
const RAW_CITES: RegExp[] = [
  /\s*\\[a-zA-Z]*cite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{[^}]*\}/g,
  /\s*\[(?:see\s+)?@[^\]]*\]/g,
  /\s*\((?:[A-Z][\p{L}'-]+(?:\s+(?:et\s+al\.?|and|&)\s*(?:[A-Z][\p{L}'-]+)?)?,?\s+(?:19|20)\d{2}[a-z]?(?:\s*[;,]\s*)?)+\)/gu,
];

export interface SectionCheck {
  text: string;
  cited: string[];
  removed: { id: string; reason: 'unknown-paper' | 'not-in-section' | 'raw-citation' }[];
  copied: Omit<CopiedSpan, 'section'>[];
  uncitedSentences: number;
}

/** Text without citations (for the copy check and word counts). */
export function stripShortIds(text: string): string {
  return text.replace(GROUP, '');
}

/**
 * Keeps the citations to `allowed` papers (canonical form [P1][P3]); removes the rest; flags copied runs.
 * `known`: every retrieved paper's short id (to tell "not retrieved" from "not in this section").
 */
export function checkSectionText(
  text: string,
  allowed: ReadonlySet<string>,
  known: ReadonlySet<string>,
  shingles: ShingleIndex | null,
): SectionCheck {
  const removed: SectionCheck['removed'] = [];
  let t = text;
  for (const re of RAW_CITES) {
    t = t.replace(re, (m) => {
      removed.push({ id: m.trim(), reason: 'raw-citation' });
      return '';
    });
  }
  const cited = new Set<string>();
  t = t.replace(GROUP, (m, inner: string) => {
    const ids = inner.split(/[,;]/).map((s) => `P${s.replace(/\D/g, '')}`);
    const kept: string[] = [];
    for (const id of ids) {
      if (!known.has(id)) removed.push({ id, reason: 'unknown-paper' });
      else if (!allowed.has(id)) removed.push({ id, reason: 'not-in-section' });
      else if (!kept.includes(id)) kept.push(id);
    }
    kept.forEach((id) => cited.add(id));
    const lead = /^\s/.test(m) ? ' ' : '';
    return lead + kept.map((id) => `[${id}]`).join('');
  });
  t = t.replace(/[ \t]+([.,;:!?])/g, '$1').replace(/[ \t]{2,}/g, ' ').replace(/ +(\n|$)/g, '$1');
  const sentences = t.split(/(?<=[.!?])\s+(?=[A-Z0-9"(])|\n+/).filter((s) => s.trim());
  const uncitedSentences = sentences.filter((s) => !/\[P\d+\]/.test(s) && (s.match(/\S+/g)?.length ?? 0) >= 6).length;
  const copied = shingles ? shingles.find(stripShortIds(t)) : [];
  return { text: t.trim(), cited: [...cited], removed, copied, uncitedSentences };
}

// ---------------------------------------------------------------------------------------------------------

/** Keys cited in emitted LaTeX (`\cite…{a,b}`) or Markdown (`[@a; @b]`); comment lines ignored. */
export function citedKeys(body: string, format: OutputFormat): string[] {
  const text = stripComments(body, format);
  const keys: string[] = [];
  if (format === 'latex') {
    for (const m of text.matchAll(/\\[a-zA-Z]*cite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{([^}]*)\}/g)) {
      keys.push(...m[1].split(',').map((k) => k.trim()).filter(Boolean));
    }
  } else {
    for (const m of text.matchAll(/\[([^\]]*@[^\]]*)\]/g)) {
      for (const k of m[1].matchAll(/-?@([\p{L}\p{N}_][\p{L}\p{N}_:.#$%&+?<>~/-]*)/gu)) keys.push(k[1].replace(/[.:]+$/, ''));
    }
  }
  return keys;
}

/** The body without comment lines (LaTeX `%`, Markdown `<!-- -->`). */
export function stripComments(body: string, format: OutputFormat): string {
  if (format === 'markdown') return body.replace(/<!--[\s\S]*?-->/g, '');
  return body
    .split('\n')
    .map((l) => l.replace(/(?<!\\)%.*$/, ''))
    .join('\n');
}

function plainForCopyCheck(body: string, format: OutputFormat): string {
  let t = stripComments(body, format);
  t = format === 'latex' ? t.replace(/\\[a-zA-Z]*cite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{[^}]*\}/g, ' ').replace(/\\[a-zA-Z]+\*?/g, ' ') : t.replace(/\[[^\]]*@[^\]]*\]/g, ' ');
  return t.replace(/[{}~\\]/g, ' ');
}

export interface CheckInput {
  format: OutputFormat;
  sections: readonly { body: string; quoteIds: readonly string[] }[];
  bibtex: string;
  /** Key → corpus paper id of every cited paper. */
  keys: ReadonlyMap<string, string>;
  /** Ids of papers that exist in the corpus (everything retrieved from the store). */
  corpusPaperIds: ReadonlySet<string>;
  quotes: readonly VerifiedQuote[];
  /** Corpus sentences for the copy check. */
  corpusSentences: readonly SpanSource[];
  copySpanWords?: number;
  bibKeysOf: (bib: string) => string[];
}

/** The output check: 0 cited keys missing from the BibTeX, 0 entries that are not corpus papers, every citation backed by a verified quote in its section, 0 copied spans. */
export function checkReview(input: CheckInput): CheckReport {
  const bib = new Set(input.bibKeysOf(input.bibtex));
  const cited = new Set<string>();
  const citationsWithoutVerifiedQuote: CheckReport['citationsWithoutVerifiedQuote'] = [];
  const copiedSpans: CheckReport['copiedSpans'] = [];
  const quotes = new Map(input.quotes.map((q) => [q.id, q]));
  const shingles = new ShingleIndex(input.corpusSentences, input.copySpanWords ?? 12);
  input.sections.forEach((s, i) => {
    const backed = new Set(s.quoteIds.map((id) => quotes.get(id)?.paperId).filter((x): x is string => !!x));
    for (const key of citedKeys(s.body, input.format)) {
      cited.add(key);
      const paperId = input.keys.get(key);
      if (!paperId || !backed.has(paperId)) citationsWithoutVerifiedQuote.push({ section: i, key });
    }
    for (const run of shingles.find(plainForCopyCheck(s.body, input.format))) {
      copiedSpans.push({ section: i, words: run.words, text: run.text });
    }
  });
  const citedKeysMissingFromBib = [...cited].filter((k) => !bib.has(k));
  const bibEntriesNotInCorpus = [...bib].filter((k) => {
    const id = input.keys.get(k);
    return !id || !input.corpusPaperIds.has(id);
  });
  return {
    ok: !citedKeysMissingFromBib.length && !bibEntriesNotInCorpus.length && !citationsWithoutVerifiedQuote.length && !copiedSpans.length,
    citedKeysMissingFromBib,
    bibEntriesNotInCorpus,
    citationsWithoutVerifiedQuote,
    copiedSpans,
  };
}
