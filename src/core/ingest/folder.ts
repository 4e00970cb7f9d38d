// Helpers for the pipeline: the paper files of a folder, one BibIndex from its .bib files, ParsedPaper → PaperInput.
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { PaperInput } from '../store/types.js';
import { BibIndex, parseBibtex } from '../bib/parse.js';
import { selectPaperFiles } from './latex.js';
import type { ParsedPaper, ReadError } from './types.js';

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '.vscode', '__pycache__', '.venv', 'dist', 'build', '_minted']);

/**
 * The files of a folder (recursively) that readPaperFile should read: PDFs, arXiv HTML, Markdown, .bib, and the main
 * file of each LaTeX project (files \input by another are left out). Sorted, so runs are repeatable.
 */
export async function listPaperFiles(dir: string, extensions: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
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

/** One BibIndex over several .bib files (malformed entries reported per entry). */
export async function collectBibIndex(paths: string[]): Promise<{ index: BibIndex; errors: ReadError[] }> {
  const index = new BibIndex();
  const errors: ReadError[] = [];
  for (const p of paths) {
    try {
      const { records, errors: errs } = await parseBibtex(await readFile(p, 'utf8'), p);
      for (const r of records) index.add(r);
      errors.push(...errs);
    } catch (e) {
      errors.push({ file: p, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  return { index, errors };
}

/** The store's PaperInput for a parsed paper, with one embedding per sentence (in order). */
export function toPaperInput(paper: ParsedPaper, embeddings: Float32Array[]): PaperInput {
  if (embeddings.length !== paper.sentences.length) {
    throw new Error(`paper ${paper.id}: ${paper.sentences.length} sentences but ${embeddings.length} embeddings`);
  }
  return {
    id: paper.id,
    title: paper.title,
    authors: paper.authors,
    year: paper.year,
    venue: paper.venue,
    doi: paper.doi,
    url: paper.url,
    abstract: paper.abstract,
    citationKey: paper.citationKey,
    bibtex: paper.bibtex,
    sourcePath: paper.sourcePath,
    contentHash: paper.contentHash,
    sentences: paper.sentences.map((s, i) => ({
      sectionTitle: paper.sections[s.sectionIndex]?.title ?? null,
      sectionNumber: paper.sections[s.sectionIndex]?.number ?? null,
      sectionIndex: s.sectionIndex,
      sentenceIndex: s.sentenceIndex,
      globalIndex: s.globalIndex,
      page: s.page,
      text: s.text,
      embedding: embeddings[i],
    })),
  };
}
