// Readers: every source format to the same paper model (types.ts). readPaperFile dispatches by extension and by
// sniffing the content (%PDF, <html, \documentclass); it never throws for a bad file: problems are in `errors`.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { readBibtexText } from './bib.js';
import { readArxivHtmlText } from './html.js';
import { findLatexRoot, isLatexMain, readLatexProject } from './latex.js';
import { readMarkdownText } from './markdown.js';
import { decodeText, NotTextError, type DecodedText } from './decode.js';
import { throwIfAborted } from '../abort.js';
import { sha256Hex } from './paper.js';
import { readPdfBytes } from './pdf.js';
import type { ReadOptions, ReadResult, SourceKind } from './types.js';

export * from './types.js';
export { readArxivHtmlText } from './html.js';
export { readLatexProject, expandLatexProject, isLatexMain, selectPaperFiles, latexAuthors } from './latex.js';
export { readMarkdownText } from './markdown.js';
export { readPdfBytes, pdfLayout, paperFromLayout, type PdfLayout, type PdfLine } from './pdf.js';

const EXT: Record<string, SourceKind> = {
  '.pdf': 'pdf',
  '.tex': 'latex',
  '.ltx': 'latex',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.qmd': 'markdown',
  '.rmd': 'markdown',
  '.bib': 'bibtex',
  '.bibtex': 'bibtex',
};

/** The kind of a file, from its content first (a .txt that is really a PDF is read as one), then its extension. */
export function sniffKind(path: string, head: Uint8Array): SourceKind | null {
  const start = Buffer.from(head.subarray(0, 2048)).toString('latin1');
  if (start.startsWith('%PDF-')) return 'pdf';
  const t = start.replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart();
  const byExt = EXT[extname(path).toLowerCase()];
  if (byExt && byExt !== 'pdf') return byExt;
  if (/^<(?:!doctype\s+html|html|\?xml[^>]*>\s*<html)/i.test(t)) return 'html';
  if (/\\documentclass|\\begin\{document\}/.test(start)) return 'latex';
  if (/^@(?:article|book|inproceedings|misc|incollection|phdthesis|techreport|string|preamble|comment)\s*[{(]/i.test(t)) return 'bibtex';
  if (byExt) return byExt;
  return null;
}

/** File extensions readPaperFile understands (for folder walks). */
export const PAPER_EXTENSIONS = Object.keys(EXT);

/**
 * Read one file into papers: a PDF, a LaTeX main file (with its includes), an arXiv HTML page, a Markdown file, or a
 * .bib file (its entries with abstracts). A .tex that is not a main file gives no paper (it is read with its main).
 */
export async function readPaperFile(path: string, options: ReadOptions = {}): Promise<ReadResult> {
  try {
    throwIfAborted(options.signal);
    const data = new Uint8Array(await readFile(path));
    const kind = sniffKind(path, data);
    const contentHash = sha256Hex(data);
    if (kind === 'pdf') {
      const read = await readPdfBytes(data, path, options, contentHash);
      return EXT[extname(path).toLowerCase()] && EXT[extname(path).toLowerCase()] !== 'pdf'
        ? withWarnings(read, path, [`a PDF named ${extname(path)}: read as a PDF`])
        : read;
    }
    if (!kind) return { papers: [], errors: [{ file: path, reason: 'unsupported file type' }] };
    // Text formats: decoded per file (BOM, UTF-16, Latin-1, NUL bytes, binary data refused): decode.ts.
    let decoded: DecodedText;
    try {
      decoded = decodeText(data, KIND_NAME[kind]);
    } catch (err) {
      if (err instanceof NotTextError) return { papers: [], errors: [{ file: path, reason: err.message }] };
      throw err;
    }
    return withWarnings(await readText(kind, decoded.text, path, options, contentHash), path, decoded.warnings);
  } catch (e) {
    if (options.signal?.aborted) throw e;
    return { papers: [], errors: [{ file: path, reason: e instanceof Error ? e.message : String(e) }] };
  }
}

const KIND_NAME: Record<SourceKind, string> = { pdf: 'a PDF', latex: 'LaTeX', html: 'HTML', markdown: 'Markdown', bibtex: 'BibTeX' };

function withWarnings(result: ReadResult, file: string, warnings: readonly string[]): ReadResult {
  if (!warnings.length) return result;
  return { ...result, warnings: [...warnings.map((reason) => ({ file, reason })), ...(result.warnings ?? [])] };
}

async function readText(kind: SourceKind, text: string, path: string, options: ReadOptions, contentHash: string): Promise<ReadResult> {
  switch (kind) {
    case 'bibtex': {
      const { papers, errors, warnings } = await readBibtexText(text, path, contentHash);
      return { papers, errors, warnings };
    }
    case 'html':
      return readArxivHtmlText(text, path, options, contentHash);
    case 'markdown':
      return readMarkdownText(text, path, options, contentHash);
    case 'latex': {
      if (!isLatexMain(text)) {
        const root = findLatexRoot(path, text);
        return root
          ? { papers: [], errors: [], skipped: `part of the LaTeX project ${root}` }
          : { papers: [], errors: [{ file: path, reason: 'not a main LaTeX file (no \\documentclass) and no main file includes it' }] };
      }
      return readLatexProject(path, options, text);
    }
    default:
      return { papers: [], errors: [{ file: path, reason: 'unsupported file type' }] };
  }
}
