// Filters stated in a question or a related-work topic ("since 2020", "between 2018 and 2021", "at ACL"), read by a
// small rule set (Ai2 ScholarQA's decomposer does this with its LLM; Ask always uses these rules, related work uses
// them when no LLM is configured), and the question without the words that stated them, so that "since 2020" does
// not become a search term.
//
// The rules, and what they leave alone on purpose:
// - A year is four digits from 1900 to 2099 after a preposition that makes it a date range: "since Y", "from Y on",
//   "Y onwards", "Y or later", "after Y" (Y+1 on), "before Y" / "prior to Y" / "earlier than Y" (up to Y-1), "until
//   Y", "up to Y", "through Y", "Y or earlier", "between Y and Z", "from Y to Z", "Y–Z", "in Y" / "from Y" / "during
//   Y" / "published in Y" (Y alone), "in the last N years" (N years back from the current year).
// - The phrase must be about the papers: just after a word for them ("papers since 2020", "work published before
//   2015", "studies from 2019", "methods in the last 5 years") or with "published"/"appeared" in it. A year range
//   with neither is about what the papers study ("How much did runoff grow between 1990 and 2020?"), not a filter.
// - A year followed by a plural noun is a count, never a filter: "from 2020 participants", "up to 2048 tokens".
// - "recent", "recently", "new" and "state of the art" stay words of the query: how recent is recent depends on the
//   field, and a corpus has no "now" of its own.
// - A venue is a name the corpus's own venues use — an acronym ("ACL", "NeurIPS", "SDProc": two or more capitals,
//   not part of a hyphenated word), or a short venue written whole ("Nature") — spelt as the corpus spells it,
//   standing as a word ("ACL2" and "ACLs" are not ACL), after "at", "in", "from", "published in/at", "appeared in/at",
//   or before "paper(s)", "proceedings", "articles", "work"; "at ACL or EMNLP" names both; "at ACL 2020" is also the
//   year 2020. A name the corpus does not use is not a filter (the store would return nothing).
// - Fields of study are not read: the corpus keeps no field per paper to filter on.
import { isStopWord } from '../text/stop-words.js';
import { NUMBER_WORDS } from '../text/number-words.js';
import type { CorpusStore } from '../store/types.js';

export interface QuestionFilters {
  /** Inclusive publication-year range. */
  yearMin: number | null;
  yearMax: number | null;
  /** Venue names as the corpus writes them (each a case-insensitive part of a paper's venue). */
  venues: string[];
}

export interface ExtractedFilters extends QuestionFilters {
  /** The text without the phrases that stated the filters. */
  query: string;
  /** Those phrases, as written. */
  phrases: string[];
}

/** Number words a count of years can be ("the last five years"): whole numbers up to a hundred. */
const YEAR_COUNTS = Object.keys(NUMBER_WORDS).filter(
  (w) => Number.isInteger(NUMBER_WORDS[w]) && NUMBER_WORDS[w] <= 100 && /^[a-z]+$/.test(w),
);
const YEAR = '((?:19|20)\\d{2})(?![\\d.,]\\d|\\s*%)';
interface YearRule {
  re: RegExp;
  range: (m: RegExpExecArray, now: number) => [number | null, number | null];
}

const rule = (source: string, range: YearRule['range']): YearRule => ({ re: new RegExp(source, 'gi'), range });
const y = (s: string) => Number(s);

/** In order: a phrase a rule takes is not read again by a later rule. */
const YEAR_RULES: YearRule[] = [
  rule(`\\bbetween\\s+${YEAR}\\s+and\\s+${YEAR}`, (m) => [y(m[1]), y(m[2])]),
  rule(`\\b(?:(?:published|appeared)\\s+)?from\\s+${YEAR}\\s+(?:to|until|till|through|and)\\s+${YEAR}`, (m) => [y(m[1]), y(m[2])]),
  rule(`\\b(?:(?:published|appeared)\\s+)?(?:in|during|from)?\\s*${YEAR}\\s*(?:-|–|—|to)\\s*${YEAR}`, (m) => [y(m[1]), y(m[2])]),
  rule(`\\b(?:(?:published|appeared)\\s+)?(?:since|from)\\s+${YEAR}\\s+(?:on|onwards?)\\b`, (m) => [y(m[1]), null]),
  rule(`\\b(?:(?:published|appeared)\\s+)?(?:in\\s+)?${YEAR}\\s+(?:onwards?|or\\s+later|or\\s+after)\\b`, (m) => [y(m[1]), null]),
  rule(`\\b(?:(?:published|appeared)\\s+)?(?:since|in\\s+or\\s+after|not\\s+before)\\s+${YEAR}`, (m) => [y(m[1]), null]),
  rule(`\\b(?:(?:published|appeared)\\s+)?(?:until|till|up\\s+to|through|no\\s+later\\s+than|in\\s+or\\s+before)\\s+${YEAR}`, (m) => [
    null,
    y(m[1]),
  ]),
  rule(`\\b(?:(?:published|appeared)\\s+)?(?:in\\s+)?${YEAR}\\s+or\\s+(?:earlier|before)\\b`, (m) => [null, y(m[1])]),
  rule(`\\b(?:(?:published|appeared)\\s+)?(?:after|later\\s+than|newer\\s+than)\\s+${YEAR}`, (m) => [y(m[1]) + 1, null]),
  rule(`\\b(?:(?:published|appeared)\\s+)?(?:before|prior\\s+to|earlier\\s+than|older\\s+than)\\s+${YEAR}`, (m) => [null, y(m[1]) - 1]),
  rule(`\\b(?:(?:published|appeared)\\s+)?(?:in|during|from)\\s+${YEAR}`, (m) => [y(m[1]), y(m[1])]),
  rule(
    `\\b(?:(?:published|appeared)\\s+)?(?:in|over|during|within|from)\\s+the\\s+(?:last|past|previous)\\s+(\\d{1,2}|${YEAR_COUNTS.join('|')})\\s+years\\b`,
    (m, now) => [now - (NUMBER_WORDS[m[1].toLowerCase()] ?? Number(m[1])), null],
  ),
];

/**
 * What makes a year phrase about the papers, not about what they study: a word for papers just before it ("papers
 * since 2020", "work published before 2015", "studies that appeared in 2019"), or "published"/"appeared" in the
 * phrase. "How much did runoff grow between 1990 and 2020?" asks about the years of the data: no filter.
 */
const PAPERS_BEFORE =
  /\b(?:papers?|works?|stud(?:y|ies)|research|publications?|articles?|literature|preprints?|proceedings|approaches|methods|systems|models)\s+(?:(?:that|which)\s+)?(?:(?:were|was|are|have\s+been)\s+)?$/i;
const PUBLISHED = /^(?:published|appeared)\b/i;

/** Words after a venue name that make it one ("ACL papers"). */
const VENUE_AFTER = /^\s+(?:papers?|proceedings|articles?|work|publications?|submissions?)\b/i;
/** Words before a venue name that make it one ("at ACL"). */
const VENUE_BEFORE = /\b(?:(?:published|appeared|presented)\s+)?(?:at|in|from)\s+(?:the\s+)?$/i;
/** Between two venue names of one list ("ACL or EMNLP", "ACL, EMNLP and NAACL"). */
const VENUE_JOIN = /^\s*(?:,\s*(?:or|and)?|or|and)\s*$/i;

/**
 * What follows a year that keeps it a date: the end, punctuation, a function word or a verb ("since 2020 say"); a
 * plural noun makes it a count ("from 2020 participants", "up to 2048 tokens", "after 2000 iterations").
 */
function dateEnds(rest: string): boolean {
  if (/^\s*(?:\d|%|percent\b)/i.test(rest)) return false;
  const next = /^\s*([A-Za-z][\w-]*)/.exec(rest);
  if (!next) return true;
  const w = next[1].toLowerCase();
  return isStopWord(w) || !w.endsWith('s') || /(?:ss|us|is)$/.test(w);
}

/**
 * The venue names a question may name, from the corpus's venue strings: their acronyms ("SDProc" of "Proceedings of
 * the Workshop on Scholarly Document Processing (SDProc 2021)") and the short venues written whole ("Nature").
 */
export function venueNames(venues: readonly (string | null | undefined)[]): string[] {
  const names = new Set<string>();
  for (const v of venues) {
    if (!v?.trim()) continue;
    const acronyms = [...v.matchAll(/(?<![\w-])([A-Za-z]*[A-Z][a-z]*[A-Z][A-Za-z]*)(?![\w-])/g)]
      .map((m) => m[1])
      .filter((a) => !/^[IVXLC]+$/.test(a));
    for (const a of acronyms) names.add(a);
    const whole = v.trim().replace(/\s+\d{4}$/, '');
    if (
      !acronyms.length &&
      whole.split(/\s+/).length <= 3 &&
      /^[A-Z]/.test(whole) &&
      !/\b(?:proceedings|conference|workshop)\b/i.test(whole)
    )
      names.add(whole);
  }
  return [...names].sort((a, b) => b.length - a.length);
}

/**
 * Every venue the corpus's papers name, once: the store's venue list (kept until a write), else from the paper list;
 * none when the store has neither.
 */
export async function corpusVenues(store: Pick<CorpusStore, 'listPapers' | 'venues'>): Promise<string[]> {
  if (store.venues) return store.venues();
  if (!store.listPapers) return [];
  return [...new Set((await store.listPapers()).map((p) => p.venue?.trim()).filter((v): v is string => !!v))];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The filters `text` states (see the top of this file) and the text without them. */
export function filtersFromText(text: string, o: { venues?: readonly string[]; now?: number } = {}): ExtractedFilters {
  const now = o.now ?? new Date().getUTCFullYear();
  const taken: { start: number; end: number }[] = [];
  const free = (start: number, end: number) => !taken.some((t) => start < t.end && end > t.start);
  let yearMin: number | null = null;
  let yearMax: number | null = null;
  const phrases: { start: number; end: number; year: boolean }[] = [];
  const narrow = (lo: number | null, hi: number | null) => {
    if (lo !== null && hi !== null && lo > hi) [lo, hi] = [hi, lo];
    if (lo !== null) yearMin = yearMin === null ? lo : Math.max(yearMin, lo);
    if (hi !== null) yearMax = yearMax === null ? hi : Math.min(yearMax, hi);
  };

  // Venues first: "at ACL 2020" is one phrase (the venue and its year).
  const venues: string[] = [];
  const names = o.venues ?? [];
  if (names.length) {
    const alternatives = names.map(escapeRe).join('|');
    const re = new RegExp(`(?<![\\w-])(${alternatives})(?![\\w-])`, 'g');
    const found = [...text.matchAll(re)].map((m) => ({ name: m[1], start: m.index!, end: m.index! + m[0].length, ok: false, year: false }));
    for (const f of found) {
      const before = VENUE_BEFORE.exec(text.slice(0, f.start));
      if (before) {
        f.ok = true;
        f.start = before.index;
      } else if (VENUE_AFTER.test(text.slice(f.end))) f.ok = true;
    }
    // A name joined to an accepted one by "or", "and" or a comma is one of the same list.
    for (let changed = true; changed;) {
      changed = false;
      found.forEach((f, i) => {
        if (f.ok) return;
        const joined = (g: (typeof found)[number] | undefined, a: number, b: number) => g?.ok && VENUE_JOIN.test(text.slice(a, b));
        if (joined(found[i - 1], found[i - 1]?.end, f.start)) {
          f.ok = changed = true;
          f.start = found[i - 1].end; // the phrase takes the "or" with it
        } else if (joined(found[i + 1], f.end, found[i + 1]?.start)) {
          f.ok = changed = true;
          f.end = found[i + 1].start;
        }
      });
    }
    for (const f of found.filter((x) => x.ok)) {
      if (!venues.includes(f.name)) venues.push(f.name);
      const year = new RegExp(`^\\s+${YEAR}`).exec(text.slice(f.end));
      if (year && dateEnds(text.slice(f.end + year[0].length))) {
        narrow(y(year[1]), y(year[1]));
        f.end += year[0].length;
        f.year = true;
      }
      taken.push(f);
      phrases.push(f);
    }
  }

  for (const r of YEAR_RULES) {
    r.re.lastIndex = 0;
    for (let m = r.re.exec(text); m; m = r.re.exec(text)) {
      let start = m.index;
      while (/\s/.test(text[start] ?? '')) start++;
      const end = m.index + m[0].length;
      if (!free(start, end) || !dateEnds(text.slice(end))) continue;
      if (!PUBLISHED.test(text.slice(start)) && !PAPERS_BEFORE.test(text.slice(0, start))) continue;
      const [lo, hi] = r.range(m, now);
      narrow(lo, hi);
      taken.push({ start, end });
      phrases.push({ start, end, year: true });
    }
  }
  // Ranges that exclude each other ("since 2030 and before 2020") are no filter: their words stay in the query.
  const contradictory = yearMin !== null && yearMax !== null && yearMin > yearMax;
  if (contradictory) yearMin = yearMax = null;
  const stated = phrases.filter((p) => !(contradictory && p.year && !venues.length)).sort((a, b) => a.start - b.start);
  let query = '';
  let last = 0;
  for (const p of stated) {
    query += text.slice(last, p.start);
    last = p.end;
  }
  return {
    yearMin,
    yearMax,
    venues,
    query: tidy(query + text.slice(last), text),
    phrases: stated.map((p) => text.slice(p.start, p.end).trim()),
  };
}

/** Spaces and punctuation left by a removed phrase tidied; `fallback` when no word is left. */
function tidy(text: string, fallback: string): string {
  const t = text
    .replace(/\s+([?.,;:!])/g, '$1')
    .replace(/\s{2,}/g, ' ')
    .replace(/^[\s,;:]+|[\s,;:]+$/g, '')
    .replace(/,(?=[?.!])/g, '');
  return /\w/.test(t) ? t : fallback.trim();
}

/** `text` less each of `phrases` (any case), tidied; `text` itself when no word would be left. */
export function withoutPhrases(text: string, phrases: readonly string[]): string {
  const out = phrases.reduce((t, p) => t.split(new RegExp(escapeRe(p), 'i')).join(' '), text);
  return tidy(out, text);
}

/** Whether any filter is set. */
export function hasQuestionFilters(f: QuestionFilters): boolean {
  return f.yearMin !== null || f.yearMax !== null || f.venues.length > 0;
}

/** The filters as a person reads them: "2020 on", "up to 2014", "2018–2021", "2019"; "venue ACL or EMNLP". */
export function describeFilters(f: QuestionFilters): string {
  const years =
    f.yearMin !== null && f.yearMax !== null
      ? f.yearMin === f.yearMax
        ? `${f.yearMin}`
        : `${f.yearMin}–${f.yearMax}`
      : f.yearMin !== null
        ? `${f.yearMin} on`
        : f.yearMax !== null
          ? `up to ${f.yearMax}`
          : '';
  const venue = f.venues.length ? `venue ${f.venues.join(' or ')}` : '';
  return [years && `years ${years}`, venue].filter(Boolean).join('; ');
}
