// List and paragraph sections (issue 36.5, after Ai2 ScholarQA): a section the plan made a list comes out as an
// itemised list — LaTeX itemize, Markdown "- " after a blank line (Pandoc's rule) — every item citing its work, a
// paragraph section as prose; the text is escaped in both. The LaTeX is typeset by pdflatex to prove it valid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSentences, keptSentence } from '../../src/core/grounding/index.js';
import { renderUnits, type EmitOptions } from '../../src/core/review/emit.js';
import type { CitedPaper, PaperCandidate, SectionFormat, VerifiedQuote } from '../../src/core/review/types.js';
import { ShingleIndex } from '../../src/core/text/match.js';
import { compilePdf, noPdflatex } from '../support/pdflatex.js';

const paper = (n: number, title: string, year: number) =>
  ({
    shortId: `P${n}`,
    paper: { id: `p${n}`, title, authors: ['A. Author'], year, venue: 'SDProc', doi: null },
    score: 1,
    passages: [],
  }) as unknown as PaperCandidate;
const papers = [paper(1, 'Dense retrieval', 2020), paper(2, 'BM25 baselines', 2021), paper(3, 'Hybrid fusion', 2022)];
const quote = (n: number, text: string): VerifiedQuote => ({
  id: `Q${n}`,
  paperShortId: `P${n}`,
  paperId: `p${n}`,
  text,
  match: 'exact',
  similarity: 1,
});
const quotes = [
  quote(1, 'Dense sentence embeddings retrieve 50% more relevant sentences than keyword search on our benchmark.'),
  quote(2, 'BM25 with section_titles remains a strong baseline & is cheap to run.'),
  quote(3, 'Fusing dense and keyword rankings by reciprocal rank improves recall over either ranking alone.'),
];
const TOPIC = 'sentence retrieval for writing';
const keyOf = new Map([
  ['P1', 'author2020dense'],
  ['P2', 'author2021bm'],
  ['P3', 'author2022hybrid'],
]);
const cited = papers.map((p) => ({
  key: keyOf.get(p.shortId)!,
  shortId: p.shortId,
  paper: p.paper,
  bibtex: '',
  reused: false,
})) as CitedPaper[];

function section(text: string, format: SectionFormat, o: EmitOptions) {
  const c = checkSentences({
    index: 0,
    text,
    format,
    topic: TOPIC,
    sectionQuotes: quotes,
    allQuotes: quotes,
    papers,
    shingles: new ShingleIndex([]),
  });
  const title = format === 'list' ? 'Approaches & baselines' : 'Retrieval 100% of the time';
  const r = renderUnits({ title, format, units: c.units, keep: keptSentence('remove'), copiedSpans: [] }, keyOf, cited, o, {
    quotes: new Map(quotes.map((q) => [q.id, q])),
    keyOfPaper: new Map(papers.map((p) => [p.paper.id, keyOf.get(p.shortId)!])),
  });
  return { ...r, checked: c };
}

const LIST =
  'These approaches differ in how they use context.\n' +
  '- Dense sentence embeddings retrieve 50% more relevant sentences than keyword search [P1].\n' +
  '- BM25 over section_titles remains a strong & cheap baseline [P2].\n' +
  '- Fusing dense and keyword rankings by reciprocal rank improves recall [P3].\n' +
  '- Such methods are widely used in many writing tools.';
const PARAGRAPH =
  'Dense sentence embeddings retrieve 50% more relevant sentences than keyword search [P1], ' +
  'while BM25 over section_titles remains a strong & cheap baseline [P2].';

const latex: EmitOptions = { format: 'latex', cite: 'cite', sectionCommand: 'subsection', tables: false, provenance: false };
const markdown: EmitOptions = { ...latex, format: 'markdown' };

test('a list item that cites no paper is an uncited finding, removed; the others keep their citations', () => {
  const { checked } = section(LIST, 'list', latex);
  const items = checked.units.filter((u) => u.kind === 'item');
  assert.equal(items.length, 4);
  assert.deepEqual(
    items.map((u) => u.sentences[0].verdict),
    ['supported', 'supported', 'supported', 'unsupported'],
  );
  assert.deepEqual(items[3].sentences[0].reasons, ['a list item that cites no paper']);
  // A paragraph's uncited connective sentence stays: only items must name their work.
  assert.equal(checked.units[0].kind, 'paragraph');
  assert.equal(checked.units[0].sentences[0].verdict, 'connective');
});

test('LaTeX: a list section is an itemize whose every item cites; a paragraph section is prose; both escaped and typeset', (t) => {
  const list = section(LIST, 'list', latex).body;
  const prose = section(PARAGRAPH, 'paragraph', latex).body;
  const lines = list.split('\n');
  assert.equal(lines[0], '\\subsection{Approaches \\& baselines}');
  assert.equal(lines[1], 'These approaches differ in how they use context.');
  assert.equal(lines[2], '\\begin{itemize}');
  const items = lines.filter((l) => l.trimStart().startsWith('\\item'));
  assert.equal(items.length, 3, 'the uncited item is gone');
  for (const item of items) assert.match(item, /~\\cite\{author20\d\d[a-z]+\}\.$/, item);
  assert.equal(lines.at(-1), '\\end{itemize}');
  assert.match(list, /50\\% more/);
  assert.match(list, /section\\_titles remains a strong \\& cheap/);
  assert.doesNotMatch(prose, /itemize|\\item/);
  assert.equal(prose.split('\n').length, 2, 'a heading and one paragraph');
  assert.match(
    prose,
    /^\\subsection\{Retrieval 100\\% of the time\}\n.*50\\% more.*~\\cite\{author2020dense\}, while .*section\\_titles.*\\&.*~\\cite\{author2021bm\}\.$/,
  );
  if (noPdflatex) return t.skip(noPdflatex);
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-list-'));
  try {
    const doc = ['\\documentclass{article}', '\\begin{document}', '\\section{Related Work}', prose, '', list, '\\end{document}'];
    assert.equal(compilePdf(dir, { name: 'related', lines: doc }), true, 'pdflatex typesets the emitted sections');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Markdown: a list section is "- " items after a blank line, each citing [@key]; a paragraph section is prose; escaped', () => {
  const list = section(LIST, 'list', markdown).body;
  const prose = section(PARAGRAPH, 'paragraph', markdown).body;
  const lines = list.split('\n');
  assert.deepEqual(lines.slice(0, 3), ['### Approaches & baselines', 'These approaches differ in how they use context.', '']);
  const items = lines.slice(3);
  assert.equal(items.length, 3, 'the uncited item is gone');
  for (const item of items) assert.match(item, /^- .+ \[@author20\d\d[a-z]+\]\.$/, item);
  assert.doesNotMatch(prose, /^- /m);
  assert.match(prose, /^### Retrieval 100% of the time\n[^\n]+\[@author2020dense\], while [^\n]+\[@author2021bm\]\.$/);
  // Model text cannot open markup: brackets and angle brackets are escaped in items as in prose.
  const hostile = section(
    '- Dense sentence <b>embeddings</b> [retrieve] 50% more relevant sentences than keyword search [P1].',
    'list',
    markdown,
  ).body;
  assert.match(
    hostile,
    /^- Dense sentence &lt;b&gt;embeddings&lt;\/b&gt; \\\[retrieve\\\] 50% more relevant sentences than keyword search \[@author2020dense\]\.$/m,
    hostile,
  );
});
