// A PDF's metadata as a reference manager reads it: the info dictionary and the XMP stream, and the first page as
// printed (the title is the largest text near the top, the author block under it, dates, DOI and arXiv patterns).
// Where both speak, the embedded value wins only when the page confirms it: templates leave titles such as
// 'Instructions for authors' and word processors 'Microsoft Word - draft.docx' in the info dictionary, while the page
// is what the reader sees. The layout's lines come from pdf-layout.ts; the paper's text is pdf-assemble.ts's job.
import type { PaperMeta } from '../paper/fields.js';
import { normaliseArxivId, normaliseDoi, normaliseTitle } from '../paper/ids.js';
import { DEFAULT_PAGE_HEIGHT, type PdfLayout, type PdfLine } from './pdf-layout.js';

/** Where a field came from: the XMP stream, the info dictionary, or the first page's layout. */
export type MetaOrigin = 'xmp' | 'info' | 'page';

export interface PdfMetadata {
  meta: PaperMeta;
  from: Partial<Record<'title' | 'authors' | 'year' | 'doi' | 'arxivId', MetaOrigin>>;
}

// Thresholds, relative to the body font size (the size of most characters) or the page height.
/** The title is in the top half of page 1. */
const TITLE_ZONE = 0.5;
/** The title's font is at least this much larger than the body (× body): else the page has no visible title. */
const TITLE_SIZE = 1.15;
/** A title's lines follow closer than this (× its size). */
const TITLE_LINE_GAP = 1.8;
/** Title lines are one size to within this many points. */
const TITLE_SAME_SIZE = 0.3;
/** The author block lies in the top part of page 1 (a class that sets authors at the foot, amsart, has none here). */
const FRONT_ZONE = 0.6;
/** Author names are set at about body size or larger (× body); smaller front matter is affiliations and notes. */
const AUTHOR_MIN_SIZE = 0.85;
/** A line of author names is at most this long: a longer one is prose (an abstract without a heading). */
const AUTHOR_LINE_MAX_CHARS = 400;
/** Years further ahead than this (of the current one) are not publication years. */
const FUTURE_YEARS = 1;
/** The earliest year taken for a publication year (street numbers and page ranges look like years too). */
const EARLIEST_YEAR = 1900;

const KNOWN_HEADINGS =
  /^(abstract|introduction|related work|background|preliminaries|conclusions?|acknowledge?ments?|references|bibliography|keywords|index terms|ccs concepts|contents)\b/i;
const NUMBERED_HEADING = /^(?:\d{1,2}(?:\.\d{1,2}){0,3}|[IVX]{1,5})\.?\s+[A-Z]/;
/** Words that mark an affiliation, an address or a note, never a name. */
const AFFILIATION =
  /@|https?:|www\.|universi|univ\.|institu|politecnic|polytechn|[eé]cole|hochschule|technische|department|dept\.|school|laborator|\blab\b|college|cent(?:er|re)\b|faculty|division|hospital|clinic|academy|polytechnic|research|corporation|\binc\b|\bltd\b|gmbh|\bcorp\b|foundation|\bgroup\b|street|avenue|\broad\b|\bdrive\b|campus|email|e-mail|correspond|equal contribution|contributed equally|\bdated\b|received|accepted|published|submitted|preprint|journal|proceedings|conference|copyright|©|\d{3,}/i;
/** Places that would otherwise pass for a two-word name ('New York', 'Hong Kong'). */
const PLACES =
  /^(?:new york|new jersey|new zealand|new mexico|new delhi|new south wales|hong kong|san (?:francisco|diego|jose)|los angeles|las vegas|united (?:states|kingdom|arab emirates)|south (?:korea|africa)|north carolina|saudi arabia|costa rica|czech republic|buenos aires|rio de janeiro|sao paulo|tel aviv|salt lake city|palo alto|mountain view|menlo park|cape town|abu dhabi|el paso|la jolla|santa (?:barbara|clara|cruz|fe))$/i;
const PARTICLE = /^(?:van|von|der|den|de|del|della|di|da|du|dos|das|la|le|ten|ter|zu|bin|al|y|e)$/;
/** One word of a name: 'Ann', 'B.', 'O’Neil', 'Nunez-Iglesias', 'JOHN', 'CJ', 'Ch.' */
const NAME_WORD = /^(?:\p{Lu}[\p{L}'’-]*\.?|\p{Lu}\.(?:-?\p{Lu}\.)*)$/u;

const MONTHS =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
/** A year in a date's context: a month beside it, ©, a received/accepted/published note, a standalone year line. */
const DATED_YEAR = new RegExp(
  [
    `\\b(?:${MONTHS})\\.?\\s+(?:\\d{1,2}(?:\\s*[-–]\\s*\\d{1,2})?,?\\s+)?(\\d{4})\\b`,
    `\\b\\d{1,2}(?:\\s*[-–]\\s*\\d{1,2})?\\s+(?:${MONTHS})\\.?,?\\s+(\\d{4})\\b`,
    `(?:©|\\(c\\)|copyright)\\s*(\\d{4})\\b`,
    `\\b(?:received|accepted|published|submitted|revised|dated|preprint|available online)\\b[^\\n]{0,60}?\\b(\\d{4})\\b`,
    `\\b(\\d{4})-\\d{2}-\\d{2}\\b`,
    `^\\s*(\\d{4})\\.?\\s*$`,
  ].join('|'),
  'im',
);

/** TeX's spacing accents (OT1 fonts set them as glyphs of their own) and the combining marks they stand for. */
const SPACING_ACCENTS: Record<string, string> = {
  '`': '\u0300',
  '\u00b4': '\u0301',
  '\u02c6': '\u0302',
  '\u02dc': '\u0303',
  '\u00af': '\u0304',
  '\u02d8': '\u0306',
  '\u02d9': '\u0307',
  '\u00a8': '\u0308',
  '\u02da': '\u030a',
  '\u02dd': '\u030b',
  '\u02c7': '\u030c',
};

/** Diacritics PDF.js gives as a spacing accent beside the letter (TeX's OT1 fonts): put back on the letter. */
function composeAccents(text: string): string {
  return (
    text
      .replace(
        /(\p{L}?)([`\u00b4\u02c6\u02dc\u00af\u02d8\u02d9\u00a8\u02da\u02dd\u02c7])(\p{L})/gu,
        (m, before: string, accent: string, letter: string) =>
          // A backtick is an accent only inside a word ('Lef`evre'), not an opening quote.
          accent === '`' && !before ? m : before + letter + SPACING_ACCENTS[accent],
      )
      .normalize('NFKC')
      .replace(/\s?([\u0300-\u036f])\s?(\p{L})/gu, '$2$1')
      .normalize('NFC')
      // An accent left over (set apart from its letter, e.g. over a capital): dropped rather than put on a wrong letter.
      .replace(/\s?[\u0300-\u036f]/g, '')
  );
}

/** A title or name as printed: accents composed, marks and footnote signs at its end dropped, spaces collapsed. */
function clean(text: string): string {
  return composeAccents(text)
    .replace(/\s+/g, ' ')
    .replace(/(?:\s*[*∗†‡§¶⋆✉]+|\s+\d{1,2})+$/u, '')
    .trim();
}

/** A string field of the info dictionary or XMP, unless it is empty or a placeholder a tool left. */
export function usableString(value: unknown): string | null {
  const v = Array.isArray(value) ? value.join('; ') : value;
  if (typeof v !== 'string') return null;
  const t = v.replace(/\s+/g, ' ').trim();
  if (!t || /^(?:untitled|unknown|anonymous|title|author|authors|paper|document|none|null)$/i.test(t) || /^microsoft word\b/i.test(t))
    return null;
  if (/\.(docx?|tex|pdf|dvi|ps|odt|rtf)$/i.test(t)) return null;
  return t;
}

/** A display name ('Ann B. Smith'), title-cased when it was printed in capitals ('JOHN SMITH' → 'John Smith'). */
function displayName(words: string[]): string {
  const caps = words.every((w) => w === w.toUpperCase());
  return (
    words
      .map((w) =>
        caps && w.replace(/[.'’-]/g, '').length > 2 ? w.toLowerCase().replace(/(^|[-'’])(\p{L})/gu, (_, p, c) => p + c.toUpperCase()) : w,
      )
      .join(' ')
      // TeX sets an apostrophe typed ' as ’: names keep the apostrophe their .bib entries spell.
      .replace(/’/g, "'")
  );
}

/** A name when the text is one (2–7 words, each capitalised or a particle), else null. */
function asName(raw: string): string | null {
  const text = clean(
    raw
      .replace(/\([^)]*\)/g, ' ')
      .replace(/(?:\s+|^)(?:[a-z](?:\s*,\s*[a-z])*|\d+(?:\s*,\s*\d+)*|[*∗†‡§¶⋆✉]+)\s*$/u, '')
      .replace(/^[\s*∗†‡§¶⋆✉]+/u, '')
      .replace(/^(?:and|by)\s+/i, '')
      // Affiliation marks glued to the name ('Krüger1', 'Dube1,3').
      .replace(/(\p{L})\d+(?:,\d+)*(?=\s|$)/gu, '$1'),
  );
  if (!text || PLACES.test(text) || KNOWN_HEADINGS.test(text) || /^(?:(?:senior|life|student)\s+)?(?:member|fellow)\b/i.test(text))
    return null;
  const words = text.split(' ');
  if (words.length < 2 || words.length > 7) return null;
  if (!words.every((w, i) => NAME_WORD.test(w) || (i > 0 && i < words.length - 1 && PARTICLE.test(w)) || (i > 0 && PARTICLE.test(w))))
    return null;
  // The last word is a surname: at least two letters, not an initial.
  const last = words[words.length - 1];
  if (/\.$/.test(last) || last.replace(/[^\p{L}]/gu, '').length < 2) return null;
  return displayName(words);
}

/**
 * Names in a line of the author block: the line split where names are set apart (gaps wider than a word space), then
 * at commas, 'and', '&', bullets. Null when the line is more not-names than names (a sentence, an address).
 */
function namesIn(pieces: readonly string[]): string[] | null {
  const out: string[] = [];
  let other = 0;
  for (const chunk of pieces) {
    for (const piece of chunk.split(/\s*(?:,|;|\band\b|&|·|•|\u2022|\s{2,})\s*/i)) {
      // Marks and memberships beside names ('Member, IEEE') are neither names nor evidence against them.
      if (
        !piece.trim() ||
        /^(?:[a-z]|\d+|[*∗†‡§¶⋆✉]+|ieee|acm|ph\.?\s?d\.?|m\.?d\.?|(?:(?:senior|life|student)\s+)?(?:member|fellow))$/iu.test(piece.trim())
      )
        continue;
      const name = asName(piece);
      if (name) out.push(name);
      else other++;
    }
  }
  return out.length && other <= out.length ? out : null;
}

/** The body font size: the size of most characters. */
export function bodySize(lines: readonly PdfLine[]): number {
  const bySize = new Map<number, number>();
  for (const l of lines) bySize.set(l.size, (bySize.get(l.size) ?? 0) + l.text.length);
  return [...bySize.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 10;
}

/** The font of most body-size characters (PDF.js's font id). */
function bodyFont(lines: readonly PdfLine[], body: number): string {
  const byFont = new Map<string, number>();
  for (const l of lines) if (Math.abs(l.size - body) < 0.6 && l.font) byFont.set(l.font, (byFont.get(l.font) ?? 0) + l.text.length);
  return [...byFont.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

/**
 * The title's lines: the largest text in the top half of page 1, with the lines of its size right under it. Where no
 * text there is larger than the body (classes that set the title at body size in bold capitals), the first body-size
 * line in a font other than the body's.
 */
export function titleLines(layout: PdfLayout, body: number): PdfLine[] {
  const height = layout.pageHeights[0] || DEFAULT_PAGE_HEIGHT;
  const first = layout.lines.filter(
    (l) =>
      l.page === 1 &&
      l.y < height * TITLE_ZONE &&
      /\p{L}{2}/u.test(l.text) &&
      !NUMBERED_HEADING.test(l.text) &&
      !KNOWN_HEADINGS.test(l.text.replace(/[.:]$/, '')) &&
      !/^(?:arxiv:|doi:|https?:)/i.test(l.text),
  );
  const maxSize = Math.max(...first.map((l) => l.size), 0);
  let start = first.findIndex((l) => l.size === maxSize);
  if (maxSize <= body * TITLE_SIZE) {
    const font = bodyFont(layout.lines, body);
    start = first.findIndex(
      (l) => Math.abs(l.size - body) < 0.6 && !!l.font && l.font !== font && l.text.split(/\s+/).length >= 3 && !AFFILIATION.test(l.text),
    );
    if (start < 0) return [];
  }
  const out = [first[start]];
  for (let i = start + 1; i < first.length; i++) {
    const l = first[i];
    const prev = out[out.length - 1];
    if (Math.abs(l.size - prev.size) > TITLE_SAME_SIZE || l.font !== prev.font || l.y - prev.y >= prev.size * TITLE_LINE_GAP) break;
    out.push(l);
  }
  return out;
}

/** Joins title lines: a word broken by a hyphen at a line end is joined, a compound keeps its hyphen. */
function joinTitle(lines: readonly PdfLine[]): string | null {
  let out = '';
  for (const l of lines) {
    const t = l.text.trim();
    out = !out ? t : /\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(t) ? out.slice(0, -1) + t : `${out} ${t}`;
  }
  return clean(out) || null;
}

/**
 * The front matter under the title: page 1's lines from the title down to the abstract, the first heading or the first
 * paragraph of prose, within the top of the page.
 */
function frontLines(layout: PdfLayout, title: readonly PdfLine[], body: number): PdfLine[] {
  const height = layout.pageHeights[0] || DEFAULT_PAGE_HEIGHT;
  const page1 = layout.lines.filter((l) => l.page === 1);
  const startAt = title.length ? page1.indexOf(title[title.length - 1]) + 1 : 0;
  const out: PdfLine[] = [];
  for (const l of page1.slice(startAt)) {
    const t = l.text.trim();
    if (l.y > height * FRONT_ZONE) continue;
    if (/^(?:abstract|a b s t r a c t|summary|keywords|index terms)\b/i.test(t) || NUMBERED_HEADING.test(t) || KNOWN_HEADINGS.test(t))
      break;
    // Prose: a long body-size line of mostly lower-case words.
    const words = t.split(/\s+/);
    const lower = words.filter((w) => /^\p{Ll}/u.test(w)).length;
    if (Math.abs(l.size - body) < 0.6 && words.length >= 10 && lower / words.length > 0.5 && !AFFILIATION.test(t)) break;
    out.push(l);
  }
  return out;
}

/** Author names from the front matter: name lines in the font of the first one; affiliations and notes skipped. */
function authorsOf(front: readonly PdfLine[], body: number): string[] {
  const out: string[] = [];
  let font: { size: number; font?: string } | null = null;
  // A name broken over two lines ('… and Ravi' / 'Shankar'): the dangling first name waits for the next line.
  let dangling = '';
  for (const l of front) {
    if (l.size < body * AUTHOR_MIN_SIZE || l.text.length > AUTHOR_LINE_MAX_CHARS) continue;
    if (font && (Math.abs(l.size - font.size) > 0.6 || (font.font && l.font && l.font !== font.font))) continue;
    // ORCID iDs printed beside names ('Krüger1[0000-0002-1825-0097]') are not addresses.
    const text = l.text.replace(/\[[\d\s\u2212–X-]*\]/g, ' ');
    if (AFFILIATION.test(text)) continue;
    const chunks = (l.chunks ?? l.parts).map((p) => p.replace(/\[[\d\s\u2212–X-]*\]/g, ' '));
    if (dangling && chunks.length) chunks[0] = `${dangling} ${chunks[0]}`;
    const tail = /(?:^|,|\band|&)\s*(\p{Lu}[\p{L}'’-]+)\s*$/u.exec(chunks[chunks.length - 1] ?? '');
    dangling = '';
    const names = namesIn(chunks);
    if (!names) continue;
    font ??= { size: l.size, font: l.font };
    if (tail && !names.some((n) => n.endsWith(tail[1]))) dangling = tail[1];
    for (const n of names) if (!out.includes(n)) out.push(n);
  }
  return out;
}

/** The publication year printed on page 1: a date in the front matter, the arXiv stamp, a copyright or submission line. */
function printedYear(layout: PdfLayout, front: readonly PdfLine[], title: readonly PdfLine[]): number | null {
  const max = new Date().getUTCFullYear() + FUTURE_YEARS;
  const pick = (text: string): number | null => {
    const re = new RegExp(DATED_YEAR.source, 'gim');
    for (const m of text.matchAll(re)) {
      const y = Number(m.slice(1).find(Boolean));
      if (y >= EARLIEST_YEAR && y <= max) return y;
    }
    return null;
  };
  const stamp = /arXiv:\s*\S+\s+\[[^\]]+\]\s+(\d{1,2}\s+\w{3}\s+\d{4})/i.exec(layout.rotated.join(' '));
  const page1 = layout.lines.filter((l) => l.page === 1);
  // The front matter under the title, then the venue line above it ('IEEE TRANSACTIONS …, AUGUST 2021').
  const above = title.length ? page1.filter((l) => l.y < title[0].y) : [];
  return (
    pick(front.map((l) => l.text).join('\n')) ??
    pick(above.map((l) => l.text).join('\n')) ??
    (stamp ? pick(stamp[1]) : null) ??
    pick(
      page1
        .map((l) => composeAccents(l.text))
        .filter((t) =>
          /©|\(c\)|copyright|received|accepted|published|submitted|preprint|proceedings|conference|journal|transactions|\bvol\.|volume|^date:/i.test(
            t,
          ),
        )
        .join('\n'),
    )
  );
}

/** What the info dictionary alone says (title, authors, year from the creation date): the baseline of the bench. */
export function infoMetadata(info: Record<string, unknown>): PaperMeta {
  return {
    title: usableString(info.Title),
    authors: splitAuthors(usableString(info.Author)) ?? [],
    year: yearOfPdfDate(info.CreationDate),
  };
}

function yearOfPdfDate(value: unknown): number | null {
  const m = typeof value === 'string' ? /^(?:D:)?(\d{4})/.exec(value) : null;
  return m ? Number(m[1]) : null;
}

/** 'Ann Smith; Bob Jones', 'A. Smith and B. Jones', 'Smith, Ann and Jones, Bob' as names, when every piece is one. */
function splitAuthors(raw: string | null | string[]): string[] | null {
  if (!raw) return null;
  // 'A; B', 'A, B, and C', 'A and B'; 'Smith, Ann' keeps its comma (the piece after it is no full name).
  const pieces = Array.isArray(raw)
    ? raw
    : raw
        .split(/\s*(?:;|,?\s*\band\s+|&)\s*/)
        .flatMap((p) => (p.split(',').every((q) => /\S\s+\S/.test(q.trim())) ? p.split(',') : [p]))
        .map((n) => n.trim());
  const names = pieces.filter(Boolean).map((n) => {
    // 'Smith, Ann' → 'Ann Smith'
    const m = /^([^,]+),\s*([^,]+)$/.exec(n);
    return clean(m ? `${m[2]} ${m[1]}` : n);
  });
  return names.length && names.every((n) => asName(n) !== null) ? names : null;
}

/** Whether the page prints a title (its normalised words appear in the page's text). */
function printed(pageText: string, value: string): boolean {
  const v = normaliseTitle(value);
  return v.length > 0 && pageText.includes(v);
}

/** The metadata of a laid-out PDF, each field from the best source that has it. */
export function pdfMetadata(layout: PdfLayout, body = bodySize(layout.lines), title = titleLines(layout, body)): PdfMetadata {
  const info = layout.info;
  const xmp = layout.xmp ?? {};
  const from: PdfMetadata['from'] = {};
  const page1 = layout.lines.filter((l) => l.page === 1);
  const pageText = ` ${normaliseTitle(composeAccents(page1.map((l) => l.text).join(' ')))} `;
  const rawText = `${page1.map((l) => composeAccents(l.text)).join('\n')}\n${layout.rotated.join(' ')}`;

  // Title: the embedded one when the page prints it, else the page's, else the embedded one.
  const embeddedTitle = (() => {
    const x = usableString(xmp['dc:title']);
    if (x) return { value: x, origin: 'xmp' as const };
    const i = usableString(info.Title);
    return i ? { value: i, origin: 'info' as const } : null;
  })();
  const layoutTitle = joinTitle(title);
  let titleOut: string | null = null;
  if (embeddedTitle && printed(pageText, embeddedTitle.value)) [titleOut, from.title] = [embeddedTitle.value, embeddedTitle.origin];
  else if (layoutTitle) [titleOut, from.title] = [layoutTitle, 'page'];
  else if (embeddedTitle) [titleOut, from.title] = [embeddedTitle.value, embeddedTitle.origin];

  // Authors: the embedded list when the page prints each surname, else the author block, else the embedded list.
  const front = frontLines(layout, title, body);
  const embeddedAuthors = (() => {
    const x = splitAuthors(Array.isArray(xmp['dc:creator']) ? (xmp['dc:creator'] as string[]) : usableString(xmp['dc:creator']));
    if (x) return { value: x, origin: 'xmp' as const };
    const i = splitAuthors(usableString(info.Author));
    return i ? { value: i, origin: 'info' as const } : null;
  })();
  const surnamePrinted = (n: string) => printed(pageText, n.split(' ').pop() ?? n);
  const pageAuthors = authorsOf(front, body);
  let authors: string[] = [];
  if (embeddedAuthors && embeddedAuthors.value.every(surnamePrinted))
    [authors, from.authors] = [embeddedAuthors.value, embeddedAuthors.origin];
  else if (pageAuthors.length) [authors, from.authors] = [pageAuthors, 'page'];
  else if (embeddedAuthors) [authors, from.authors] = [embeddedAuthors.value, embeddedAuthors.origin];

  // Year: printed on the page; else an XMP publication date; else the creation date (often only when it was typeset).
  let year = printedYear(layout, front, title);
  if (year) from.year = 'page';
  else {
    const xmpYear = yearOfPdfDate(usableString(xmp['prism:publicationdate']) ?? usableString(xmp['dc:date']) ?? '');
    year = xmpYear ?? yearOfPdfDate(info.CreationDate);
    if (year) from.year = xmpYear ? 'xmp' : 'info';
  }
  if (year && year > new Date().getUTCFullYear() + FUTURE_YEARS) year = null;

  // DOI and arXiv id: the XMP's, else the page's (a DOI line, the arXiv stamp in the margin).
  const xmpDoi = normaliseDoi(usableString(xmp['prism:doi']) ?? usableString(xmp['dc:identifier']));
  const pageDoi = normaliseDoi(/\b(?:doi:?\s*|https?:\/\/(?:dx\.)?doi\.org\/)?(10\.\d{4,9}\/[^\s]+)/i.exec(rawText)?.[1] ?? null);
  const doi = xmpDoi ?? pageDoi ?? normaliseDoi(usableString(info.Subject) ?? usableString(info.Keywords));
  if (doi) from.doi = xmpDoi ? 'xmp' : pageDoi ? 'page' : 'info';
  const pageArxiv = normaliseArxivId(/arXiv:\s*(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?\/\d{7})/i.exec(rawText)?.[1] ?? null);
  const arxivId = pageArxiv ?? normaliseArxivId(usableString(xmp['dc:identifier']));
  if (arxivId) from.arxivId = pageArxiv ? 'page' : 'xmp';

  return { meta: { title: titleOut, authors, year, doi, arxivId }, from };
}
