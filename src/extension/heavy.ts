// Everything the extension needs that is too heavy to load at activation (PGlite's glue, the PDF reader,
// the OpenAI and Supabase clients, the BibTeX parser, the review pipeline). esbuild bundles this module
// on its own as dist/heavy.js; `heavy()` in load.ts requires it on first use.
export { openStore, targetKind } from '../core/store/index.js';
export { openRemoteStore } from '../core/store/backends/remote.js';
export { createEmbedder } from '../core/embed/index.js';
export { openChat } from '../core/llm/index.js';
export { search } from '../core/retrieve/index.js';
export { filterOptions, papersNamed } from '../core/retrieve/filters.js';
export { ingest, ingestUnits, collectFiles } from '../core/ingest/pipeline.js';
export { embedderDimensions } from '../core/ingest/corpus-embedder.js';
export { readPaperFile } from '../core/ingest/index.js';
export { latexSentenceSource } from '../core/ingest/latex.js';
export { TextModel } from '../core/text/index.js';
export {
  readZoteroLibrary,
  listZoteroCollections,
  zoteroUnits,
  zoteroMeta,
  findZoteroDataDir,
  BetterBibtex,
} from '../core/sources/zotero/index.js';
export { indexingSummaryLine, problemLines } from '../core/ingest/report.js';
export { planCitation, bibFilesNamedBy, citationText } from '../core/bib/cite.js';
export { placeCitation } from '../core/bib/place.js';
export { citedKeys, defaultTopic, runReview, BibIndex, entriesToAppend, isAbortError, htmlCommentSafe } from '../core/review/index.js';
export { sectionStructure, sectionHeading, sectionsInPaper } from '../core/retrieve/structure.js';
export {
  sourcesConfig,
  sourceContext,
  search as searchSource,
  candidatesFromBib,
  candidatesFromIds,
  fetchToCorpus,
  progressLine,
  entryName,
  entryStatus,
  nothingFetched,
} from '../core/sources/index.js';
export { ask, newConversation, parseConversation, serializeConversation } from '../core/ask/index.js';
export { answerForPaper, citedPapers } from '../core/ask/insert.js';
export { turnMarkdown } from '../core/ask/markdown.js';
export { LanguageModelChat, selectLanguageModel } from './shared/lm-chat.js';
export {
  PaperCatalog,
  checkDocument,
  checkCitation,
  rankForCompletion,
  findCitations,
  findProjectCitations,
  locatorEdit,
  replaceKeyEdit,
} from '../core/cite-check/index.js';
export { formatBibtexEntry } from '../core/bib/format.js';
export { healthReport } from '../core/health/report.js';
export { enrichElements } from '../core/ingest/enrich.js';
export { healthMarkdown } from '../core/health/markdown.js';
export { LRUCache } from 'lru-cache';
