// Rendering a paper's BibTeX entry and making its citation key (the extension's Cite action uses both).
import type { PaperMeta } from '../ingest/paper.js';

/** What formatBibtexEntry and makeCitationKey read from a paper (ParsedPaper and the store's PaperRef fit). */
export type CitablePaper = Pick<PaperMeta, 'title' | 'authors' | 'year' | 'venue' | 'doi' | 'arxivId' | 'url'>;

const STOP = new Set(
  'a an the on of in for and to with towards toward via from by at is are as or its into using how what why when do does can we our new'.split(' '),
);
const PARTICLES = new Set(['van', 'von', 'der', 'den', 'de', 'del', 'della', 'di', 'da', 'du', 'la', 'le', 'dos', 'das', 'ten', 'ter', 'zu', 'bin', 'al']);

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
  const lastName = first ? splitName(first).last.split(' ').filter((w) => !PARTICLES.has(w.toLowerCase())).pop() ?? '' : '';
  const author = ascii(lastName).toLowerCase().replace(/[^a-z]/g, '') || 'anon';
  const year = paper.year ? String(paper.year) : '';
  const words = ascii(paper.title ?? '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOP.has(w) && /[a-z]/.test(w));
  return `${author}${year}${words[0] ?? ''}`;
}

/**
 * A citation key that is stable for the paper and never collides with `existingKeys`: the base key, else the base
 * with a, b, … z, aa, ab … appended.
 */
export function makeCitationKey(paper: CitablePaper, existingKeys: Iterable<string> = []): string {
  const taken = new Set([...existingKeys].map((k) => k.toLowerCase()));
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

/** Escape a value for a braced BibTeX field. */
export function escapeBibtex(value: string): string {
  return value
    .replace(/\\/g, '\\textbackslash{}')
    .replace(/([&%$#_])/g, '\\$1')
    .replace(/[{}]/g, (c) => `\\${c}`)
    .replace(/~/g, '\\textasciitilde{}')
    .replace(/\^/g, '\\textasciicircum{}')
    .replace(/\\textbackslash\\\{\\\}/g, '\\textbackslash{}')
    .replace(/\\textasciitilde\\\{\\\}/g, '\\textasciitilde{}')
    .replace(/\\textasciicircum\\\{\\\}/g, '\\textasciicircum{}')
    .replace(/\s+/g, ' ')
    .trim();
}

function bibAuthor(name: string): string {
  const { first, last } = splitName(name);
  if (!first) return `{${escapeBibtex(last)}}`;
  return `${escapeBibtex(last)}, ${escapeBibtex(first)}`;
}

/**
 * A paper's BibTeX entry: @article when it has a venue, @misc otherwise (arXiv papers get eprint fields). The title is
 * wrapped in double braces so that styles keep its casing.
 */
export function formatBibtexEntry(paper: CitablePaper, key: string = makeCitationKey(paper)): string {
  const fields: Array<[string, string]> = [];
  if (paper.title) fields.push(['title', `{${escapeBibtex(paper.title)}}`]);
  if (paper.authors?.length) fields.push(['author', paper.authors.map(bibAuthor).join(' and ')]);
  if (paper.year) fields.push(['year', String(paper.year)]);
  if (paper.venue) fields.push(['journal', escapeBibtex(paper.venue)]);
  if (paper.doi) fields.push(['doi', paper.doi]);
  if (paper.arxivId) {
    fields.push(['eprint', paper.arxivId]);
    fields.push(['archivePrefix', 'arXiv']);
  }
  if (paper.url) fields.push(['url', paper.url]);
  const type = paper.venue ? 'article' : 'misc';
  const body = fields.map(([k, v]) => `  ${k} = {${v}}`).join(',\n');
  return `@${type}{${key}${body ? ',\n' + body : ''}\n}`;
}
