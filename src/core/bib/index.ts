// BibTeX: parsing (@retorquere/bibtex-parser), the one BibIndex every reader and command asks what a .bib holds, and
// the Cite action's helpers (formatBibtexEntry, makeCitationKey, placeCitation). Reading a .bib as papers is
// ingest's (ingest/bib.ts).
export { parseBibtex, entryToRecord, loadBibtexParser, stripMarkup, type BibRecord, type BibParseResult } from './parse.js';
export { BibIndex, bibKeys, type BibEntryIds, type PaperIds } from './bib-index.js';
export { formatBibtexEntry, makeCitationKey, citationKeyBase, escapeBibtex, splitName, type CitablePaper } from './format.js';
export { placeCitation, type CitationEdit, type PlaceOptions } from './place.js';
