// Everything the extension needs that is too heavy to load at activation (PGlite's glue, the PDF reader,
// the OpenAI and Supabase clients, the BibTeX parser, the review pipeline). esbuild bundles this module
// on its own as dist/heavy.js; `heavy()` in load.ts requires it on first use.
export { openStore, targetKind } from '../core/store/index.js';
export { openRemoteStore } from '../core/store/remote.js';
export { createEmbedder } from '../core/embed/index.js';
export { search } from '../core/retrieve/index.js';
export { ingest } from '../core/ingest/pipeline.js';
export { planCitation, bibFilesNamedBy, citationText } from '../core/bib/cite.js';
export { defaultTopic, runReview, OpenAIChat, parseBibEntries, isAbortError } from '../core/review/index.js';
export { sectionStructure, sectionHeading } from '../core/retrieve/structure.js';
