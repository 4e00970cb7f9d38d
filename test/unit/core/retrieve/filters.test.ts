// The panel's filters as lookup options: the paper filter names papers the way a person knows them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { filterOptions, hasFilters, papersNamed } from '../../../../src/core/retrieve/filters.js';
import type { PaperRef } from '../../../../src/core/store/types.js';

const paper = (id: string, title: string, citationKey: string | null = null): PaperRef => ({
  id,
  title,
  authors: [],
  year: 2020,
  venue: null,
  doi: null,
  citationKey,
});
const store = {
  listPapers: async () => [
    paper('p1', 'Hybrid Sparse–Dense Retrieval for Sentences', 'sorensen2020hybrid'),
    paper('p2', 'Dense retrieval of scientific sentences'),
    paper('hybrid', 'A paper whose id is a word'),
  ],
};

test('a citation key or id names its paper exactly (any case); else title words name every paper holding them', async () => {
  assert.deepEqual(await papersNamed(store, 'Sorensen2020Hybrid'), ['p1']);
  assert.deepEqual(await papersNamed(store, ' p2 '), ['p2']);
  assert.deepEqual(await papersNamed(store, 'hybrid'), ['hybrid'], 'an exact id wins over title words');
  assert.deepEqual(await papersNamed(store, 'scientific sentences'), ['p2']);
  assert.deepEqual(await papersNamed(store, 'retrieval'), ['p1', 'p2']);
  assert.deepEqual(await papersNamed(store, 'no such paper'), [], 'none named: no hits, not "no filter"');
  assert.deepEqual(await papersNamed({}, ' p9 '), ['p9'], 'a store that cannot list papers takes an id');
});

test('filterOptions: years as a range, blank texts as no filter', async () => {
  assert.deepEqual(await filterOptions(store, {}), { years: undefined, venue: undefined, section: undefined, paperIds: undefined });
  assert.deepEqual(await filterOptions(store, { yearMin: 2019, venue: ' ACL ', section: '  ', paper: 'sorensen2020hybrid' }), {
    years: { min: 2019, max: undefined },
    venue: 'ACL',
    section: undefined,
    paperIds: ['p1'],
  });
  assert.equal(hasFilters({ venue: ' ' }), false);
  assert.equal(hasFilters({ yearMax: 2020 }), true);
});
