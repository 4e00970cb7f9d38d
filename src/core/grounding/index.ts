// Grounding: whether a written sentence is backed by the quotes it cites. The checks related work (review/), Ask
// (ask/) and the citation checker (cite-check/) share: the offline support score (support), the sentence check
// that resolves foreign citations and quotes copied runs (claims, citations), the verification model's verdicts
// (verify, prompts), the output check (check), text addressed to a model that is never evidence (instructions),
// a paper's stored text for verifying quotes (paper-text) and a step's trace (trace), what model calls cost (cost). Other units import from
// here, never from the files behind it.
export { assessSupport, numbersOf, SUPPORT_THRESHOLD } from './support.js';
export { checkSentences, joinUnits, keptSentence, type CheckedSection, type SectionUnit } from './claims.js';
export { checkReview, citedKeys, stripQuotations, stripShortIds } from './check.js';
export { verifySection } from './verify.js';
export { evidenceRows, paperHeader, systemPrompt } from './prompts.js';
export { addressesModel } from './instructions.js';
export { paperTextSource } from './paper-text.js';
export { StepContext, traceTotal } from './trace.js';
export * from './types.js';
export { costLine, estimateCalls, estimateLine, INSTRUCTIONS, QUOTE, type CallEstimate, type StepCalls } from './cost.js';
