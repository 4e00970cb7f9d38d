// Rendering a paper's BibTeX entry and making its citation key (the extension's Cite action uses both).
import type { PaperMeta } from '../paper/fields.js';

/** What formatBibtexEntry and makeCitationKey read from a paper (ParsedPaper and the store's PaperRef fit). */
export type CitablePaper = Pick<PaperMeta, 'title' | 'authors' | 'year' | 'venue' | 'doi' | 'arxivId' | 'url' | 'citationKey'> & {
  /** The paper's source entry (the corpus's own .bib, stored in papers.bibtex), whose entry type Cite keeps. */
  bibtex?: string | null;
};

/** How an entry is written when the paper's source entry says: its type, and the field its venue goes in. */
export interface EntryShape {
  type: string;
  venueField: 'journal' | 'booktitle' | 'publisher' | 'howpublished' | 'school' | 'institution';
}

const STOP = new Set(
  'a an the on of in for and to with towards toward via from by at is are as or its into using how what why when do does can we our new'.split(
    ' ',
  ),
);
const PARTICLES = new Set([
  'van',
  'von',
  'der',
  'den',
  'de',
  'del',
  'della',
  'di',
  'da',
  'du',
  'la',
  'le',
  'dos',
  'das',
  'ten',
  'ter',
  'zu',
  'bin',
  'al',
]);

function ascii(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[øØ]/g, 'o')
    .replace(/[łŁ]/g, 'l')
    .replace(/[æÆ]/g, 'ae');
}

/** { first, last } of a display name ('Ann B. Smith', 'Smith, Ann', 'Ludwig van Beethoven'). */
export function splitName(name: string): { first: string; last: string } {
  const n = name.trim().replace(/\s+/g, ' ');
  if (n.includes(',')) {
    const [last, ...rest] = n.split(',');
    return { first: rest.join(',').trim(), last: last.trim() };
  }
  const words = n.split(' ');
  if (words.length === 1) return { first: '', last: n };
  let i = words.length - 1;
  while (i > 1 && PARTICLES.has(words[i - 1].toLowerCase())) i--;
  if (i === 1 && PARTICLES.has(words[0].toLowerCase())) i = 0;
  return { first: words.slice(0, i).join(' '), last: words.slice(i).join(' ') };
}

/** The base key authorYEARword (lower-case ASCII), e.g. smith2020sparse. */
export function citationKeyBase(paper: CitablePaper): string {
  const first = paper.authors?.find((a) => a.trim());
  const lastName = first
    ? (splitName(first)
        .last.split(' ')
        .filter((w) => !PARTICLES.has(w.toLowerCase()))
        .pop() ?? '')
    : '';
  const author =
    ascii(lastName)
      .toLowerCase()
      .replace(/[^a-z]/g, '') || 'anon';
  const year = paper.year ? String(paper.year) : '';
  const words = ascii(paper.title ?? '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOP.has(w) && /[a-z]/.test(w));
  return `${author}${year}${words[0] ?? ''}`;
}

/**
 * A citation key that is stable for the paper and never collides with `existingKeys`: the key the paper was indexed
 * under (its Zotero / Better BibTeX key, the user's .bib key) where that is free, else the base key, else the base
 * with a, b, … z, aa, ab … appended.
 */
export function makeCitationKey(paper: CitablePaper, existingKeys: Iterable<string> = []): string {
  const taken = new Set([...existingKeys].map((k) => k.toLowerCase()));
  const own = paper.citationKey ? bibtexKey(paper.citationKey) : null;
  if (own && own !== 'anon' && !taken.has(own.toLowerCase())) return own;
  const base = citationKeyBase(paper);
  if (!taken.has(base)) return base;
  for (let n = 0; ; n++) {
    let suffix = '';
    let k = n;
    do {
      suffix = String.fromCharCode(97 + (k % 26)) + suffix;
      k = Math.floor(k / 26) - 1;
    } while (k >= 0);
    if (!taken.has(base + suffix)) return base + suffix;
  }
}

// Corpus rows are written by others (a shared corpus): every value that reaches a .bib is escaped (text fields) or
// checked and percent-encoded (DOI, URL, eprint, key), so no value can close its field, open another field or
// entry, or smuggle a TeX command (`\input{/etc/passwd}`) into the user's document.

/** Control characters (incl. newlines and NUL) become spaces: a field never spans lines. */
function oneLine(value: string): string {
  return value
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const TEXT_ESCAPES: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '{': '\\textbraceleft{}',
  '}': '\\textbraceright{}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  // OT1 fonts print < and > as ¡ and ¿.
  '<': '\\textless{}',
  '>': '\\textgreater{}',
};

/**
 * Escape a value for a braced BibTeX field: one line, and every TeX special character spelled as a text command, so
 * the written braces are always balanced (BibTeX counts `\{` as a brace too) and no command survives. `@` and `"`
 * are plain text inside braces, and a value never starts a line.
 */
export function escapeBibtex(value: string): string {
  return (
    oneLine(value)
      .replace(/[\\{}~^&%$#_<>]/g, (c) => TEXT_ESCAPES[c])
      // TeX ligatures (-- → –, ``/'' → curly quotes) are broken up, so the value is printed as written.
      .replace(/([-`'])(?=\1)/g, '$1{}')
  );
}

/** A name part that BibTeX would otherwise split (` and `) or reorder (`,`) is kept whole in braces. */
function namePart(part: string): string {
  const e = escapeBibtex(part);
  return /,|\band\b/i.test(part) ? `{${e}}` : e;
}

function bibAuthor(name: string): string {
  const { first, last } = splitName(oneLine(name));
  if (!first) return `{${escapeBibtex(last)}}`;
  return `${namePart(last)}, ${namePart(first)}`;
}

/** A DOI as BibTeX's verbatim `doi` field takes it, or null when the value is not a DOI (then it is left out). */
export function bibtexDoi(doi: string | null | undefined): string | null {
  const d = oneLine(doi ?? '').replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i, '');
  return /^10\.\d{4,9}\/[^\s{}\\"<>%#$]+$/.test(d) ? d : null;
}

/**
 * An http(s) URL for the verbatim `url` field, with the characters that could end the field or the line (and `$`,
 * which the parser reads as math) percent-encoded; null for any other scheme (a `file:` or `javascript:` URL from corpus data is left out).
 */
export function bibtexUrl(url: string | null | undefined): string | null {
  const u = oneLine(url ?? '');
  if (!/^https?:\/\/[^\s/]/i.test(u)) return null;
  return u.replace(/[{}\\\s"%$]/g, (c, i: number) =>
    c === '%' && /^%[0-9a-f]{2}/i.test(u.slice(i, i + 3)) ? c : `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** The arXiv id for `eprint`, or null when the value is not one. */
function bibtexEprint(id: string | null | undefined): string | null {
  const v = oneLine(id ?? '');
  return /^(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?\/\d{7})(v\d+)?$/i.test(v) ? v : null;
}

/** A citation key BibTeX and biber accept (no braces, commas, spaces, quotes, `#`, `%`, `~`, `\\`). */
export function bibtexKey(key: string): string {
  return key.replace(/[^\w:.+/-]/g, '') || 'anon';
}

/**
 * The shape of a source entry (`@inproceedings{… booktitle = …}`): its type when it is a plain word, and the field
 * its venue is in. Null when there is no readable head.
 */
export function sourceShape(bibtex: string | null | undefined): EntryShape | null {
  const head = /^\s*@([a-z]+)\s*[{(]/i.exec(bibtex ?? '');
  if (!head || /^(?:string|preamble|comment)$/i.test(head[1])) return null;
  const type = head[1].toLowerCase();
  const has = (f: string) => new RegExp(`[,{(]\\s*${f}\\s*=`, 'i').test(bibtex!);
  const venueField =
    (['journal', 'booktitle', 'school', 'institution', 'howpublished', 'publisher'] as const).find(has) ??
    (type === 'article' ? 'journal' : /^(?:inproceedings|conference|incollection|inbook)$/.test(type) ? 'booktitle' : 'journal');
  return { type, venueField };
}

/**
 * A paper's BibTeX entry: the type and venue field of its source entry where it has one (`@inproceedings` with
 * `booktitle`), else @article when it has a venue, @misc otherwise (arXiv papers get eprint fields). The title is
 * wrapped in double braces so that styles keep its casing. Every value is escaped or checked (see above).
 */
export function formatBibtexEntry(paper: CitablePaper, key: string = makeCitationKey(paper)): string {
  const shape = sourceShape(paper.bibtex);
  const fields: Array<[string, string]> = [];
  const title = paper.title ? escapeBibtex(paper.title) : '';
  if (title) fields.push(['title', `{${title}}`]);
  const authors = (paper.authors ?? []).filter((a) => oneLine(a));
  if (authors.length) fields.push(['author', authors.map(bibAuthor).join(' and ')]);
  if (paper.year && Number.isInteger(Number(paper.year))) fields.push(['year', String(Number(paper.year))]);
  const venue = paper.venue ? escapeBibtex(paper.venue) : '';
  if (venue) fields.push([shape?.venueField ?? 'journal', venue]);
  const doi = bibtexDoi(paper.doi);
  if (doi) fields.push(['doi', doi]);
  const eprint = bibtexEprint(paper.arxivId);
  if (eprint) {
    fields.push(['eprint', eprint]);
    fields.push(['archivePrefix', 'arXiv']);
  }
  const url = bibtexUrl(paper.url);
  if (url) fields.push(['url', url]);
  const type = shape?.type ?? (venue ? 'article' : 'misc');
  const body = fields.map(([k, v]) => `  ${k} = {${v}}`).join(',\n');
  return `@${type}{${bibtexKey(key)}${body ? ',\n' + body : ''}\n}`;
}
