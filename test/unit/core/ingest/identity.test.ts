// One paper per work, in memory: which records are the same work, which text and fields win, which key stays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conflicting, mergeWork, textRank, titleKey, WorkIndex } from '../../../../src/core/ingest/identity.ts';
import { parsedPaper as paper } from '../../../support/parsed-paper.ts';

/** Forty sentences about sentence retrieval, distinct enough to fingerprint. */
const BODY = Array.from(
  { length: 40 },
  (_, i) =>
    `Retrieval experiment ${i} measured how sentence embeddings of kind ${i * 3} rank the ${['first', 'second', 'third', 'fourth'][i % 4]} candidates for writers.`,
);

test('text ranks: LaTeX and Markdown sources > arXiv HTML > PDF > Zotero full-text cache > .bib / metadata', () => {
  const order = [
    '/p/paper.tex',
    'https://arxiv.org/html/2501.00001v1',
    '/p/paper.pdf',
    '/z/storage/AB12/.zotero-ft-cache',
    '/p/refs.bib',
  ].map((s) => textRank(s.startsWith('http') ? { source: s } : { sourcePath: s }));
  assert.deepEqual(
    order,
    [...order].sort((a, b) => b - a),
  );
  assert.equal(new Set(order).size, 5);
  assert.equal(textRank({ source: 'metadata:openalex' }), 1);
});

test('the same work by DOI, by arXiv id, by title + first author + year, and by content; different works stay apart', () => {
  const index = new WorkIndex();
  const tex = paper({
    title: 'Sentence Retrieval for Writers',
    authors: ['Ada Lovelace', 'Alan Turing'],
    year: 2024,
    texts: BODY,
    sourcePath: '/p/paper.tex',
  });
  index.add(tex);
  // Its PDF: the text with a running header, a hyphenation difference, no metadata at all.
  const pdf = paper({
    texts: ['Preprint, under review.', ...BODY.map((s, i) => (i % 9 === 0 ? s.replace('embeddings', 'embed- dings') : s))],
    sourcePath: '/p/paper.pdf',
  });
  assert.equal(index.find(pdf)?.paper, tex);
  assert.equal(
    index.find(paper({ title: 'Sentence retrieval for writers!', authors: ['Lovelace, Ada'], year: 2024 }))?.paper,
    tex,
    'title key',
  );
  assert.equal(titleKey({ title: 'X', authors: [], year: 2024 }), null, 'no key without an author');
  const withDoi = paper({ doi: 'https://doi.org/10.1000/ABC', texts: ['Another text entirely.'] });
  index.add(withDoi);
  assert.equal(index.find(paper({ doi: '10.1000/abc' }))?.paper, withDoi);
  index.addStored('arxiv:2501.00001');
  assert.equal(index.find(paper({ arxivId: 'arXiv:2501.00001v2' }))?.id, 'arxiv:2501.00001');
  // Same template, other facts (as generated test papers are): not the same work.
  const other = paper({
    texts: BODY.map((s) => s.replace(/experiment (\d+)/, 'trial $1').replace(/kind (\d+)/, (_, n) => `kind ${Number(n) + 1}`)),
  });
  assert.equal(index.find(other), undefined);
  assert.equal(index.find(paper({ title: 'Sentence Retrieval for Writers', authors: ['Someone Else'], year: 2024 })), undefined);
  // Papers generated from one template differ only in a number: the same text, but other titles and years.
  const generated = (n: number) => paper({ title: `Generated Paper ${n}`, year: 2000 + n, texts: BODY.map((s) => `Paper ${n}: ${s}`) });
  const g = new WorkIndex();
  g.add(generated(1));
  assert.equal(g.find(generated(21)), undefined);
  assert.equal(g.find({ ...generated(21), year: 2001 }), undefined, 'a title is held by another only word for word');
  assert.equal(
    g.find({ ...generated(21), title: null, year: null })?.paper?.title,
    'Generated Paper 1',
    'without metadata the text decides',
  );
});

test("merging: the better text, fields filled from either, the user's own key and entry, the DOI as id", () => {
  const pdf = paper({
    id: 'doi:10.1000/abc',
    title: 'Sentence Retrieval for Writers',
    doi: '10.1000/abc',
    venue: 'JWR',
    year: 2024,
    texts: BODY.slice(0, 10),
    sourcePath: '/p/paper.pdf',
    citationKey: 'anon2024sentence',
  });
  const tex = paper({
    title: 'Sentence Retrieval for Writers',
    authors: ['Ada Lovelace'],
    texts: BODY,
    sourcePath: '/p/paper.tex',
    citationKey: 'lovelace2024sentence',
  });
  const merged = mergeWork(pdf, tex);
  assert.equal(merged.sourcePath, '/p/paper.tex');
  assert.equal(merged.sentences.length, 40);
  assert.deepEqual([merged.id, merged.doi, merged.venue, merged.year], ['doi:10.1000/abc', '10.1000/abc', 'JWR', 2024]);
  assert.deepEqual(merged.authors, ['Ada Lovelace']);
  assert.match(merged.citationKey!, /^lovelace2024/, 'a made-up key is made again from the merged metadata, never anon…');
  const bib = paper({
    title: 'Sentence Retrieval for Writers',
    sourcePath: '/p/refs.bib',
    citationKey: 'Lovelace:2024sr',
    ownKey: true,
    bibtex: '@article{Lovelace:2024sr, title={Sentence Retrieval for Writers}}',
    texts: BODY.slice(0, 2),
  });
  const withKey = mergeWork(merged, bib);
  assert.equal(withKey.citationKey, 'Lovelace:2024sr');
  assert.equal(withKey.bibtex, bib.bibtex);
  assert.equal(withKey.sourcePath, '/p/paper.tex', 'the .bib gives its key, not its text');
});

test('mergeWork: title, authors and year a model proposed yield to a record that has its own, even one with less text', () => {
  const pdf = paper({
    title: 'Retrieval Experiments',
    authors: ['Ada Lovelace'],
    year: 2023,
    metadataProposedBy: 'gpt-4o-mini',
    sourcePath: '/p/paper.pdf',
    citationKey: 'lovelace2023retrieval',
    texts: BODY,
  });
  const bib = paper({
    title: 'Sentence Retrieval for Writers',
    authors: ['Ada Lovelace', 'Alan Turing'],
    year: 2024,
    sourcePath: '/p/refs.bib',
    texts: BODY.slice(0, 2),
  });
  for (const merged of [mergeWork(pdf, bib), mergeWork(bib, pdf)]) {
    assert.equal(merged.sourcePath, '/p/paper.pdf', "the PDF's text is kept");
    assert.deepEqual(
      [merged.title, merged.authors, merged.year],
      ['Sentence Retrieval for Writers', ['Ada Lovelace', 'Alan Turing'], 2024],
    );
    assert.equal(merged.metadataProposedBy, null, 'no longer marked as proposed');
    assert.match(merged.citationKey!, /^lovelace2024/);
  }
  // Two records without a title of their own: the proposal stays, marked.
  const untitled = mergeWork(pdf, paper({ sourcePath: '/p/refs.bib', texts: BODY.slice(0, 2) }));
  assert.deepEqual([untitled.title, untitled.metadataProposedBy], ['Retrieval Experiments', 'gpt-4o-mini']);
});

test('a title a reader made up (a LaTeX file without \\title, named by its first heading) neither keeps a work apart nor wins', () => {
  const tex = paper({
    title: 'Introduction',
    titleFallback: 'its first heading',
    authors: ['Ada Lovelace'],
    year: 2024,
    sourcePath: '/p/paper.tex',
    citationKey: 'lovelace2024introduction',
    texts: BODY,
  });
  const pdf = paper({
    title: 'Sentence Retrieval for Writers',
    authors: ['Ada Lovelace'],
    year: 2024,
    sourcePath: '/p/paper.pdf',
    texts: BODY,
  });
  assert.equal(conflicting(tex, pdf), false);
  assert.equal(conflicting({ ...tex, titleFallback: null }, pdf), true, 'a real title that differs still keeps works apart');
  assert.equal(titleKey(tex), null, 'not matched by its made-up title');
  const index = new WorkIndex();
  index.add(pdf);
  assert.equal(index.find(tex)?.paper, pdf, 'found by its text');
  for (const merged of [mergeWork(tex, pdf), mergeWork(pdf, tex)]) {
    assert.equal(merged.sourcePath, '/p/paper.tex', 'the LaTeX text');
    assert.deepEqual([merged.title, merged.titleFallback], ['Sentence Retrieval for Writers', null]);
    assert.match(merged.citationKey!, /^lovelace2024sentence/);
  }
  // A model's proposal is still a better name than a heading; it stays marked.
  const proposed = mergeWork(tex, { ...pdf, metadataProposedBy: 'gpt-4o-mini' });
  assert.deepEqual([proposed.title, proposed.metadataProposedBy], ['Sentence Retrieval for Writers', 'gpt-4o-mini']);
  // With no other title the made-up one stays, still marked as such.
  const alone = mergeWork(tex, { ...pdf, title: null });
  assert.deepEqual([alone.title, alone.titleFallback], ['Introduction', 'its first heading']);
});
