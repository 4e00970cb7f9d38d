// @corpus's references: the cited sources' papers at their quotes, then the corpus papers those quotes cite (the
// chat's way to open a cited work), each paper once; a work not in the corpus gives none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AskSource } from '../../../../src/core/ask/types.js';
import { participantReferences } from '../../../../src/extension/ask/participant-references.js';

const source = (n: number, paperId: string, cites?: AskSource['cites']): AskSource => ({
  n,
  paperId,
  citationKey: null,
  title: null,
  authors: [],
  year: null,
  section: null,
  sentenceId: 100 + n,
  globalIndex: n,
  text: `quote ${n}`,
  previous: null,
  next: null,
  page: null,
  ...(cites ? { cites } : {}),
});
const inCorpus = (paperId: string) => ({ paperId, title: paperId, citationKey: null });

test('the quoting papers first, at their quotes; then the in-corpus works their quotes cite, each paper once', () => {
  const refs = participantReferences([
    source(1, 'doi:10.1/quoting', [
      { work: 'Achterberg and Haddad 2019', title: null, year: 2019, inCorpus: inCorpus('doi:10.1/cited') },
      { work: 'Nobody 2001', title: null, year: 2001, inCorpus: null },
    ]),
    source(2, 'doi:10.1/quoting'),
    source(3, 'sha256:other', [{ work: 'Quoting 2020', title: null, year: 2020, inCorpus: inCorpus('doi:10.1/quoting') }]),
  ]);
  assert.deepEqual(refs, [
    { paperId: 'doi:10.1/quoting', sentence: { id: 101, text: 'quote 1' } },
    { paperId: 'sha256:other', sentence: { id: 103, text: 'quote 3' } },
    { paperId: 'doi:10.1/cited', sentence: null },
  ]);
});

test('no cited source, no reference', () => {
  assert.deepEqual(participantReferences([]), []);
});
