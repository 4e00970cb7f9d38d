// The one cost estimator related work and Ask share, and the lines that tell an estimate and a measured cost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { costLine, estimateCalls, estimateLine, stepCostLines } from '../../../../src/core/grounding/cost.js';
import { estimateAsk } from '../../../../src/core/ask/estimate.js';
import { newConversation } from '../../../../src/core/ask/conversation.js';
import type { AskTurn } from '../../../../src/core/ask/types.js';

test('calls are costed per step; parallel calls take time by waves', () => {
  const e = estimateCalls([
    { n: 8, prompt: 100, completion: 50, parallel: 4 }, // 2 waves of 1 s + 1 s
    { n: 0, prompt: 999, completion: 999, parallel: 1 }, // a step that makes no call costs nothing
    { n: 1, prompt: 200, completion: 100, parallel: 1 }, // 1 s + 2 s
  ]);
  assert.deepEqual(e, { llmCalls: 9, tokens: { prompt: 1000, completion: 500, total: 1500 }, seconds: 7 });
  assert.equal(estimateLine(e), '~9 model calls, ~1.5k tokens, ~7 s');
});

test("Ask's estimate: answer and verification; a follow-up adds the rewrite; a sources question makes no call", () => {
  const c = newConversation();
  const first = estimateAsk(c, 'Which HNSW parameters reach recall@10 of 0.98?', { evidence: 8, verify: true })!;
  assert.equal(first.llmCalls, 2);
  assert.equal(first.basis, '8 evidence sentences, verified');
  c.turns.push({ kind: 'answer', standalone: 'q', text: 'a' } as AskTurn);
  const next = estimateAsk(c, 'And below what size?', { evidence: 8, verify: false })!;
  assert.equal(next.llmCalls, 2, 'rewrite + answer');
  assert.match(next.basis, /follow-up rewrite/);
  assert.ok(next.tokens.prompt > 0 && next.seconds >= 2);
  assert.equal(estimateAsk(c, 'Where did you find that?', { evidence: 8, verify: true }), null);
  assert.ok(
    estimateAsk(c, 'q', { evidence: 16, verify: true })!.tokens.total > estimateAsk(c, 'q', { evidence: 8, verify: true })!.tokens.total,
  );
});

test('a measured cost: the total, and each step with its tokens (if it called a model) and time', () => {
  const tokens = (total: number, estimated = false) => ({ prompt: total - 100, completion: 100, total, estimated });
  const step = (name: string, ms: number, calls: number, t: number, cached = 0) => ({
    step: name,
    durationMs: ms,
    llmCalls: calls,
    cachedCalls: cached,
    tokens: tokens(t),
    counts: {},
    notes: [],
  });
  assert.deepEqual(stepCostLines([step('search', 230, 0, 0), step('answer', 3140, 1, 1240), step('check', 12_600, 0, 0, 1)]), [
    'search: 0.2 s',
    'answer: 1.2k tokens, 3.1 s',
    'check: 1 from the cache, 13 s',
  ]);
  assert.equal(
    costLine({ durationMs: 4_800, llmCalls: 2, cachedCalls: 1, tokens: tokens(1600, true) }),
    '2 model calls (1 more answered from the cache), 1.6k estimated tokens, 5 s',
  );
});
