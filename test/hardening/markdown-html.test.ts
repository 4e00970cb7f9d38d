// Generated Markdown (review, ask's insert) carries corpus text and model prose: neither may reach whatever renders
// the .md (a preview, a site build, GitHub) as HTML, a link or an autolink. A corpus table caption
// `<script>alert(1)</script>` quoted in a provenance footnote, a model sentence with raw HTML and a
// `javascript:` link, a section title, a comparison-table cell: all escaped by the one Markdown escaper.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerForPaper } from '../../src/core/ask/insert.ts';
import type { AskSource, AskTurn } from '../../src/core/ask/types.ts';
import { renderUnits } from '../../src/core/review/emit.ts';
import type { SentenceReport, VerifiedQuote } from '../../src/core/review/types.ts';
import { escapeMarkdownProse } from '../../src/core/text/escape.ts';

/** Raw HTML a Markdown renderer would pass through, or a link / autolink it would make. */
const LIVE = /<script|<img|<!--|<\/?[a-z][^>]*>|(?<!\\)\]\(javascript:|<javascript:/i;

test('the Markdown escaper leaves no tag, comment, link or autolink, and keeps prose readable', () => {
  assert.equal(escapeMarkdownProse('Recall rose by 5% (R&D) \u201cquoted\u201d.'), 'Recall rose by 5% (R&D) "quoted".');
  // `&lt;` typed in the text stays the four characters it is, not a `<` for the renderer.
  assert.equal(escapeMarkdownProse('&lt;script&gt;'), '&amp;lt;script&amp;gt;');
  for (const bad of [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '[click](javascript:alert(1))',
    '<javascript:alert(1)>',
    '<!-- x -->',
  ]) {
    const out = escapeMarkdownProse(bad);
    assert.doesNotMatch(out, LIVE, out);
  }
});

test('review --format markdown: corpus quotes in footnotes, model prose, the heading and table cells are escaped', () => {
  const quote: VerifiedQuote = {
    id: 'Q1',
    paperShortId: 'P1',
    paperId: 'arxiv:2401.00001',
    text: '<script>alert(1)</script> Sentence embeddings improve citation recommendation.',
    match: 'exact',
    similarity: 1,
  };
  const s: SentenceReport = {
    id: 'S1.1',
    text: 'Sentence embeddings improve citation recommendation <img src=x onerror=alert(1)> [see](javascript:alert(1)) [P1].',
    original: '',
    cited: ['P1'],
    quoteIds: ['Q1'],
    support: 1,
    verdict: 'supported',
    reasons: [],
    removedCitations: [],
    resolvedCitations: [],
    quotations: 0,
  };
  const keyOf = new Map([['P1', 'mallory2024']]);
  const { body } = renderUnits(
    {
      title: 'Embeddings <b>bold</b>',
      format: 'paragraph',
      units: [{ kind: 'paragraph', sentences: [s] }],
      keep: () => true,
      copiedSpans: [],
    },
    keyOf,
    [],
    { format: 'markdown', cite: 'cite', sectionCommand: 'subsection', tables: false, provenance: true },
    { quotes: new Map([['Q1', quote]]), keyOfPaper: new Map([['arxiv:2401.00001', 'mallory2024']]) },
  );
  assert.doesNotMatch(body, LIVE, body);
  assert.match(body, /&lt;script&gt;alert\(1\)&lt;\/script&gt; Sentence embeddings/, 'the quote is still there, as text');
  assert.match(body, /\[@mallory2024\]/, 'the citation itself is still Markdown');
});

test('Insert answer (Markdown): model prose with HTML and a javascript: link is escaped; the citation stays', () => {
  const sources = [{ n: 1, paperId: 'p1' }] as unknown as AskSource[];
  const turn = {
    kind: 'answer',
    citations: [1],
    sentences: [{ text: 'Embeddings help <script>alert(1)</script> [x](javascript:alert(1)) [1].', kept: true }],
  } as unknown as AskTurn;
  const out = answerForPaper(turn, sources, 'markdown', () => 'mallory2024')!;
  assert.doesNotMatch(out, LIVE, out);
  assert.match(out, /\[@mallory2024\]\.$/);
});
