// The offline support score (core/cite-check/score.ts): the paper score averages its best sentences, so the
// paper that reports a finding (stated and restated) outscores one that matches the claim in one sentence by chance.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scorePaper, SCORE_WEIGHTS } from '../../../../src/core/cite-check/score.js';

const CLAIM = 'Caching query embeddings cut the median lookup latency from 180 to 12 milliseconds.';
const CITED = [
  'We cache the embeddings of repeated queries in the writing assistant.',
  'The cache cut the median lookup latency from 180 to 12 milliseconds.',
  'Lookup latency matters most while the author is typing.',
  'The study took place in a university writing centre.',
];
const CHANCE = [
  'Median household income rose in the region.',
  'We cut the median lookup latency of the index from 180 to 12 milliseconds by caching.',
  'Participants wrote in three genres.',
  'The interviews were transcribed verbatim.',
];

test('the sentence that states the finding ranks first, and scores in 0–1', () => {
  const r = scorePaper(CLAIM, CITED);
  assert.equal(r.sentences[0].index, 1);
  assert.ok(r.score > 0 && r.score <= 1);
  assert.deepEqual(r.sentences.map((s) => s.index).sort(), [0, 1, 2, 3], 'every sentence scored once');
});

test('the paper score is the mean of the best `top` sentences: a paper matching in one sentence only scores below one that restates it', () => {
  assert.equal(SCORE_WEIGHTS.top, 3);
  const alone = { ...SCORE_WEIGHTS, paper: 0, paperLexical: 0 }; // the mean of the sentence scores itself
  const cited = scorePaper(CLAIM, CITED, null, alone);
  const chance = scorePaper(CLAIM, CHANCE, null, alone);
  const mean = (r: typeof cited) => {
    const best = r.sentences.slice(0, SCORE_WEIGHTS.top);
    return best.reduce((a, s) => a + s.score, 0) / best.length;
  };
  assert.ok(Math.abs(cited.score - mean(cited)) < 1e-9);
  assert.ok(chance.sentences[0].score >= cited.sentences[0].score - 0.2, 'the chance match has one strong sentence');
  assert.ok(cited.score > chance.score, `${cited.score} > ${chance.score}`);
  // With the best sentence alone, the chance match comes (nearly) level: what the mean fixes.
  const best = (s: readonly string[]) => scorePaper(CLAIM, s, null, { ...alone, top: 1 }).score;
  assert.ok(best(CHANCE) - chance.score > best(CITED) - cited.score);
});

test("the paper score leans on the two-way lexical match: a paper listing the claim's terms among many others scores below the one that states it", () => {
  const claim = 'Metformin lowers hepatic glucose production in patients with type 2 diabetes.';
  const cited = [
    'Metformin lowered hepatic glucose output.',
    'Hepatic glucose production fell under metformin.',
    'Metformin lowers glucose production.',
  ];
  // Another paper of the same citing paper's references: the claim's terms, scattered through long sentences.
  const other = [
    'Patients with type 2 diabetes were treated with metformin, sulfonylureas, insulin, thiazolidinediones or diet alone, and fasting glucose, hepatic enzymes, weight, blood pressure and lipids were recorded at every visit.',
    'Hepatic steatosis, lower physical activity, obesity, hypertension and dyslipidaemia were more common in patients with type 2 diabetes than in the general population of the region.',
    'Production of the questionnaire, recruitment of patients with type 2 diabetes and measurement of glucose followed the protocol of the national registry.',
  ];
  assert.equal(SCORE_WEIGHTS.paperLexical, 0.75);
  assert.ok(scorePaper(claim, cited).score > scorePaper(claim, other).score);
  // Averaging the sentence scores instead (their coverage term rewards naming many of the claim's terms), the other wins.
  const bySentence = { ...SCORE_WEIGHTS, paperLexical: 0 };
  assert.ok(scorePaper(claim, cited, null, bySentence).score < scorePaper(claim, other, null, bySentence).score);
});

test('an empty paper scores 0', () => {
  assert.deepEqual(scorePaper(CLAIM, []), { score: 0, sentences: [] });
});
