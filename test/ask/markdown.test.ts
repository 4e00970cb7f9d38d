// The answer document of Ask the Corpus (src/core/ask/markdown.ts): corpus text, model output and the question are
// untrusted, so none of it may format, link or carry HTML; the scaffolding (headings, source list) must.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conversationMarkdown, sourceMarkdown, turnMarkdown } from '../../src/core/ask/markdown.js';
import { newConversation, parseConversation, serializeConversation } from '../../src/core/ask/index.js';
import type { AskSource, AskTurn, Conversation } from '../../src/core/ask/types.js';

const HOSTILE = 'See <img src=x onerror=alert(1)> and [click](https://evil.example) **now** `code` # not a heading';

function source(n: number, extra: Partial<AskSource> = {}): AskSource {
  return {
    n,
    paperId: `p${n}`,
    citationKey: `key${n}`,
    title: `Paper ${n}`,
    authors: [],
    year: 2020 + n,
    section: 'Results',
    sentenceId: n,
    globalIndex: n,
    text: `Sentence ${n}.`,
    previous: null,
    next: null,
    page: null,
    ...extra,
  };
}

function turn(kind: AskTurn['kind'], text: string, citations: number[], extra: Partial<AskTurn> = {}): AskTurn {
  const counts = {
    evidence: 0,
    papers: 0,
    unverifiedEvidence: 0,
    removedSentences: 0,
    removedCitations: 0,
    llmCalls: 0,
    ms: 0,
    modelMs: 0,
  };
  return {
    question: 'q?',
    standalone: 'q?',
    rewrite: 'none',
    kind,
    text,
    sentences: [],
    citations,
    answerability: 1,
    counts,
    model: null,
    ...extra,
  };
}

/** Markdown that would format or link: raw HTML tags, links, unescaped emphasis or code from the untrusted text. */
function assertInert(md: string): void {
  assert.ok(!/(^|[^\\])<img/.test(md), 'no raw HTML');
  assert.ok(!/(^|[^\\])\[click(^|[^\\])\]\(/.test(md) && !md.includes('](https://evil'), 'no link');
  assert.ok(!md.includes('**now**') && !md.includes('`code`'), 'no formatting from corpus text');
}

test('a source line: number, title, key and year, section, page where known, the quoted sentence', () => {
  assert.equal(
    sourceMarkdown(source(3, { page: 4 })),
    '- \\[3\\] **Paper 3** \\(key3, 2023\\), section “Results”, p\\. 4: “Sentence 3\\.”',
  );
  assert.equal(
    sourceMarkdown(source(1, { citationKey: null, year: null, section: null, title: null })),
    '- \\[1\\] **p1**: “Sentence 1\\.”',
  );
  // PDF lines: on one page, one line, and over a page break.
  assert.equal(
    sourceMarkdown(source(3, { page: 4, lineStart: 12, lineEnd: 14, pageEnd: 4 })),
    '- \\[3\\] **Paper 3** \\(key3, 2023\\), section “Results”, p\\. 4, ll\\. 12–14: “Sentence 3\\.”',
  );
  assert.match(sourceMarkdown(source(3, { page: 4, lineStart: 9, lineEnd: 9, pageEnd: 4 })), /, p\\\. 4, l\\\. 9: /);
  assert.match(sourceMarkdown(source(3, { page: 4, lineStart: 40, lineEnd: 2, pageEnd: 5 })), /, p\\\. 4, l\\\. 40 – p\\\. 5, l\\\. 2: /);
});

test('untrusted question, answer, titles, sections and sentences are escaped everywhere', () => {
  const c: Conversation = { version: 1, turns: [], sources: [source(1, { title: HOSTILE, section: HOSTILE, text: HOSTILE })] };
  c.turns.push(turn('answer', `${HOSTILE} [1]`, [1], { question: HOSTILE, rewrite: 'llm', standalone: HOSTILE }));
  c.turns.push(turn('answer', `Again ${HOSTILE} [1]`, [1], { question: `Follow-up ${HOSTILE}` }));
  const md = conversationMarkdown(c);
  assertInert(md);
  assert.match(md, /^# Ask the Corpus\n\n## Follow\\-up See \\<img/);
  assert.match(md, /^### Sources\n\n- \\\[1\\\] \*\*See \\<img/m);
  assert.match(md, /^### Earlier in this conversation\n\n- See \\<img/m);
});

test('an extract keeps its paper / evidence structure as a nested list; "I don\'t know" lists no sources', () => {
  const c = newConversation();
  c.sources.push(source(1), source(2));
  c.turns.push(
    turn('extract', 'Paper 1 (key1, 2021):\n  Results: “Sentence 1.” [1]\nPaper 2 (key2, 2022):\n  Results: “Sentence 2.” [2]', [1, 2]),
  );
  const md = conversationMarkdown(parseConversation(serializeConversation(c)));
  assert.match(md, /^- Paper 1 \\\(key1, 2021\\\)\\:\n {2}- Results\\: “Sentence 1\\\.” \\\[1\\\]$/m);
  assert.match(md, /### Sources\n\n- \\\[1\\\] .*\n- \\\[2\\\] /);
  c.turns.push(turn('unknown', "I don't know.", []));
  const unknown = conversationMarkdown(c);
  assert.ok(!unknown.split('### Earlier')[0].includes('### Sources'), unknown);
  assert.match(unknown, /I don\\'t know\\\./);
});

test('"where did you find that?" lists the previous answer\'s sources; an empty conversation says how to start', () => {
  const c = newConversation();
  c.sources.push(source(1), source(2));
  c.turns.push(turn('extract', 'x', [2]), turn('sources', '[2] …', [2], { question: 'Where did you find that?' }));
  const md = conversationMarkdown(c);
  assert.match(md, /Sources of the previous answer:\n\n### Sources\n\n- \\\[2\\\] \*\*Paper 2\*\*/);
  assert.ok(!md.includes('\\[1\\] **Paper 1**'));
  assert.match(conversationMarkdown(newConversation()), /No questions yet/);
});

test('a chat reply (@corpus): the answer with its [n] and the sources it cites, all untrusted text inert', () => {
  const c: Conversation = { version: 1, turns: [], sources: [source(1, { text: HOSTILE }), source(2)] };
  const t = turn('answer', `${HOSTILE} [1].`, [1], { rewrite: 'llm', standalone: `q2 ${HOSTILE}` });
  c.turns.push(t);
  const md = turnMarkdown(t, c);
  assertInert(md);
  assert.ok(md.includes('**Sources**'), md);
  assert.ok(md.includes('- \\[1\\] **Paper 1**'), md);
  assert.ok(!md.includes('Paper 2'), 'only the sources this answer cites');
  const unknown = turn('unknown', "I don't know.", []);
  assert.ok(!turnMarkdown(unknown, c).includes('Sources'));
});
