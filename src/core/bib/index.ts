// BibTeX: parsing (@retorquere/bibtex-parser), the BibIndex other readers match against, and the Cite action's
// helpers (formatBibtexEntry, makeCitationKey, placeCitation). Reading a .bib as papers is ingest's (ingest/bib.ts).
export { BibIndex, parseBibtex, entryToRecord, loadBibtexParser, stripMarkup, type BibRecord, type BibParseResult } from './parse.js';
export { formatBibtexEntry, makeCitationKey, citationKeyBase, escapeBibtex, splitName, type CitablePaper } from './format.js';
export { placeCitation, type CitationEdit, type PlaceOptions } from './place.js';
