// The .bib reader: each BibTeX entry with an abstract becomes an abstract-only paper (one section "Abstract").
import { parseBibtex, type BibRecord } from '../bib/parse.js';
import { BibIndex } from '../bib/bib-index.js';
import { sentences } from '../text/index.js';
import { buildPaper, PaperAssembler, sha256Hex } from './paper.js';
import type { ParsedPaper, ReadResult } from './types.js';

/**
 * Read a .bib text: abstract-only papers for the entries that have an abstract, and a BibIndex of all entries (for
 * other readers to match). Malformed entries are in `errors`, one by one.
 */
export async function readBibtexText(
  text: string,
  file: string | null = null,
  contentHash: string = sha256Hex(text),
): Promise<ReadResult & { index: BibIndex }> {
  const { records, errors, warnings } = await parseBibtex(text, file);
  return { papers: bibPapers(records, file, contentHash), errors, warnings, index: new BibIndex(records) };
}

/** The abstract-only papers of parsed .bib records (those with an abstract). */
export function bibPapers(records: readonly BibRecord[], file: string | null, contentHash: string): ParsedPaper[] {
  const papers: ParsedPaper[] = [];
  for (const r of records) {
    if (!r.abstract) continue;
    const asm = new PaperAssembler();
    asm.section('Abstract', null, 1);
    for (const s of sentences(r.abstract, 'text')) asm.sentence(s.clean);
    const assembled = asm.finish();
    if (!assembled.sentences.length) continue;
    papers.push(
      buildPaper(
        {
          title: r.title,
          authors: r.authors,
          year: r.year,
          venue: r.venue,
          doi: r.doi,
          arxivId: r.arxivId,
          url: r.url,
          abstract: r.abstract,
          bibtex: r.bibtex,
          citationKey: r.key || null,
        },
        assembled,
        { path: file, contentHash },
      ),
    );
  }
  return papers;
}
