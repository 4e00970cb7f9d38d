// The copy rule of generated prose (related work, Ask): a run of ≥ N words (copyWords; N = 12) of a corpus sentence
// is either a marked quotation of a whole clause of that sentence, attributed to its paper, or the sentence goes.
// A model that copies a fragment ("Our observed rates of mortality in cirrhosis patients with COVID-19 (32%)" cut
// out of a longer sentence) passes another paper's words, and often its first person, off as the writer's; quoting a
// whole clause keeps the source's meaning and says whose words they are. A whole-clause run a section quote holds is
// quoted here (and cited); quotation marks the model wrote count when what they hold is a whole clause.
import { copyWords, findCopiedSpans, wordsAt, type ShingleIndex } from '../text/match.js';
import type { PaperCandidate, VerifiedQuote } from './types.js';

export interface CopyContext {
  shingles: ShingleIndex;
  /** The section's verified quotes: an unquoted whole-clause copy one of them holds is quoted and cited. */
  sectionQuotes: readonly VerifiedQuote[];
  papers: readonly PaperCandidate[];
  /** Short ids of the papers the sentence may cite (the section's). */
  citable: ReadonlySet<string>;
}

export interface SettledCopies {
  text: string;
  /** Copied runs turned into quotations. */
  quotations: number;
  /** Why the sentence cannot stay, one line per offending run (empty: it may). */
  problems: string[];
}

/** Between two words of a source sentence: a clause ends there (a comma, semicolon, colon, full stop, !, ?, a dash). */
const CLAUSE_BREAK = /[,;:!?]|\.(?!\d)|\s[-\u2013\u2014]\s|[\u2013\u2014]/;
/** Words that open a clause after its break ("…, and the rate …", "…; which …"): a quotation may start after them. */
const OPENER = new Set([
  'and',
  'but',
  'or',
  'nor',
  'yet',
  'so',
  'which',
  'while',
  'whereas',
  'although',
  'though',
  'because',
  'since',
  'where',
  'when',
  'thus',
  'hence',
]);

/**
 * True when `run` (copyWords) is a whole clause of `source`: it occurs there as consecutive words that start at the
 * sentence's start or after a clause break (an opening conjunction may be left out) and end at its end or at a break.
 * A parenthesis is not a break: "… with COVID-19 (32%)" cut before "also far exceeded …" is a fragment.
 */
export function isWholeClause(run: readonly string[], source: string): boolean {
  const tokens = wordsAt(source);
  const between = (a: number, b: number) => source.slice(tokens[a].end, tokens[b].start);
  const startsClause = (i: number): boolean =>
    i === 0 || CLAUSE_BREAK.test(between(i - 1, i)) || (OPENER.has(tokens[i - 1].word) && startsClause(i - 1));
  const endsClause = (j: number): boolean => j === tokens.length - 1 || CLAUSE_BREAK.test(between(j, j + 1));
  for (let i = 0; i + run.length <= tokens.length; i++) {
    if (run.every((w, k) => tokens[i + k].word === w) && startsClause(i) && endsClause(i + run.length - 1)) return true;
  }
  return false;
}

/** Quotations written in the text (“…”, "…", ``…''): the offsets of what each holds. */
function quotedRanges(text: string): { start: number; end: number; after: number }[] {
  return [...text.matchAll(/``[\s\S]*?''|\u201c[^\u201d]*\u201d|"[^"\n]*"/g)].map((m) => {
    const mark = m[0].startsWith('``') ? 2 : 1;
    return { start: m.index! + mark, end: m.index! + m[0].length - mark, after: m.index! + m[0].length };
  });
}

const CITATION = /\[P\d+\]/g;

/**
 * Applies the copy rule to one sentence (citations as [P<n>]); `cited` gains the papers of the quotations it
 * attributes. Runs are searched outside citations and inside quotation marks too.
 */
export function settleCopies(text: string, ctx: CopyContext, cited: Set<string>): SettledCopies {
  const skip: [number, number][] = [...text.matchAll(CITATION)].map((m) => [m.index!, m.index! + m[0].length]);
  const quoted = quotedRanges(text);
  const shortIdOf = new Map(ctx.papers.map((p) => [p.paper.id, p.shortId]));
  const problems: string[] = [];
  const edits: { at: number; insert: string }[] = [];
  let quotations = 0;
  const head = (t: string) => `"${t.split(' ').slice(0, 6).join(' ')} …"`;
  /** The run's paper cited, or citable and cited here after `at`; false when neither. */
  const attribute = (shortId: string | undefined, at: number): boolean => {
    if (!shortId) return false;
    if (cited.has(shortId)) return true;
    if (!ctx.citable.has(shortId)) return false;
    cited.add(shortId);
    edits.push({ at, insert: ` [${shortId}]` });
    return true;
  };
  for (const span of findCopiedSpans(ctx.shingles, text, skip)) {
    const source = ctx.shingles.sourceOf(span);
    const shortId = source && shortIdOf.get(source.paperId);
    const inside = quoted.find((q) => span.start >= q.start && span.end <= q.end);
    if (inside) {
      // The model's own quotation: fine when it holds a whole clause of the source and names whose words they are.
      const quotation = copyWords(text.slice(inside.start, inside.end));
      if (!source || !isWholeClause(quotation, source.text))
        problems.push(`quotes ${span.words} words of a corpus sentence that are not a whole clause of it (${head(span.text)})`);
      else if (!attribute(shortId, inside.after)) problems.push(`quotes a corpus sentence without citing its paper (${head(span.text)})`);
      continue;
    }
    const holder = ctx.sectionQuotes.find((q) => ` ${copyWords(q.text).join(' ')} `.includes(` ${span.text} `));
    if (!holder) {
      problems.push(`copies ${span.words} words of a corpus sentence that is not a verified quote (${head(span.text)})`);
      continue;
    }
    if (!source || !isWholeClause(span.text.split(' '), source.text)) {
      problems.push(`copies ${span.words} words of a verified quote without quoting a whole clause of it (${head(span.text)})`);
      continue;
    }
    quotations++;
    // The quotation closes after what ends its last word ("(5-8%)": the per cent sign and the bracket).
    const end = span.end + (/^[%\u2030\u00b0)\]]*/.exec(text.slice(span.end))?.[0].length ?? 0);
    edits.push({ at: span.start, insert: '\u201c' }, { at: end, insert: '\u201d' });
    attribute(holder.paperShortId, end);
  }
  let out = text;
  // Right to left, so offsets stay valid; at one offset the closing mark goes before the citation.
  for (const e of edits.map((e, k) => ({ ...e, k })).sort((a, b) => b.at - a.at || b.k - a.k))
    out = out.slice(0, e.at) + e.insert + out.slice(e.at);
  return { text: out, quotations, problems };
}
