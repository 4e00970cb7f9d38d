// Helpers for the pipeline: the paper files of a folder, one BibIndex from its .bib files, ParsedPaper → PaperInput.
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { PaperInput } from '../store/types.js';
import { parseBibtex, type BibRecord } from '../bib/parse.js';
import { decodeText, NotTextError } from './decode.js';
import { sha256Hex } from './paper.js';
import { BibIndex } from '../bib/bib-index.js';
import { selectPaperFiles } from './latex.js';
import type { ParsedElement, ParsedPaper, ReadError } from './types.js';

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '.vscode', '__pycache__', '.venv', 'dist', 'build', '_minted']);

/**
 * The files of a folder (recursively) that readPaperFile should read: PDFs, arXiv HTML, Markdown, .bib, and the main
 * file of each LaTeX project (files \input by another are left out). Sorted, so runs are repeatable.
 */
export async function listPaperFiles(dir: string, extensions: readonly string[], problems: ReadError[] = []): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch (err) {
      // An unreadable folder is reported (its papers are missing from the corpus), the rest of the walk goes on.
      const code = (err as NodeJS.ErrnoException).code;
      problems.push({
        file: d,
        reason:
          code === 'EACCES' || code === 'EPERM'
            ? 'folder not readable (permission denied): its files were not indexed'
            : `folder not readable: ${(err as Error).message}`,
      });
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') && e.isDirectory()) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(p);
      } else if (e.isFile() && extensions.includes(extname(e.name).toLowerCase())) out.push(p);
    }
  };
  await walk(dir);
  return selectPaperFiles(out.sort());
}

/** A .bib file as collectBibIndex parsed it: its papers are built from these records, not parsed a second time. */
export interface ParsedBib {
  contentHash: string;
  records: BibRecord[];
  errors: ReadError[];
  warnings: ReadError[];
  /** Decoding notes (a Latin-1 file, a BOM): reported with the file's papers, as readPaperFile does. */
  decodeWarnings: string[];
}

/**
 * One BibIndex over several .bib files (malformed entries reported per entry; kept ones with warnings apart), and each
 * file's parse, so that its papers need no second parse (a 100,000-entry .bib takes minutes to parse).
 */
export async function collectBibIndex(
  paths: string[],
): Promise<{ index: BibIndex; errors: ReadError[]; warnings: ReadError[]; parsed: Map<string, ParsedBib> }> {
  const index = new BibIndex();
  const errors: ReadError[] = [];
  const warnings: ReadError[] = [];
  const parsed = new Map<string, ParsedBib>();
  for (const p of paths) {
    try {
      const bytes = new Uint8Array(await readFile(p));
      const decoded = decodeText(bytes, 'BibTeX');
      const { records, errors: errs, warnings: warns } = await parseBibtex(decoded.text, p);
      for (const r of records) index.add(r);
      errors.push(...errs);
      warnings.push(...warns);
      parsed.set(p, { contentHash: sha256Hex(bytes), records, errors: errs, warnings: warns, decodeWarnings: decoded.warnings });
    } catch (e) {
      // Binary data named .bib: its own read reports it.
      if (!(e instanceof NotTextError)) errors.push({ file: p, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  return { index, errors, warnings, parsed };
}

/**
 * What an element's vector is built from: its label, caption, content (a table's first cells, an equation's LaTeX),
 * description, and the sentences before and after it in the text (a caption alone is short; the text around it says
 * what the element shows).
 */
export function elementEmbeddingText(
  paper: { sentences: readonly { text: string }[] },
  e: Pick<ParsedElement, 'label' | 'caption' | 'content' | 'description' | 'afterSentence'>,
): string {
  const near = [paper.sentences[e.afterSentence]?.text, paper.sentences[e.afterSentence + 1]?.text];
  return [e.label, e.caption, e.content?.slice(0, 600), e.description, ...near].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
}

/**
 * The store's PaperInput for a parsed paper, with one embedding per sentence (in order), then one per element (in
 * order; see elementEmbeddingText).
 */
export function toPaperInput(paper: ParsedPaper, embeddings: Float32Array[]): PaperInput {
  const elements = paper.elements ?? [];
  if (embeddings.length !== paper.sentences.length + elements.length) {
    throw new Error(
      `paper ${paper.id}: ${paper.sentences.length} sentences and ${elements.length} elements but ${embeddings.length} embeddings`,
    );
  }
  // PostgreSQL text cannot hold NUL: one in any field used to fail the whole write batch (decode.ts removes them from
  // files; this covers every other way in, e.g. a PDF's text layer).
  const t = <T extends string | null>(v: T): T => (typeof v === 'string' ? (v.replace(/\u0000/g, '') as T) : v);
  return {
    id: paper.id,
    title: t(paper.title),
    authors: paper.authors.map(t),
    year: paper.year,
    venue: t(paper.venue),
    doi: t(paper.doi),
    url: t(paper.url),
    abstract: t(paper.abstract),
    citationKey: paper.citationKey,
    bibtex: t(paper.bibtex),
    sourcePath: paper.sourcePath,
    contentHash: paper.contentHash,
    source: paper.source ?? null,
    license: paper.license ?? null,
    // A made-up title is stored as proposed by where it came from (paper/made-up-title.ts): the mark outlives the run.
    metadataProposedBy: paper.titleFallback || paper.metadataProposedBy || null,
    citedWorks: (paper.citedWorks ?? []).map((w) => ({ ...w, text: t(w.text), title: t(w.title) })),
    sentences: paper.sentences.map((s, i) => ({
      sectionTitle: t(paper.sections[s.sectionIndex]?.title ?? null),
      sectionNumber: paper.sections[s.sectionIndex]?.number ?? null,
      sectionIndex: s.sectionIndex,
      sentenceIndex: s.sentenceIndex,
      globalIndex: s.globalIndex,
      page: s.page,
      lineStart: s.lineStart ?? null,
      lineEnd: s.lineEnd ?? null,
      pageEnd: s.pageEnd ?? null,
      text: t(s.text),
      embedding: embeddings[i],
    })),
    elements: elements.map((e, i) => ({
      ...e,
      label: t(e.label),
      labelKey: t(e.labelKey ?? null),
      caption: t(e.caption),
      content: t(e.content),
      description: t(e.description ?? null),
      sectionTitle: t(e.sectionTitle),
      elementIndex: i,
      embedding: embeddings[paper.sentences.length + i],
    })),
  };
}
