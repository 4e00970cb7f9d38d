// A reader's record for unit tests of the ingest rules: no metadata, one untitled section, the given sentences.
import type { ParsedPaper } from '../../src/core/ingest/types.ts';

/** A record with every metadata field empty; `texts` become its sentences (section 0, in order, no page). */
export function parsedPaper(over: Partial<ParsedPaper> & { texts?: string[] } = {}): ParsedPaper {
  const { texts = [], ...rest } = over;
  return {
    id: `sha256:${Math.random()}`,
    title: null,
    authors: [],
    year: null,
    venue: null,
    doi: null,
    arxivId: null,
    url: null,
    abstract: null,
    bibtex: null,
    citationKey: null,
    sourcePath: null,
    contentHash: 'h',
    sections: [{ title: '', number: null, level: 1 }],
    sentences: texts.map((text, i) => ({ sectionIndex: 0, sentenceIndex: i, globalIndex: i, page: null, text })),
    ...rest,
  };
}
