// Grounding: whether a written sentence is backed by the quotes it cites. The checks related work (review/), Ask
// (ask/) and the citation checker (cite-check/) share: the offline support score (support), the sentence check
// that resolves foreign citations and quotes copied runs (claims, citations), the verification model's verdicts
// (verify, prompts), the output check (check), text addressed to a model that is never evidence (instructions),
// a paper's stored text for verifying quotes (paper-text) and a step's trace (trace). Other units import from
// here, never from the files behind it.
export { assessSupport, anySharedWord, evidenceIndex, numbersOf, SUPPORT_THRESHOLD, type EvidenceIndex, type SupportOptions, type SupportResult, type SupportVerdict } from './support.js';
export {
  checkSentences,
  isClaim,
  joinUnits,
  keptSentence,
  splitSentences,
  splitUnits,
  type CheckedSection,
  type SectionCheckInput,
  type SectionUnit,
  type UnsupportedMode,
} from './claims.js';
export { resolveAuthorYear, resolveForeignCitations, type CitablePaper, type ForeignCitations } from './citations.js';
export { checkReview, citedKeys, filterShortIds, stripComments, stripQuotations, stripShortIds, type CheckInput } from './check.js';
export { verifySection, VerifySchema } from './verify.js';
export { evidenceRows, paperHeader, systemPrompt, verifyPrompt } from './prompts.js';
export { addressesModel } from './instructions.js';
export { paperTextSource } from './paper-text.js';
export { StepContext } from './trace.js';
export * from './types.js';
