// The citation checker's public face (the editor's completion, diagnostics, quick fixes and hover; the CLI's
// `corpus-lens check`): every citation of the author's LaTeX/Markdown checked against the cited paper's own
// stored sentences. See types.ts for the flow and the data; score.ts for the offline score; llm.ts for the
// optional model verdict.
export * from './types.js';
export { findCitations, findProjectCitations, formatOfPath } from './find.js';
export { PaperCatalog } from './catalog.js';
export { checkCitation, checkDocument, rankForCompletion } from './check.js';
export { locatorEdit, replaceKeyEdit } from './edits.js';
