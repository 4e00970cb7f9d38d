// BibTeX: parsing (@retorquere/bibtex-parser), the BibIndex other readers match against, abstract-only papers, and
// the Cite action's helpers (formatBibtexEntry, makeCitationKey, placeCitation).
export { BibIndex, parseBibtex, entryToRecord, loadBibtexParser, stripMarkup, type BibRecord, type BibParseResult } from './parse.js';
export { formatBibtexEntry, makeCitationKey, citationKeyBase, escapeBibtex, splitName, type CitablePaper } from './format.js';
export { readBibtexText } from './papers.js';
export { placeCitation, type CitationEdit, type PlaceOptions } from './place.js';
