// The copy rule of generated prose (issue 32.3): a copied run of ≥ 12 words of a corpus sentence is a marked quotation
// of a whole clause of it, attributed to its paper, or the sentence is removed, and the reason says so. The issue's
// case: a lying model wrote "Our observed rates of mortality in cirrhosis patients with COVID-19 (32\%)~\cite{…}.",
// a 12-word fragment cut out of a corpus sentence (11 words when "COVID-19" counted as one), and related work kept it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerWithModel } from '../../src/core/ask/answer.ts';
import { newConversation } from '../../src/core/ask/conversation.ts';
import { checkSentences } from '../../src/core/grounding/claims.ts';
import { isWholeClause } from '../../src/core/grounding/copies.ts';
import type { PaperCandidate, VerifiedQuote } from '../../src/core/grounding/types.ts';
import type { ChatModel } from '../../src/core/llm/chat.ts';
import type { Hit } from '../../src/core/store/types.ts';
import { copyWords, ShingleIndex } from '../../src/core/text/match.ts';

/** The corpus sentence (Citation-Integrity's corpus, a cohort of cirrhosis patients with COVID-19). */
const SOURCE =
  'Our observed rates of mortality in cirrhosis patients with COVID-19 (32%) also far exceeded those previously reported in hospitalised patients with cirrhosis in the era preceding COVID-19 (5-8%), and in patients with cirrhosis admitted with influenza (18%).';
const FRAGMENT = 'Our observed rates of mortality in cirrhosis patients with COVID-19 (32%)';
const CLAUSE =
  'Our observed rates of mortality in cirrhosis patients with COVID-19 (32%) also far exceeded those previously reported in hospitalised patients with cirrhosis in the era preceding COVID-19 (5-8%)';
const PAPER_ID = 'doi:10.1/cirrhosis';
const paper = {
  id: PAPER_ID,
  title: 'Outcomes following SARS-CoV-2 infection in patients with chronic liver disease',
  authors: ['Ann Marjot'],
  year: 2021,
  venue: null,
  doi: null,
  arxivId: null,
  url: null,
  citationKey: null,
} as unknown as PaperCandidate['paper'];

function check(text: string) {
  const quote: VerifiedQuote = { id: 'Q1', paperShortId: 'P1', paperId: PAPER_ID, text: SOURCE, match: 'exact', similarity: 1 };
  const papers: PaperCandidate[] = [{ shortId: 'P1', paper, score: 1, passages: [] }];
  const r = checkSentences({
    index: 0,
    text,
    format: 'paragraph',
    topic: 'mortality of cirrhosis patients with COVID-19',
    sectionQuotes: [quote],
    allQuotes: [quote],
    papers,
    shingles: new ShingleIndex([{ text: SOURCE, paperId: PAPER_ID }], 12),
  });
  assert.equal(r.sentences.length, 1, JSON.stringify(r.sentences.map((s) => s.text)));
  return r.sentences[0];
}

test("the issue's fragment: 12 words copied (COVID-19 is two) and cut inside the clause is removed, and the reason says why", () => {
  assert.equal(copyWords(FRAGMENT).length, 12);
  const s = check(`${FRAGMENT} [P1].`);
  assert.equal(s.verdict, 'unsupported');
  assert.match(s.reasons.join('; '), /copies 12 words of a verified quote without quoting a whole clause of it \("our observed rates/);
  // Put in quotation marks it is still a fragment of the clause: removed too.
  const quoted = check(`One cohort reported \u201c${FRAGMENT}\u201d [P1].`);
  assert.equal(quoted.verdict, 'unsupported');
  assert.match(quoted.reasons.join('; '), /quotes 12 words of a corpus sentence that are not a whole clause of it/);
});

test('a whole clause: quoted by the writer it stays and is attributed; copied unquoted it is quoted and cited', () => {
  const quoted = check(`One cohort found that \u201c${CLAUSE}\u201d.`);
  assert.notEqual(quoted.verdict, 'unsupported', quoted.reasons.join('; '));
  assert.deepEqual(quoted.cited, ['P1'], 'the quotation is attributed to its paper');
  assert.match(quoted.text, /\u201d \[P1\]\.$/);
  const unquoted = check(`One cohort found that ${CLAUSE} [P1].`);
  assert.notEqual(unquoted.verdict, 'unsupported', unquoted.reasons.join('; '));
  assert.equal(unquoted.quotations, 1);
  assert.equal(unquoted.text, `One cohort found that \u201c${CLAUSE}\u201d [P1].`);
  // A paraphrase copies nothing and stays as written.
  const own = check('Mortality of cirrhosis patients with COVID-19 far exceeded the rates reported before the pandemic [P1].');
  assert.equal(own.quotations, 0);
  assert.deepEqual(own.reasons, []);
});

test('whole clauses: from the sentence start or a clause break (an opening conjunction may be left out) to a break or the end', () => {
  const w = (s: string) => copyWords(s);
  assert.equal(isWholeClause(w(CLAUSE), SOURCE), true);
  assert.equal(isWholeClause(w('in patients with cirrhosis admitted with influenza (18%)'), SOURCE), true, 'after ", and"');
  assert.equal(isWholeClause(w(FRAGMENT), SOURCE), false, 'a parenthesis is not a clause break');
  assert.equal(isWholeClause(w('rates of mortality in cirrhosis patients with COVID-19 (32%) also far exceeded'), SOURCE), false);
  assert.equal(isWholeClause(w(SOURCE), SOURCE), true);
});

test('Ask with a lying model: the copied fragment is removed with its reason, the paraphrase and the quoted clause stay', async () => {
  const sentence = {
    id: 1,
    paperId: PAPER_ID,
    text: SOURCE,
    sectionTitle: 'Discussion',
    sectionNumber: '4',
    sentenceIndex: 0,
    globalIndex: 1,
  };
  const hits: Hit[] = [{ similarity: 0.9, score: 0.9, sentence, previous: null, next: null, paper } as unknown as Hit];
  const liar: ChatModel = {
    model: 'liar',
    async complete() {
      const text =
        `${FRAGMENT} [P1]. Mortality of cirrhosis patients with COVID-19 far exceeded the rates reported before the pandemic [P1]. ` +
        `One cohort found that "${CLAUSE}" [P1].`;
      return { text, usage: { prompt: 0, completion: 0, total: 0, estimated: true }, attempts: 1 } as unknown as Awaited<
        ReturnType<ChatModel['complete']>
      >;
    },
  };
  const r = await answerWithModel(newConversation(), 'How high was mortality in cirrhosis patients with COVID-19?', hits, new Map(), liar, {
    verify: false,
  });
  const fragment = r.sentences.find((s) => s.original.startsWith('Our observed'));
  assert.equal(fragment?.kept, false);
  assert.match(fragment!.reasons.join('; '), /without quoting a whole clause/);
  const kept = r.sentences.filter((s) => s.kept).map((s) => s.original);
  assert.equal(kept.length, 2, JSON.stringify(r.sentences));
  assert.match(kept.join(' '), /far exceeded the rates reported before the pandemic/);
  assert.match(kept.join(' '), /One cohort found that "Our observed rates/);
});
