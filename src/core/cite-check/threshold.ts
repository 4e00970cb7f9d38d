// Thresholds on a paper's support score (score.ts). CHECK_THRESHOLD: a citation scoring below it is reported
// unsupported; chosen on Citation-Integrity claims_train as the highest threshold that flags at most 5% of the
// correct (SUPPORT) citations (`npm run bench -- check` prints it and what it does on dev).
export const CHECK_THRESHOLD = 0.16;

/**
 * "Citation needed" (off by default) proposes a paper for an uncited sentence only when one of its sentences supports
 * it closely (that sentence's score, well above the check's threshold on the paper score), so that a loose topical
 * match is not offered as a source.
 */
export const CITATION_NEEDED_THRESHOLD = 0.5;
