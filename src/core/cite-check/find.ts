// Where a document cites: every LaTeX citation command (the configured set, starred forms too) and every Pandoc
// citation (`[@a, p. 3; @b]`, in-text `@a`), each with its keys, their ranges, an existing locator and the citing
// sentence. Sentences come from the text engine (text/), so comments, math and verbatim are skipped exactly as
// everywhere else; a project's `\input`/`\include` files are found by ingest's LaTeX project reader.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { bibFilesNamedBy } from '../bib/cite.js';
import { expandLatexProject } from '../ingest/latex.js';
import { TextModel } from '../text/index.js';
import { lineStarts, positionAt } from '../text/lines.js';
import {
  DEFAULT_CITE_COMMANDS,
  type CitationSite,
  type CiteFormat,
  type FindOptions,
  type ProjectCitations,
  type TextRange,
} from './types.js';

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Pandoc's citation key: starts with a letter, digit or _, inner punctuation allowed, ends on a letter or digit. */
const PANDOC_KEY = String.raw`[\p{L}\p{N}_](?:[\p{L}\p{N}_:.#$%&+?<>~/-]*[\p{L}\p{N}_])?`;

function latexSites(
  source: string,
  offset: number,
  commands: readonly string[],
): Omit<CitationSite, 'sentence' | 'line' | 'character' | 'file'>[] {
  const names = [...new Set(commands)]
    .sort((a, b) => b.length - a.length)
    .map(escapeRe)
    .join('|');
  const re = new RegExp(String.raw`\\(${names})\*?(?![a-zA-Z])\s*((?:\[[^\]]*\]\s*){0,2})\{([^}]*)\}`, 'g');
  const out: Omit<CitationSite, 'sentence' | 'line' | 'character' | 'file'>[] = [];
  for (const m of source.matchAll(re)) {
    const start = offset + m.index;
    const braceAt = m.index + m[0].lastIndexOf('{');
    const opts = [...m[2].matchAll(/\[([^\]]*)\]/g)].map((o) => o[1]);
    const keyRanges: CitationSite['keyRanges'] = [];
    let at = braceAt + 1;
    for (const part of m[3].split(',')) {
      const key = part.trim();
      if (key) {
        const k = at + part.indexOf(key);
        keyRanges.push({ key, start: offset + k, end: offset + k + key.length });
      }
      at += part.length + 1;
    }
    if (!keyRanges.length) continue;
    const nameEnd = m.index + 1 + m[1].length + (source[m.index + 1 + m[1].length] === '*' ? 1 : 0);
    const locator = opts.length ? opts[opts.length - 1].trim() || null : null;
    out.push({
      command: m[1],
      keys: keyRanges.map((k) => k.key),
      range: { start, end: start + m[0].length },
      keyRanges,
      locator,
      locatorInsertAt: opts.length ? null : offset + nameEnd,
    });
  }
  return out;
}

function markdownSites(source: string, offset: number): Omit<CitationSite, 'sentence' | 'line' | 'character' | 'file'>[] {
  const out: Omit<CitationSite, 'sentence' | 'line' | 'character' | 'file'>[] = [];
  const taken: TextRange[] = [];
  // Bracketed groups: [see @a, p. 3; @b]
  for (const m of source.matchAll(/\[([^[\]]*@[^[\]]*)\](?!\()/g)) {
    const inner = m[1];
    const keyRanges: CitationSite['keyRanges'] = [];
    let locator: string | null = null;
    let locatorInsertAt: number | null = null;
    let at = m.index + 1;
    for (const item of inner.split(';')) {
      const k = new RegExp(String.raw`(^|[\s-])@(${PANDOC_KEY})`, 'u').exec(item);
      if (k) {
        const kStart = at + k.index + k[1].length + 1;
        keyRanges.push({ key: k[2], start: offset + kStart, end: offset + kStart + k[2].length });
        if (keyRanges.length === 1) {
          const rest = item.slice(k.index + k[0].length);
          const loc = /^\s*,\s*(.+?)\s*$/.exec(rest);
          locator = loc ? loc[1] : null;
          locatorInsertAt = loc ? null : offset + kStart + k[2].length;
        }
      }
      at += item.length + 1;
    }
    if (!keyRanges.length) continue;
    const range = { start: offset + m.index, end: offset + m.index + m[0].length };
    taken.push(range);
    out.push({ command: 'markdown', keys: keyRanges.map((k) => k.key), range, keyRanges, locator, locatorInsertAt });
  }
  // In-text citations outside brackets: @a says … (not an e-mail address: no word character before the @).
  for (const m of source.matchAll(new RegExp(String.raw`(?<![\p{L}\p{N}_@\\])-?@(${PANDOC_KEY})`, 'gu'))) {
    const start = offset + m.index;
    if (taken.some((r) => start >= r.start && start < r.end)) continue;
    const kStart = start + m[0].indexOf('@') + 1;
    const end = kStart + m[1].length;
    out.push({
      command: 'markdown',
      keys: [m[1]],
      range: { start, end },
      keyRanges: [{ key: m[1], start: kStart, end }],
      locator: null,
      locatorInsertAt: null,
    });
  }
  return out.sort((a, b) => a.range.start - b.range.start);
}

/** Every citation of a LaTeX or Markdown text, in order, with its sentence (citations outside prose are skipped). */
export function findCitations(text: string, format: CiteFormat, options: FindOptions = {}): CitationSite[] {
  const commands = options.commands?.length ? options.commands : DEFAULT_CITE_COMMANDS;
  const starts = lineStarts(text);
  const out: CitationSite[] = [];
  for (const s of new TextModel(text, format).sentences()) {
    const found = format === 'latex' ? latexSites(s.text, s.start, commands) : markdownSites(s.text, s.start);
    for (const site of found) {
      out.push({
        ...site,
        ...positionAt(starts, site.range.start),
        sentence: { text: s.clean, range: { start: s.start, end: s.end } },
        file: options.file ?? null,
      });
    }
  }
  return out;
}

/** The format a file's extension says (.tex/.ltx LaTeX, else Markdown). */
export function formatOfPath(path: string): CiteFormat {
  return /^\.(tex|ltx)$/i.test(extname(path)) ? 'latex' : 'markdown';
}

/**
 * A paper's citations across its files: a LaTeX main file with every `\input`/`\include` file it reaches (each
 * file's sites in its own offsets), or one Markdown file; and the .bib files any of them names.
 */
export function findProjectCitations(mainPath: string, options: { commands?: readonly string[] } = {}): ProjectCitations {
  const main = resolve(mainPath);
  const format = formatOfPath(main);
  const warnings: string[] = [];
  let files = [main];
  if (format === 'latex') {
    const expanded = expandLatexProject(main);
    files = expanded.files;
    for (const w of [...expanded.errors, ...expanded.warnings]) warnings.push(`${w.file}: ${w.reason}`);
  }
  const sites: CitationSite[] = [];
  const bibFiles: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    sites.push(...findCitations(text, format, { commands: options.commands, file }));
    for (const name of bibFilesNamedBy(text, format)) {
      const candidates = [resolve(dirname(file), name), resolve(dirname(main), name)];
      const hit = candidates.find((c) => existsSync(c));
      if (hit) {
        if (!bibFiles.includes(hit)) bibFiles.push(hit);
      } else warnings.push(`${file}: bibliography ${name} not found`);
    }
  }
  return { files, sites, bibFiles, warnings };
}
