// Which papers citation completion offers, under which key, once each: the .bib's entries, the Zotero items the .bib
// lacks, the corpus papers neither holds; and the ranking's order kept (best support first, .bib or not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BibIndex } from '../../src/core/bib/bib-index.ts';
import type { PaperCatalogLike } from '../../src/core/cite-check/types.ts';
import type { ZoteroItem } from '../../src/core/sources/zotero/index.ts';
import type { PaperRef } from '../../src/core/store/types.ts';
import { offeredPapers } from '../../src/extension/cite-check/offers.ts';

const BIB = `@article{smith2020, title = {Chains of Affection}, author = {Smith, Ann}, year = {2020}, doi = {10.1086/386272}}
@misc{notes2019, title = {Lab Notes on Sentence Retrieval}, author = {Lee, Bo}, year = {2019}}`;

const paper = (id: string, title: string, extra: Partial<PaperRef> = {}): PaperRef => ({
  id,
  title,
  authors: ['A B'],
  year: 2021,
  venue: null,
  doi: null,
  citationKey: null,
  ...extra,
});
const CORPUS = [
  paper('doi:10.1086/386272', 'Chains of Affection', { doi: '10.1086/386272' }), // in the .bib by DOI
  paper('sha256:aa', 'Tuning HNSW Graph Parameters', { citationKey: 'mwangi2022' }), // in Zotero by key
  paper('sha256:bb', 'Sentence Segmentation for Scholarly Text', { citationKey: 'lindahl2024' }), // corpus only
];
const catalog: PaperCatalogLike = {
  papers: () => CORPUS,
  resolve: (cite) => CORPUS.find((p) => p.id === cite || p.citationKey === cite || (p.doi && `doi:${p.doi}` === cite)) ?? null,
};
const zot = (citationKey: string, title: string, doi: string | null = null) =>
  ({ citationKey, title, authors: ['Z Z'], year: 2022, doi, arxivId: null }) as unknown as ZoteroItem;
const ZOTERO = [
  zot('mwangi2022', 'Tuning HNSW Graph Parameters'),
  zot('bearman2004', 'Chains of Affection', '10.1086/386272'),
  zot('shannon1948', 'A Mathematical Theory of Communication'),
];

test('every paper once: .bib keys, then Zotero items the .bib lacks, then corpus papers neither holds', async () => {
  const bib = await BibIndex.read(BIB);
  const offered = offeredPapers(bib, catalog, ZOTERO);
  assert.deepEqual(
    offered.map((o) => [o.key, o.source, o.paperId ?? null]),
    [
      ['smith2020', 'bib', null], // the ranking resolves it to the corpus paper through the catalog (by its DOI)
      ['notes2019', 'bib', null],
      ['mwangi2022', 'zotero', 'sha256:aa'], // the corpus has it too: offered once, under its Zotero key
      ['shannon1948', 'zotero', null],
      ['sha256:bb', 'corpus', 'sha256:bb'], // its key is planned as Cite plans it
    ],
  );
  assert.ok(!offered.some((o) => o.key === 'bearman2004'), 'a Zotero item whose DOI the .bib has is its .bib entry');
});

test('keys already in the citation are not offered again; without a corpus, the .bib and Zotero still are', async () => {
  const bib = await BibIndex.read(BIB);
  assert.deepEqual(
    offeredPapers(bib, catalog, [], ['smith2020', 'lindahl2024']).map((o) => o.key),
    ['notes2019', 'sha256:aa'],
  );
  assert.deepEqual(
    offeredPapers(bib, null, ZOTERO).map((o) => o.key),
    ['smith2020', 'notes2019', 'mwangi2022', 'shannon1948'],
  );
});
