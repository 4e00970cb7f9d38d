// A paper's reference list and the citations its sentences print, linked: which work each sentence cites. The list
// comes from the PDF's References section (numbered `[12] …` / `12. …`, else author-year entries), a LaTeX
// project's \bibitem entries or its .bib (the folder's BibIndex, by key); the citations from the sentence's text (PDF)
// or its source (`\cite{key}`, `[@key]`, which the clean text drops). Stored with the paper (papers.cited_works), so
// that a quote which itself cites work can name that work, and find it in the corpus (retrieve/inner-citations.ts).
import { SURNAME, type InTextCitation } from '../bib/in-text.js';
import type { BibIndex } from '../bib/index.js';
import { normaliseDoi } from '../paper/ids.js';
import { latexCleanText } from '../text/latex-inline.js';
import type { CitedWork } from '../store/types.js';

/** One entry of a reference list, before the sentences citing it are known. */
export type ReferenceEntry = Omit<CitedWork, 'citedBy'>;

/** An entry's text is clipped: it names the work, the corpus match reads its title, DOI or first words. */
const MAX_TEXT = 400;
/** A reference list longer than this is not one (a whole appendix read as references). */
const MAX_ENTRIES = 2000;

const DOI = /\b10\.\d{4,9}\/[^\s,;]+[^\s,;.)]/;
const YEAR_IN_TEXT = /\b(1[89]\d{2}|20\d{2})[a-z]?\b/;

function entryOf(label: string | null, key: string | null, text: string): ReferenceEntry {
  const t = text.replace(/\s+/g, ' ').trim().slice(0, MAX_TEXT);
  const y = YEAR_IN_TEXT.exec(t);
  return { label, key, text: t, authors: [], year: y ? Number(y[1]) : null, title: null, doi: normaliseDoi(DOI.exec(t)?.[0] ?? null) };
}

/** `[12] A. Smith, …` or `12. A. Smith, …` (the number that comes next), at the start of a line. */
const NUMBERED = /^\s*(?:\[(\d{1,4})\]|(\d{1,4})\.)\s+/;
/** An author-year list's entry starts with a surname and a comma, then initials or a given name: `Smith, J.`. */
const AUTHOR_START = new RegExp(String.raw`^${SURNAME},\s+\p{Lu}`, 'u');

/** The entries of a printed reference list, from its lines in reading order. */
export function referenceEntries(lines: readonly string[]): ReferenceEntry[] {
  const numbered = lines.filter((l) => NUMBERED.test(l)).length >= Math.max(2, lines.length / 6);
  const out: { label: string | null; text: string }[] = [];
  let expected = 1;
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    const m = numbered ? NUMBERED.exec(line) : null;
    const n = m ? Number(m[1] ?? m[2]) : NaN;
    if (m && (n === expected || (out.length === 0 && n > 0))) {
      out.push({ label: String(n), text: line.slice(m[0].length) });
      expected = n + 1;
    } else if (!numbered && AUTHOR_START.test(line) && (!out.length || YEAR_IN_TEXT.test(out[out.length - 1].text))) {
      out.push({ label: null, text: line });
    } else if (out.length) {
      // A hyphen broken across lines joins without a space.
      const last = out[out.length - 1];
      last.text = /\p{Ll}-$/u.test(last.text) ? last.text.slice(0, -1) + line : `${last.text} ${line}`;
    }
    if (out.length > MAX_ENTRIES) return [];
  }
  return out.map((e) => entryOf(e.label, null, e.text));
}

/** `\bibitem[label]{key} text` entries of a LaTeX source (a thebibliography environment, or a .bbl pasted in). */
export function bibitemEntries(source: string): ReferenceEntry[] {
  const items = [...source.matchAll(/\\bibitem\s*(?:\[[^\]]*\])?\s*\{([^}]+)\}/g)];
  return items.slice(0, MAX_ENTRIES).map((m, i) => {
    const end = i + 1 < items.length ? items[i + 1].index! : source.indexOf('\\end{thebibliography}', m.index!);
    const body = source.slice(m.index! + m[0].length, end < 0 ? undefined : end);
    return entryOf(null, m[1].trim(), latexCleanText(body.replace(/\\newblock\b/g, ' ')));
  });
}

function fold(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** The entry under a key: the reference list's, else the .bib's (its title, authors, year and DOI). */
function byKey(key: string, entries: readonly ReferenceEntry[], bib?: BibIndex): ReferenceEntry {
  const k = key.toLowerCase();
  const own = entries.find((e) => e.key?.toLowerCase() === k);
  if (own) return own;
  const rec = bib?.entry(key)?.record;
  if (!rec) return { label: null, key, text: '', authors: [], year: null, title: null, doi: null };
  const text = [rec.authors.join(', '), rec.year ? `(${rec.year})` : '', rec.title ?? '', rec.venue ?? ''].filter(Boolean).join(' ');
  return {
    label: null,
    key,
    text: text.slice(0, MAX_TEXT),
    authors: rec.authors,
    year: rec.year,
    title: rec.title,
    doi: normaliseDoi(rec.doi),
  };
}

/** The one entry whose first author (its authors, else the entry's first words) has this surname, of that year. */
function byAuthorYear(surname: string, year: string, entries: readonly ReferenceEntry[]): ReferenceEntry | null {
  const s = fold(surname);
  const y = Number(year.slice(0, 4));
  const hits = entries.filter((e) => {
    if (e.year !== y) return false;
    const first = e.authors.length ? fold(e.authors[0]) : fold(e.text.slice(0, 60));
    return new RegExp(String.raw`(^|[^\p{L}])${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\p{L}]|$)`, 'u').test(first);
  });
  return hits.length === 1 ? hits[0] : null;
}

/**
 * The works a paper's sentences cite, each with the sentences citing it, in order of first citation. `cites`: each
 * sentence's citations by global index (parsed from its text when the reader gave none); keys not in the list are
 * looked up in `bib`, and kept with their key alone when it has none either (a key can still name a corpus paper).
 */
export function linkCitedWorks(
  cites: ReadonlyMap<number, readonly InTextCitation[]>,
  entries: readonly ReferenceEntry[],
  bib?: BibIndex,
): CitedWork[] {
  const works = new Map<ReferenceEntry, number[]>();
  const cite = (e: ReferenceEntry | null | undefined, at: number) => {
    if (!e) return;
    const list = works.get(e) ?? [];
    if (!list.includes(at)) list.push(at);
    works.set(e, list);
  };
  const keyed = new Map<string, ReferenceEntry>();
  const labelled = new Map(entries.filter((e) => e.label).map((e) => [e.label!, e]));
  for (const [at, list] of [...cites].sort((a, b) => a[0] - b[0])) {
    for (const c of list) {
      if (c.kind === 'key')
        for (const k of c.keys) {
          const e = keyed.get(k.toLowerCase()) ?? byKey(k, entries, bib);
          keyed.set(k.toLowerCase(), e);
          cite(e, at);
        }
      else if (c.kind === 'numeric') for (const n of c.numbers) cite(labelled.get(String(n)), at);
      else cite(byAuthorYear(c.surname, c.year, entries), at);
    }
  }
  return [...works].map(([e, citedBy]) => ({ ...e, citedBy }));
}
