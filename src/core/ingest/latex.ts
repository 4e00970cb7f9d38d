// LaTeX projects: a main file with \input / \include / \subfile / \import resolved relative to it (recursively),
// read as one document by the text engine. Cycles and missing files are reported, not fatal.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { TextModel } from '../text/index.js';
import { lineStarts, positionAt } from '../text/lines.js';
import { latexCleanText } from '../text/latex-inline.js';
import { assembleTextModel, latexNumbering } from './outline.js';
import { bracedAt, latexElements } from './latex-elements.js';
import { buildPaper, PaperAssembler, paperId } from './paper.js';
import { formatBibtexEntry, makeCitationKey } from '../bib/format.js';
import { bibitemEntries } from './references.js';
import type { ParsedPaper, ReadError, ReadOptions, ReadResult } from './types.js';
import type { PaperMeta } from '../paper/fields.js';
import { parseYear } from '../paper/ids.js';
import type { MadeUpFrom } from '../paper/made-up-title.js';

const INCLUDE =
  /\\(input|include|subfile|import|subimport|inputfrom|subinputfrom|includefrom|subincludefrom)\*?\s*(?:\{([^{}]*)\}\s*(?:\{([^{}]*)\})?|\s([^\s{}%\\]+))/g;
const TWO_ARGS = new Set(['import', 'subimport', 'inputfrom', 'subinputfrom', 'includefrom', 'subincludefrom']);

/** The source with comments blanked out (same length, so offsets still match). */
export function blankComments(text: string): string {
  return text.replace(/(^|[^\\])((?:\\\\)*)%[^\n]*/g, (m, a: string, b: string) => a + b + ' '.repeat(m.length - a.length - b.length));
}

/** True when the text is a main LaTeX file (has \documentclass or \begin{document} outside comments). */
export function isLatexMain(text: string): boolean {
  const t = blankComments(text);
  if (/\\documentclass\s*(?:\[[^\]]*\])?\s*\{(?:subfiles|standalone)\}/.test(t)) return false;
  return /\\documentclass\b/.test(t) || /\\begin\s*\{document\}/.test(t);
}

export interface ExpandedLatex {
  text: string;
  /** Every file read, in include order (the main file first). */
  files: string[];
  /** Files that could not be read (content lost). */
  errors: ReadError[];
  /** Includes left out that lose nothing else: a missing file (a generated `authors.tex`), a cycle, deep nesting. */
  warnings: ReadError[];
  /** sha256 over the files' paths (relative to the main file) and bytes. */
  contentHash: string;
  /** Where each stretch of `text` comes from, in order: [start, end) of `text` is `file` from `fileOffset` on. */
  pieces: SourcePiece[];
}

/** A stretch of the expanded text copied unchanged from one file. */
export interface SourcePiece {
  start: number;
  end: number;
  file: string;
  fileOffset: number;
}

function resolveTex(name: string, dirs: string[]): string | null {
  const n = name.trim().replace(/^"|"$/g, '');
  if (!n) return null;
  for (const d of dirs) {
    const p = resolve(d, n);
    const candidates = extname(n) === '.tex' || extname(n) === '.ltx' ? [p] : [p + '.tex', p];
    for (const c of candidates) {
      try {
        if (statSync(c).isFile()) return c;
      } catch {
        /* not there */
      }
    }
  }
  return null;
}

/**
 * The body of a standalone / subfiles document (between \begin{document} and \end{document}), else the text; with
 * the offset in the file where it starts.
 */
function bodyOf(text: string): { text: string; offset: number } {
  const t = blankComments(text);
  const b = /\\begin\s*\{document\}/.exec(t);
  if (!b || !/\\documentclass/.test(t.slice(0, b.index))) return { text, offset: 0 };
  const e = t.indexOf('\\end{document}', b.index);
  const offset = b.index + b[0].length;
  return { text: text.slice(offset, e < 0 ? text.length : e), offset };
}

/** Expand the includes of a main file into one LaTeX text. */
export function expandLatexProject(mainPath: string, mainText?: string): ExpandedLatex {
  const root = dirname(resolve(mainPath));
  const files: string[] = [];
  const errors: ReadError[] = [];
  const warnings: ReadError[] = [];
  const hash = createHash('sha256');
  const stack: string[] = [];
  const pieces: SourcePiece[] = [];
  let out = '';
  // Copies [a, b) of a file's text (which starts at `offset` in the file) to the output, and remembers where it came from.
  const copy = (file: string, text: string, offset: number, a: number, b: number) => {
    if (b <= a) return;
    pieces.push({ start: out.length, end: out.length + (b - a), file, fileOffset: offset + a });
    out += text.slice(a, b);
  };

  const expand = (path: string, text: string, offset: number, base: string, depth: number): void => {
    files.push(path);
    hash
      .update(path.startsWith(root) ? path.slice(root.length) : basename(path))
      .update('\0')
      .update(text)
      .update('\0');
    stack.push(path);
    const blank = blankComments(text);
    let last = 0;
    const re = new RegExp(INCLUDE.source, 'g');
    for (let m = re.exec(blank); m; m = re.exec(blank)) {
      const cmd = m[1];
      let dir = base;
      let name: string;
      if (TWO_ARGS.has(cmd)) {
        if (m[3] === undefined) continue;
        dir = cmd.startsWith('sub') ? resolve(base, m[2]) : resolve(root, m[2]);
        name = m[3];
      } else {
        name = m[2] ?? m[4] ?? '';
      }
      // \input of a non-TeX file (a .pgf figure, a .bbl …) is not prose: leave the command to the text engine.
      const ext = extname(name);
      if (ext && ext !== '.tex' && ext !== '.ltx' && !/^\.\d/.test(ext)) continue;
      const start = m.index;
      const end = m.index + m[0].length;
      const target = resolveTex(name, TWO_ARGS.has(cmd) ? [dir] : [base, root, dirname(path)]);
      copy(path, text, offset, last, start);
      last = end;
      // A missing file (often generated by the build, e.g. authors.tex) is named and skipped: the rest is the paper.
      if (!target) {
        warnings.push({ file: path, reason: `\\${cmd}{${name}}: file not found (${name} left out; the rest is indexed)` });
        continue;
      }
      if (stack.includes(target)) {
        warnings.push({
          file: path,
          reason: `\\${cmd}{${name}}: include cycle (${[...stack, target].map((f) => basename(f)).join(' → ')})`,
        });
        continue;
      }
      if (depth >= 30) {
        warnings.push({ file: path, reason: `\\${cmd}{${name}}: includes nested too deeply` });
        continue;
      }
      let sub: string;
      try {
        sub = readFileSync(target, 'utf8');
      } catch (e) {
        errors.push({ file: path, reason: `\\${cmd}{${name}}: ${e instanceof Error ? e.message : String(e)}` });
        continue;
      }
      if (!sub) continue;
      const body = bodyOf(sub);
      out += '\n';
      expand(target, body.text, body.offset, TWO_ARGS.has(cmd) ? dir : base, depth + 1);
      out += '\n';
    }
    copy(path, text, offset, last, text.length);
    stack.pop();
  };

  const text = mainText ?? readFileSync(mainPath, 'utf8');
  expand(resolve(mainPath), text, 0, root, 0);
  return { text: out, files, errors, warnings, contentHash: hash.digest('hex'), pieces };
}

/** The file and 1-based line that offset `at` of an expanded project comes from (null for text the expansion added). */
export function sourceLineAt(
  expanded: Pick<ExpandedLatex, 'pieces'>,
  at: number,
  lineStarts: LineIndex,
): { file: string; line: number } | null {
  const { pieces } = expanded;
  let lo = 0;
  let hi = pieces.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const p = pieces[mid];
    if (at < p.start) hi = mid - 1;
    else if (at >= p.end) lo = mid + 1;
    else return { file: p.file, line: lineStarts.lineOf(p.file, p.fileOffset + (at - p.start)) };
  }
  return null;
}

/** Line numbers of offsets in the project's files (each file read once). */
export class LineIndex {
  private readonly starts = new Map<string, number[]>();
  constructor(private readonly read: (file: string) => string) {}

  lineOf(file: string, offset: number): number {
    let starts = this.starts.get(file);
    if (!starts) {
      starts = lineStarts(this.read(file));
      this.starts.set(file, starts);
    }
    return positionAt(starts, offset).line + 1;
  }
}

function commandArgs(text: string, name: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`\\\\${name}\\*?\\s*(?:\\[[^\\]]*\\]\\s*)*(?=\\{)`, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const arg = bracedAt(text, m.index + m[0].length);
    if (arg) out.push(arg[0]);
  }
  return out;
}

/** Commands in an author block that carry no name: notes, affiliations, addresses, marks, memberships, ids. */
const AUTHOR_NOTES =
  /\\(thanks|footnote|inst|affil|affiliation|address|email|ead|orcid|orcidID|orcidlink|textsuperscript|footnotemark|IEEEauthorrefmark|IEEEauthorblockA|IEEEmembership|fnref|corref|cormark|tnoteref|titlenote|authornote)\b\s*(\[[^\]]*\]\s*)?(?=\{)/g;

/** The text with each AUTHOR_NOTES command and its (nested) argument removed. */
function dropAuthorNotes(text: string): string {
  let out = '';
  let from = 0;
  for (const m of text.matchAll(AUTHOR_NOTES)) {
    if (m.index! < from) continue;
    const arg = bracedAt(text, m.index! + m[0].length);
    if (!arg) continue;
    out += text.slice(from, m.index);
    from = arg[1];
  }
  return out + text.slice(from);
}

/** Author names from \author{…} (split at \and, first line of each, \thanks and affiliation marks removed). */
export function latexAuthors(text: string): string[] {
  const out: string[] = [];
  for (const arg of commandArgs(text, 'author')) {
    for (const part of dropAuthorNotes(arg).split(/\\and\b|\\And\b|\\AND\b/)) {
      let first = part.split(/\\\\|\\newline\b/)[0];
      first = first.replace(/\$[^$]*\$/g, '').replace(/\^\{[^}]*\}|\^\S/g, '');
      const names = latexCleanText(first)
        .replace(/\s+/g, ' ')
        // 'A, B, and C' / 'A and B': one name each.
        .split(/\s*,\s*(?:and\s+)?(?=\S+\s+\S)|\s+and\s+/)
        .map((n) => n.replace(/[\d*†‡§,;]+\s*$/g, '').trim())
        .filter((n) => n && n.length < 80);
      out.push(...names);
    }
  }
  return out;
}

/** Metadata from the LaTeX source (title via the text engine). */
export function latexMeta(text: string, model: TextModel): PaperMeta {
  const blank = blankComments(text);
  const date = commandArgs(blank, 'date')[0];
  const doi = /\\(?:doi|DOI)\s*\{([^}]+)\}/.exec(blank)?.[1] ?? null;
  const arxiv = /\\(?:arxiv|arXiv)\s*\{([^}]+)\}/.exec(blank)?.[1] ?? null;
  const venue = commandArgs(blank, 'journal')[0] ?? commandArgs(blank, 'conference')[0] ?? commandArgs(blank, 'booktitle')[0];
  return {
    title: model.title(),
    authors: latexAuthors(blank),
    year: date ? parseYear(latexCleanText(date)) : null,
    doi,
    arxivId: arxiv,
    venue: venue ? latexCleanText(venue) || null : null,
  };
}

/** Read a LaTeX project from its main file. */
export function readLatexProject(mainPath: string, options: ReadOptions = {}, mainText?: string): ReadResult {
  const expanded = expandLatexProject(mainPath, mainText);
  const model = new TextModel(expanded.text, 'latex');
  const asm = new PaperAssembler();
  const blank = blankComments(expanded.text);
  const bodyStart = Math.max(0, blank.search(/\\begin\s*\{document\}/));
  const elements = latexElements(blank.slice(bodyStart)).map(({ start, ...e }) => ({
    start: start + bodyStart,
    element: { ...e, page: null, bbox: null },
  }));
  const main = resolve(mainPath);
  const lines = new LineIndex((f) => (f === main && mainText !== undefined ? mainText : readFileSync(f, 'utf8')));
  // Each sentence remembers the file (relative to the main file's folder) and line it starts on, for Open source.
  const root = dirname(main);
  const locate = (start: number) => {
    const at = sourceLineAt(expanded, start, lines);
    return at ? { sourceFile: relative(root, at.file) || basename(at.file), sourceLine: at.line } : {};
  };
  assembleTextModel(model, asm, latexNumbering(expanded.text), elements, locate);
  const meta = latexMeta(expanded.text, model);
  // A thebibliography environment lists the cited works itself; otherwise \cite keys are looked up in the .bib.
  const items = bibitemEntries(blank);
  if (items.length) asm.references = items;
  const paper = buildPaper(meta, asm.finish(), { path: mainPath, contentHash: expanded.contentHash }, options.bib, asm.abstractParts);
  // A document without \title (a supplement, a chapter file, a title in a custom macro) that no .bib entry names is
  // shown by its first heading, else its file name, marked as a display name: the same work's PDF or .bib record
  // gives it its real title instead of being kept apart by "Introduction" (identity.ts).
  if (!paper.title) {
    const heading = model.headings()[0]?.title.trim();
    const name = heading || basename(mainPath).replace(/\.(tex|ltx)$/i, '');
    const titleFallback: MadeUpFrom = heading ? 'its first heading' : 'its file name';
    Object.assign(paper, { title: name, titleFallback, id: paperId({ ...paper, title: name }, paper.sentences) });
    if (!paper.ownKey) paper.citationKey = makeCitationKey({ ...paper, citationKey: null }, new Set());
    paper.bibtex = paper.ownKey && paper.bibtex ? paper.bibtex : formatBibtexEntry(paper, paper.citationKey!);
  }
  return { papers: [paper], errors: expanded.errors, warnings: expanded.warnings };
}

/**
 * The main file a non-main .tex belongs to: the `% !TEX root = …` magic comment, else a main .tex in the same folder
 * or its parent whose include tree reaches this file. null when there is none.
 */
export function findLatexRoot(path: string, text?: string): string | null {
  const abs = resolve(path);
  const src = text ?? readFileSync(abs, 'utf8');
  const magic = /^\s*%\s*!\s*TEX\s+root\s*=\s*(.+?)\s*$/im.exec(src) ?? /\\documentclass\s*\[([^\]]+\.tex)\]\s*\{subfiles\}/.exec(src);
  if (magic) {
    const p = resolve(dirname(abs), magic[1]);
    if (existsSync(p)) return p;
  }
  for (const dir of [dirname(abs), dirname(dirname(abs))]) {
    let entries: string[];
    try {
      entries = readdirSync(dir).filter((f) => f.endsWith('.tex'));
    } catch {
      continue;
    }
    for (const f of entries) {
      const p = join(dir, f);
      if (p === abs) continue;
      let t: string;
      try {
        t = readFileSync(p, 'utf8');
      } catch {
        continue;
      }
      if (!isLatexMain(t)) continue;
      try {
        if (expandLatexProject(p, t).files.includes(abs)) return p;
      } catch {
        /* unreadable project */
      }
    }
  }
  return null;
}

/**
 * Of a list of files, those that are papers of their own: every non-.tex file, and the .tex files that are main files
 * and not included by another listed main file.
 */
export function selectPaperFiles(paths: string[]): string[] {
  const included = new Set<string>();
  const mains = new Set<string>();
  for (const p of paths) {
    if (!p.endsWith('.tex')) continue;
    let t: string;
    try {
      t = readFileSync(p, 'utf8');
    } catch {
      mains.add(resolve(p));
      continue;
    }
    if (!isLatexMain(t)) continue; // kept unless a main includes it: its reader reports what it is (decode.ts, readPaperFile)
    mains.add(resolve(p));
    try {
      for (const f of expandLatexProject(p, t).files.slice(1)) included.add(f);
    } catch {
      /* reported when read */
    }
  }
  // A .tex no main file includes is read on its own: a main file, a part of a project elsewhere (skipped), or a file
  // that is not LaTeX (random bytes, a PDF renamed .tex, UTF-16): reported, never dropped silently.
  return paths.filter((p) => !p.endsWith('.tex') || !included.has(resolve(p)));
}

/**
 * Where a corpus sentence of a LaTeX project is now: the project is read again from its main file (so the line is
 * that of the files as they are, edits since indexing included) and the sentence with the same clean text gives
 * its file (absolute; an `\input` file or the main file) and 0-based line. Null when no sentence matches.
 */
export function latexSentenceSource(mainPath: string, sentence: string): { file: string; line: number } | null {
  const want = sentence.replace(/\s+/g, ' ').trim();
  if (!want) return null;
  let paper: ParsedPaper | undefined;
  try {
    paper = readLatexProject(mainPath).papers[0];
  } catch {
    return null;
  }
  const root = dirname(resolve(mainPath));
  const hit = paper?.sentences.find((s) => s.text === want) ?? paper?.sentences.find((s) => s.text.startsWith(want.slice(0, 60)));
  if (!hit?.sourceFile || !hit.sourceLine) return null;
  return { file: resolve(root, hit.sourceFile), line: hit.sourceLine - 1 };
}
