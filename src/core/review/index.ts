// review/ holds the related-work pipeline only (topic, decompose, retrieve, rerank, quotes, plan, write, emit, the
// evidence outline); whether a sentence is backed by its quotes is grounding/'s, shared with Ask and cite-check.
//
// The related-work generator's public face (the CLI `review` command; the VS Code command calls the same):
//
//   const chat = baseURL ? openChat({ baseURL, model, apiKey }) : null;   // llm/index.ts; null → evidence outline
//   const result = await runReview({
//     store, embedder,                       // the open corpus and its embedder (as for `query`)
//     chat,
//     topic,                                 // or '' with document: {text, format} → title + abstract
//     format: 'latex' | 'markdown', citeCommand: 'cite' | 'citep' | 'citet' | 'autocite' | 'parencite',
//     existingBib: await BibIndex.read(bibText), // reuse the keys of papers the .bib has (BibIndex.find)
//     signal,                                // cancellation, reaches every call
//     onProgress: (e) => …,                  // {step, index, total, phase: start|progress|done, message, done?, of?}
//     onToken: (section, title, delta) => …, // the write step, streamed
//   });
//   result.text / result.bibtex (all cited) / result.newBibtex (not already in existingBib) / result.check / result.trace
//
// Errors: LlmError / ReviewError name the step (`step "plan": …`); cancellation rejects with an AbortError
// (isAbortError(err)).
export { runReview } from './pipeline.js';
export { citedKeys, paperTextSource } from '../grounding/index.js';
export { defaultTopic } from './topic.js';
export { costLine, estimateLine } from '../grounding/index.js';
export { htmlCommentSafe } from './outline.js';
export { BibIndex } from '../bib/bib-index.js';
export { entriesToAppend } from './emit.js';
export * from './types.js';
export { isAbortError } from '../llm/index.js';
