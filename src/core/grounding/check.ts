// Short-id citations ([P<n>]) kept only where the section's quotes back them (the sentence-by-sentence check in
// claims.ts uses this), and `checkReview`, the §3 check over the EMITTED output (tests and --json).
import { ShingleIndex, type SpanSource } from '../text/match.js';
import type { CheckReport, OutputFormat, RemovedCitation, VerifiedQuote } from './types.js';

/** A group of short-id citations: [P1], [P1, P3], [P1; P3], (P2). */
const GROUP = /[ \t]*[[(]\s*(P\s?\d+(?:\s*[,;]\s*P?\s?\d+)*)\s*[\])]/gi;

/** Text without citations (for the copy check and word counts). */
export function stripShortIds(text: string): string {
  return text.replace(GROUP, '');
}

/** Keeps the [P<n>] citations of `allowed` papers in canonical form ([P1][P3]); removes and reports the others. */
export function filterShortIds(
  text: string,
  allowed: ReadonlySet<string>,
  known: ReadonlySet<string>,
): { text: string; cited: string[]; removed: RemovedCitation[] } {
  const removed: RemovedCitation[] = [];
  const cited = new Set<string>();
  let t = text.replace(GROUP, (m, inner: string) => {
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
  t = t
    .replace(/[ \t]+([.,;:!?])/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/ +(\n|$)/g, '$1');
  return { text: t.trim(), cited: [...cited], removed };
}

// ---------------------------------------------------------------------------------------------------------

/** Keys cited in emitted LaTeX (`\cite…{a,b}`) or Markdown (`[@a; @b]`); comment lines ignored. */
export function citedKeys(body: string, format: OutputFormat): string[] {
  const text = stripComments(body, format);
  const keys: string[] = [];
  if (format === 'latex') {
    for (const m of text.matchAll(/\\[a-zA-Z]*cite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{([^}]*)\}/g)) {
      keys.push(
        ...m[1]
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      );
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

/** Text without its explicit quotations (``…'', “…”, "…"): quoting with a citation is not copying. */
export function stripQuotations(text: string): string {
  return text.replace(/``[\s\S]*?''|\u201c[^\u201d]*\u201d|"[^"\n]*"/g, ' ');
}

function plainForCopyCheck(body: string, format: OutputFormat): string {
  let t = stripQuotations(stripComments(body, format));
  t =
    format === 'latex'
      ? t.replace(/\\[a-zA-Z]*cite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{[^}]*\}/g, ' ').replace(/\\[a-zA-Z]+\*?/g, ' ')
      : t.replace(/\[[^\]]*@[^\]]*\]/g, ' ');
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
