// @corpus follow-ups: the conversation comes back from the chat's own history (the latest reply of this participant).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newConversation, parseConversation, serializeConversation } from '../../../../src/core/ask/index.js';
import { conversationFromHistory, CONVERSATION_METADATA } from '../../../../src/extension/ask/participant-history.js';

const ID = 'corpusLens.corpus';
const saved = (turns: number) => {
  const c = newConversation();
  for (let i = 0; i < turns; i++) {
    c.turns.push({
      question: `q${i}`,
      standalone: `q${i}`,
      rewrite: 'none',
      kind: 'unknown',
      text: "I don't know.",
      sentences: [],
      citations: [],
      answerability: 0,
      counts: { evidence: 0, papers: 0, unverifiedEvidence: 0, removedSentences: 0, removedCitations: 0, llmCalls: 0, ms: 0, modelMs: 0 },
      model: null,
    });
  }
  return serializeConversation(c);
};
const from = (history: Parameters<typeof conversationFromHistory>[0]) =>
  conversationFromHistory(history, ID, parseConversation, newConversation);

test('the latest reply of @corpus carries the conversation; requests, other participants and unreadable metadata are passed over', () => {
  assert.equal(from([]).turns.length, 0, 'a new chat starts a new conversation');
  const history = [
    { participant: ID, result: { metadata: { [CONVERSATION_METADATA]: saved(1) } } },
    { participant: ID }, // a request turn has no result
    { participant: ID, result: { metadata: { [CONVERSATION_METADATA]: saved(2) } } },
    { participant: 'someone.else', result: { metadata: { [CONVERSATION_METADATA]: saved(5) } } },
    { participant: ID, result: { metadata: { [CONVERSATION_METADATA]: '{"version": 1, "turns": "broken"' } } },
    { participant: ID, result: {} },
  ];
  assert.equal(from(history).turns.length, 2);
});
