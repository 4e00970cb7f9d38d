// The offline claim-support check (src/core/grounding/support.ts) on the labelled fixture written for it
// (test/fixtures/claim-support.json): faithful paraphrases kept, unfaithful variants caught; and its rules one by one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { anySharedWord, assessSupport, numbersOf } from '../../src/core/grounding/support.js';
import { loadClaimFixture, scoreClaims } from '../support/claim-fixture.js';
import { projectRoot } from '../support/eval.ts';

const pairs = loadClaimFixture(projectRoot);
const judge = (p: (typeof pairs)[number]) => assessSupport(p.sentence, p.quotes, { topic: p.title }).verdict === 'supported';

test('the fixture: ≥ 100 pairs, every kind of unfaithful variant, quotes verbatim from the sample corpus', () => {
  assert.ok(pairs.length >= 100, `${pairs.length} pairs`);
  const kinds = new Set(pairs.filter((p) => !p.faithful).map((p) => p.kind));
  assert.deepEqual([...kinds].sort(), ['added-claim', 'invented-method', 'negation', 'swapped', 'wrong-number']);
  assert.ok(pairs.some((p) => p.half === 'train') && pairs.some((p) => p.half === 'heldout'));
  // The corpus stores clean text: compare against the source with LaTeX math/escapes and Markdown wrapping removed.
  const clean = (s: string) =>
    s
      .replace(/\$|\\mathrm\{([^}]*)\}|\{,\}|\\(?=%)|\\ /g, (m, g1) => (g1 ? g1 : m === '{,}' ? ',' : m === '\\ ' ? ' ' : ''))
      .replace(/[{}]/g, '')
      .replace(/\s+/g, ' ');
  const files = new Map<string, string>();
  for (const p of pairs) {
    if (!files.has(p.paper)) {
      const dir = join(projectRoot, 'samples', 'corpus');
      const name = ['.tex', '.md']
        .map((e) => p.paper + e)
        .find((f) => {
          try {
            readFileSync(join(dir, f));
            return true;
          } catch {
            return false;
          }
        })!;
      files.set(p.paper, clean(readFileSync(join(dir, name), 'utf8')));
    }
    for (const q of p.quotes) assert.ok(files.get(p.paper)!.includes(clean(q)), `${p.paper}: ${q}`);
  }
});

test('the checker: ≥ 95% of unfaithful pairs caught, ≥ 90% of faithful kept (all pairs); the any-shared-word baseline catches none', () => {
  const all = scoreClaims(pairs, judge);
  assert.ok(all.caught >= 0.95, `caught ${all.caught}: missed ${all.missed.map((p) => p.sentence).join(' | ')}`);
  assert.ok(all.kept >= 0.9, `kept ${all.kept}: rejected ${all.rejected.map((p) => p.sentence).join(' | ')}`);
  const heldout = scoreClaims(
    pairs.filter((p) => p.half === 'heldout'),
    judge,
  );
  assert.ok(heldout.caught >= 0.9 && heldout.kept >= 0.9, JSON.stringify({ caught: heldout.caught, kept: heldout.kept }));
  const baseline = scoreClaims(pairs, (p) => anySharedWord(p.sentence, p.quotes));
  assert.ok(baseline.caught < 0.1, `baseline caught ${baseline.caught}`);
});

test('rules: a number no quote has; a negation; an opposite; an unknown method name; an added clause', () => {
  const q = ['Hybrid retrieval with reciprocal rank fusion improved recall@10 from 0.63 to 0.71 on three collections.'];
  assert.equal(assessSupport('Reciprocal rank fusion improved recall@10 from 0.63 to 0.71 [P1].', q).verdict, 'supported');
  const n = assessSupport('Quantum llamas improve retrieval by 400%.', q);
  assert.equal(n.verdict, 'unsupported');
  assert.match(n.reasons.join(' '), /400/);
  assert.match(assessSupport('Reciprocal rank fusion did not improve recall@10.', q).reasons.join(' '), /negates/);
  assert.match(assessSupport('Reciprocal rank fusion degraded recall@10 on three collections.', q).reasons.join(' '), /opposite/);
  assert.match(assessSupport('Reciprocal rank fusion with ColBERT improved recall@10 from 0.63 to 0.71.', q).reasons.join(' '), /ColBERT/);
  assert.equal(
    assessSupport('Reciprocal rank fusion improved recall@10 from 0.63 to 0.71, and it also doubled indexing speed on laptops.', q).verdict,
    'unsupported',
  );
  assert.equal(
    assessSupport('RRF improved recall@10 on three collections.', ['Reciprocal rank fusion improved recall@10 on three collections.'])
      .verdict,
    'supported',
    'an acronym of spelled-out words',
  );
  assert.deepEqual([...numbersOf('From 0.63 to 0.71 on three sets of 4,200 papers (58%) [P12].')].sort(), [
    '0.63',
    '0.71',
    '3',
    '4200',
    '58',
  ]);
  assert.equal(
    assessSupport('In 2020 it improved recall@10 from 0.63 to 0.71.', q, { allowedNumbers: [2020] }).reasons.length,
    0,
    'the cited paper’s year',
  );
});

test("rules: two numbers of the quotes given to each other's terms are caught; the same pairs in other words are not", () => {
  const quotes = ['Tagging accuracy was 0.82 for nouns and 0.64 for verbs on the held-out treebank.'];
  const swapped = assessSupport('Tagging accuracy was 0.64 for nouns and 0.82 for verbs.', quotes);
  assert.equal(swapped.verdict, 'unsupported');
  assert.match(swapped.reasons.join('; '), /gives 0\.64 to "nouns", which the cited quotes give 0\.82/);
  for (const faithful of [
    'Tagging accuracy reached 0.82 for nouns.',
    'On the held-out treebank, nouns were tagged with accuracy 0.82 and verbs with 0.64.',
    'Tagging accuracy was 0.82 for nouns but only 0.64 for verbs.',
  ]) {
    assert.equal(assessSupport(faithful, quotes).verdict, 'supported', faithful);
  }
});
