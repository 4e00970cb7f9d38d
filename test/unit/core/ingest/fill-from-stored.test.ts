// A record matched to a paper stored by an earlier run (stored-work.ts fillFromStored): it is written under the stored
// id, takes the metadata it lacks from the stored paper, a model's proposal yields to the stored paper's own metadata,
// and its key is the user's own, else the stored one, never a made-up `anon…` key where a better one is known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillFromStored, retitled } from '../../../../src/core/ingest/stored-work.ts';
import type { ParsedPaper } from '../../../../src/core/ingest/types.ts';
import type { PaperRef } from '../../../../src/core/store/types.ts';
import { parsedPaper } from '../../../support/parsed-paper.ts';

function record(over: Partial<ParsedPaper> = {}): ParsedPaper {
  return parsedPaper({
    id: 'sha256:pdf-reading',
    citationKey: 'anon2024',
    sourcePath: '/papers/falk.pdf',
    sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, page: 1, text: 'Quantisation costs recall.' }],
    ...over,
  });
}

const stored: PaperRef = {
  id: 'sha256:tex-source',
  title: 'How Much Recall Does Quantisation Cost?',
  authors: ['Mira Falk', 'Jonas Berg'],
  year: 2024,
  venue: 'SIGIR',
  doi: '10.1145/123.456',
  citationKey: 'falk2024quantization',
};

test('fillFromStored: the record is written under the stored id, with its own text and source', () => {
  const paper = record({ title: 'How Much Recall Does Quantisation Cost?', authors: ['M. Falk'], year: 2024 });
  const filled = fillFromStored(paper, stored);
  assert.equal(filled.id, 'sha256:tex-source');
  assert.equal(filled.sourcePath, '/papers/falk.pdf');
  assert.equal(filled.contentHash, 'h');
  assert.deepEqual(filled.sentences, paper.sentences);
});

test("fillFromStored: fields the record lacks come from the stored paper; the record's own fields stay", () => {
  const bare = fillFromStored(record(), stored);
  assert.deepEqual(
    [bare.title, bare.authors, bare.year, bare.venue, bare.doi],
    [stored.title, stored.authors, 2024, 'SIGIR', '10.1145/123.456'],
  );
  const own = fillFromStored(
    record({ title: 'Quantisation and Recall', authors: ['M. Falk'], year: 2025, venue: 'ECIR', doi: '10.1/own' }),
    stored,
  );
  assert.deepEqual(
    [own.title, own.authors, own.year, own.venue, own.doi],
    ['Quantisation and Recall', ['M. Falk'], 2025, 'ECIR', '10.1/own'],
  );
});

test("fillFromStored: title, authors and year a model proposed yield to the stored paper's, as a set", () => {
  const proposed = record({
    title: 'Recall Under Quantisation',
    authors: ['Someone Else'],
    year: 2023,
    metadataProposedBy: 'gpt-4o-mini',
    citationKey: 'else2023recall',
  });
  const filled = fillFromStored(proposed, stored);
  assert.deepEqual([filled.title, filled.authors, filled.year], [stored.title, stored.authors, 2024]);
  assert.equal(filled.metadataProposedBy ?? null, null, 'the stored metadata is not a proposal');
  assert.equal(filled.citationKey, 'falk2024quantization', 'the key made from the proposal gives way to the stored one');
  // A stored paper without a title has nothing to yield to: the proposal stays, marked.
  const kept = fillFromStored(proposed, { ...stored, title: null, authors: [], year: null });
  assert.deepEqual([kept.title, kept.metadataProposedBy], ['Recall Under Quantisation', 'gpt-4o-mini']);
});

test('fillFromStored: a title the stored paper has from a model stays marked as proposed when the record takes it', () => {
  const proposedStored: PaperRef = { ...stored, metadataProposedBy: 'gpt-4o-mini' };
  const filled = fillFromStored(record(), proposedStored);
  assert.deepEqual([filled.title, filled.metadataProposedBy], [stored.title, 'gpt-4o-mini']);
  // The record's own proposal yields to the stored one, which keeps its own model's mark.
  const both = fillFromStored(record({ title: 'Recall Under Quantisation', metadataProposedBy: 'llama3' }), proposedStored);
  assert.deepEqual([both.title, both.metadataProposedBy], [stored.title, 'gpt-4o-mini']);
  // A real title of the record's own is not marked.
  const real = fillFromStored(record({ title: 'Quantisation and Recall' }), proposedStored);
  assert.deepEqual([real.title, real.metadataProposedBy ?? null], ['Quantisation and Recall', null]);
});

test('fillFromStored: the stored key replaces a made-up anon… key (its BibTeX under that key); a record with no key at all gets one', () => {
  const filled = fillFromStored(record({ citationKey: 'anon2024', bibtex: '@misc{anon2024, title={x}}' }), stored);
  assert.equal(filled.citationKey, 'falk2024quantization');
  assert.match(filled.bibtex!, /^@\w+\{falk2024quantization,/);
  assert.match(filled.bibtex!, /How Much Recall Does Quantisation Cost\?/);
  // The stored paper's key is itself made up: one is made from the filled metadata instead.
  const made = fillFromStored(record({ citationKey: null }), { ...stored, citationKey: 'anon2024b' });
  assert.match(made.citationKey!, /^falk2024/);
  assert.match(made.bibtex!, new RegExp(`^@\\w+\\{${made.citationKey},`));
});

test("fillFromStored: the user's own key (a .bib entry's, a Zotero item's) is kept, and so is a real key of the record's", () => {
  const bib = '@article{mine, title={How Much Recall Does Quantisation Cost?}}';
  const own = fillFromStored(record({ citationKey: 'mine', ownKey: true, bibtex: bib }), stored);
  assert.deepEqual([own.citationKey, own.bibtex], ['mine', bib]);
  const real = fillFromStored(record({ citationKey: 'falk2024recall' }), stored);
  assert.equal(real.citationKey, 'falk2024recall');
});

test("fillFromStored: a title the reader made up (a LaTeX file's first heading) yields to the stored paper's, and its key is made again", () => {
  const tex = record({
    title: 'Introduction',
    titleFallback: 'its first heading',
    authors: ['Mira Falk'],
    year: 2024,
    citationKey: 'falk2024introduction',
  });
  const filled = fillFromStored(tex, stored);
  assert.deepEqual([filled.title, filled.titleFallback], [stored.title, null]);
  assert.equal(filled.citationKey, 'falk2024quantization');
  assert.deepEqual(filled.authors, ['Mira Falk'], 'its own authors stay');
  // A stored paper without a title: the made-up one stays, marked.
  const alone = fillFromStored(tex, { ...stored, title: null, citationKey: null });
  assert.deepEqual([alone.title, alone.titleFallback], ['Introduction', 'its first heading']);
});

/** A LaTeX source without \title stored by an earlier run: named by its first heading, marked as made up from it. */
const madeUp: PaperRef = {
  ...stored,
  title: 'Introduction',
  doi: null,
  citationKey: 'falk2024introduction',
  metadataProposedBy: 'its first heading',
};

test("fillFromStored: a stored title the reader made up yields to the record's real title or a model's proposal, and is taken marked as made up", () => {
  const pdf = fillFromStored(record({ title: 'How Much Recall Does Quantisation Cost?', citationKey: 'falk2024much' }), madeUp);
  assert.deepEqual([pdf.title, pdf.titleFallback, pdf.metadataProposedBy], ['How Much Recall Does Quantisation Cost?', null, null]);
  const proposed = fillFromStored(record({ title: 'Recall under Quantisation', metadataProposedBy: 'gpt-4o-mini' }), madeUp);
  assert.deepEqual(
    [proposed.title, proposed.metadataProposedBy],
    ['Recall under Quantisation', 'gpt-4o-mini'],
    'a proposal beats a heading',
  );
  const untitled = fillFromStored(record(), madeUp);
  assert.deepEqual([untitled.title, untitled.titleFallback, untitled.metadataProposedBy], ['Introduction', 'its first heading', null]);
});

test('retitled: a stored made-up title takes the real one, with a key and BibTeX made again from it; a user key stays', () => {
  const title = 'How Much Recall Does Quantisation Cost?';
  const pdf = fillFromStored(record({ title, citationKey: 'falk2024much' }), madeUp);
  const meta = retitled(madeUp, pdf)!;
  assert.deepEqual([meta.title, meta.authors, meta.year, meta.metadataProposedBy], [title, madeUp.authors, 2024, null]);
  assert.equal(meta.citationKey, 'falk2024much', 'made from the real title (the stored key was made from the heading)');
  assert.match(meta.bibtex!, /^@\w+\{falk2024much,[\s\S]*title = \{\{How Much Recall/);
  // The user's key (not the one the heading made): it stays, and so does its entry.
  const userKey = retitled({ ...madeUp, citationKey: 'Falk:2024pq' }, pdf)!;
  assert.deepEqual([userKey.title, userKey.citationKey, userKey.bibtex], [title, 'Falk:2024pq', undefined]);
  // A .bib entry of the user's brings the title: its key and entry are taken.
  const entry = '@article{Falk:2024pq, title={How Much Recall Does Quantisation Cost?}}';
  const bib = fillFromStored(record({ title, citationKey: 'Falk:2024pq', ownKey: true, bibtex: entry }), madeUp);
  assert.deepEqual([retitled(madeUp, bib)!.citationKey, retitled(madeUp, bib)!.bibtex], ['Falk:2024pq', entry]);
  // Nothing to take: a real stored title, or a record with no real title of its own.
  assert.equal(retitled(stored, fillFromStored(record({ title }), stored)), null);
  assert.equal(retitled(madeUp, fillFromStored(record(), madeUp)), null);
});
