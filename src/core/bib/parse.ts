// BibTeX/BibLaTeX: parsed with @retorquere/bibtex-parser (the parser behind Better BibTeX). Entries become BibRecords;
// bib-index.ts looks them up by key, DOI, arXiv id and normalised title.
import type { Creator, Entry, Library } from '@retorquere/bibtex-parser';
import type { PaperFields } from '../paper/fields.js';
import { normaliseArxivId, normaliseDoi, parseYear } from '../paper/ids.js';
import { gluedLetter } from '../text/latex-inline.js';

/** One BibTeX entry, reduced to what papers need. */
export interface BibRecord extends PaperFields {
  key: string;
  type: string;
  /** The entry's source text as written in the file. */
  bibtex: string;
  /** Where it came from. */
  file: string | null;
}

export interface BibParseResult {
  records: BibRecord[];
  /** Malformed entries, one by one (the rest of the file is still read). */
  errors: Array<{ file: string; reason: string }>;
  /**
   * Entries kept as BibTeX keeps them: an undefined `@string` macro stays as its name, an unknown LaTeX macro
   * as written. Not failures.
   */
  warnings: Array<{ file: string; reason: string }>;
}

type BibModule = typeof import('@retorquere/bibtex-parser');
let modulePromise: Promise<BibModule> | undefined;
/** The parser ships as ESM (its CommonJS build requires an ESM-only dependency): load it with import(). */
export function loadBibtexParser(): Promise<BibModule> {
  modulePromise ??= import('@retorquere/bibtex-parser');
  return modulePromise;
}

const BASE_OPTIONS = { sentenceCase: false as const, caseProtection: false as const };

/**
 * Commands the parser does not know, written as authors mean them: `\\ ` (control space, `J.\\ Phys.`) is a space, and
 * a text letter glued to the rest of a word (`Wroc\\law`) is that letter (`Wroc{\\l}aw`). The source is rewritten
 * before parsing because only here is the letter before the command in view.
 */
export function normaliseBibMacros(text: string): string {
  return text
    .replace(/(?<!\\)((?:\\\\)*)\\(?=[ \t\r\n])/g, '$1{}')
    .replace(/(?<=(?:^|[^\\A-Za-z])[A-Za-z]+)\\([A-Za-z]+)/g, (m, name: string) => {
      const letter = gluedLetter(name);
      return letter ? `{\\${letter}}${name.slice(letter.length)}` : m;
    });
}

/** Parser options for one parse: any command it does not know is kept as written and named in `unknown`. */
function parseOptions(unknown: string[]): ParseOptions {
  return {
    ...BASE_OPTIONS,
    unsupported: (node, tex) => {
      unknown.push(node.type === 'macro' ? `\\${node.content}` : tex.slice(0, 40));
      return tex;
    },
  };
}
type ParseOptions = NonNullable<Parameters<BibModule['parse']>[1]>;

/**
 * Strip the HTML-ish markup the parser puts in for \emph, \textbf, case protection …, and collapse spaces; accents
 * composed (`\"u` comes out as u + a combining mark), so names and titles match text from other sources.
 */
export function stripMarkup(value: string): string {
  return value
    .normalize('NFC')
    .replace(/<\/?(?:i|b|em|strong|sup|sub|sc|span|nc|ncx|code|pre|br)\b[^>]*>/gi, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function creatorName(c: Creator): string {
  if (c.name) return c.name;
  return [c.firstName, c.prefix, c.lastName, c.suffix].filter(Boolean).join(' ');
}

function field(entry: Entry, name: string): string | null {
  const v = (entry.fields as Record<string, unknown>)[name];
  if (typeof v === 'string') return stripMarkup(v) || null;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return stripMarkup(v.join(', ')) || null;
  return null;
}

export function entryToRecord(entry: Entry, file: string | null): BibRecord {
  const creators = entry.fields.author ?? entry.fields.editor ?? [];
  const eprintType = (field(entry, 'archiveprefix') ?? field(entry, 'eprinttype') ?? '').toLowerCase();
  const url = field(entry, 'url');
  const eprint = field(entry, 'eprint');
  const arxivId =
    normaliseArxivId(eprintType === 'arxiv' ? eprint : null) ??
    (url && /arxiv\.org/i.test(url) ? normaliseArxivId(url) : null) ??
    (field(entry, 'journal')?.match(/arxiv/i) ? normaliseArxivId(field(entry, 'journal')!.replace(/^.*?arxiv:?\s*/i, '')) : null);
  return {
    key: entry.key,
    type: entry.type.toLowerCase(),
    title: field(entry, 'title'),
    authors: creators.map(creatorName).map(stripMarkup).filter(Boolean),
    year: parseYear(field(entry, 'year') ?? field(entry, 'date')),
    venue: field(entry, 'journal') ?? field(entry, 'journaltitle') ?? field(entry, 'booktitle') ?? field(entry, 'series') ?? null,
    doi: normaliseDoi(field(entry, 'doi')) ?? (url && /doi\.org/i.test(url) ? normaliseDoi(url) : null),
    arxivId,
    url,
    abstract: field(entry, 'abstract'),
    bibtex: entry.input.trim(),
    file,
  };
}

/** Split a .bib text into its `@type{…}` chunks (an `@` that starts a line and opens an entry). */
function chunks(text: string): string[] {
  const starts: number[] = [];
  const re = /^[ \t]*@[a-zA-Z][\w:.-]*[ \t]*[{(]/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) starts.push(m.index);
  return starts.map((s, i) => text.slice(s, starts[i + 1] ?? text.length));
}

function describe(e: { error: string; input?: string }): string {
  const head = (e.input ?? '').trim().split('\n')[0].slice(0, 80);
  return head ? `${e.error} (in ${JSON.stringify(head)})` : e.error;
}

type Parsed = Pick<Library, 'entries' | 'errors'> & { unknown: string[] };
/**
 * Parsed entries by (@string definitions, entry text). The parser costs milliseconds per entry, and the same .bib is
 * read again and again (every Cite reads the project's .bib; a re-run re-reads the folder's): unchanged entries
 * are parsed once.
 */
const cache = new Map<string, Parsed>();
const CACHE_LIMIT = 20_000;

function parseChunk(parse: BibModule['parse'], chunk: string, strings: string): Parsed {
  const key = `${strings.length}:${strings}\u0000${chunk}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let out: Parsed;
  const unknown: string[] = [];
  try {
    const options = parseOptions(unknown);
    const lib = parse(normaliseBibMacros(chunk), strings ? { ...options, strings } : options);
    out = { entries: lib.entries, errors: lib.errors, unknown };
  } catch (err) {
    out = { entries: [], errors: [{ error: err instanceof Error ? err.message : String(err), input: chunk }], unknown };
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, out);
  return out;
}

/** Parse a .bib text. Never throws for bad input: malformed entries are reported one by one. */
export async function parseBibtex(text: string, file: string | null = null): Promise<BibParseResult> {
  const { parse } = await loadBibtexParser();
  const name = file ?? '<bibtex>';
  const errors: BibParseResult['errors'] = [];
  const parts = chunks(text);
  let libs: Parsed[];
  if (!parts.length || parts.some((p) => /^\s*@preamble\b/i.test(p) || (!/^\s*@comment\b/i.test(p) && /\bcrossref\s*=/i.test(p)))) {
    // Crossref inheritance and @preamble macros need the whole file at once.
    const unknown: string[] = [];
    try {
      const lib = parse(normaliseBibMacros(text), parseOptions(unknown));
      libs = [{ entries: lib.entries, errors: lib.errors, unknown }];
    } catch (err) {
      libs = [{ entries: [], errors: [{ error: err instanceof Error ? err.message : String(err) }], unknown }];
    }
  } else {
    // Entry by entry (each cached), with the file's @string definitions.
    const strings = parts.filter((p) => /^\s*@string\b/i.test(p)).join('\n');
    libs = parts.filter((p) => !/^\s*@(string|preamble|comment)\b/i.test(p)).map((p) => parseChunk(parse, p, strings));
  }
  const records: BibRecord[] = [];
  const warnings: BibParseResult['warnings'] = [];
  const unknown = new Map<string, number>();
  for (const lib of libs) {
    for (const m of lib.unknown) unknown.set(m, (unknown.get(m) ?? 0) + 1);
    for (const e of lib.errors) {
      const warning = asWarning(e.error);
      if (warning) warnings.push({ file: name, reason: warning });
      else errors.push({ file: name, reason: describe(e) });
    }
    for (const entry of lib.entries) {
      try {
        records.push(entryToRecord(entry, file));
      } catch (err) {
        errors.push({ file: name, reason: `entry ${entry.key || '(no key)'}: ${err instanceof Error ? err.message : String(err)}` });
      }
    }
  }
  if (unknown.size) {
    const list = [...unknown].map(([m, n]) => (n > 1 ? `${m} (×${n})` : m)).join(', ');
    warnings.push({ file: name, reason: `unknown LaTeX macro${unknown.size > 1 ? 's' : ''} kept as written: ${list}` });
  }
  return { records, errors, warnings };
}

/**
 * The parser's complaints that leave the entry whole: an `@string` macro defined in another .bib (IEEE_J_PROC,
 * AIJ) is kept as its name, as BibTeX does; an unknown LaTeX macro is kept as written. Null for real errors.
 */
function asWarning(error: string): string | null {
  const macro = /^Unresolved @string reference "([^"]+)"/.exec(error);
  if (macro) return `@string macro ${macro[1]} is not defined here: kept as the text "${macro[1]}"`;
  return null;
}
