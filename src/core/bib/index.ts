// BibTeX: parsing (@retorquere/bibtex-parser), the one BibIndex every reader and command asks what a .bib holds, and
// the Cite action's helpers (formatBibtexEntry, makeCitationKey, placeCitation). Reading a .bib as papers is
// ingest's (ingest/bib.ts).
export { parseBibtex, loadBibtexParser, stripMarkup, type BibRecord } from './parse.js';
export { BibIndex } from './bib-index.js';
export { formatBibtexEntry, makeCitationKey, splitName, type CitablePaper } from './format.js';
