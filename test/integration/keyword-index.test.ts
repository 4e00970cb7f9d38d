// The embedded corpus's in-memory keyword index (src/core/store/sql/keyword-index.ts) against the SQL it replaces in a
// hybrid lookup: its tsvector parser against PostgreSQL's own unnest, its ranking against bm25_sentences' on a corpus
// with rare and common terms (so that the candidate budget, the common-term rule and both stages all act), the hybrid
// lookup's hits with it and without it, and what happens after a write (the old index is never used) and for
// web-search syntax (SQL ranks). The same check on the Citation-Integrity corpus is in retrieval-eval.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mulberry32 } from '../../src/core/random.js';
import { parseTsvector } from '../../src/core/store/sql/keyword-index.js';
import { pgliteStore } from '../../src/core/store/backends/pglite.js';
import { toHit } from '../../src/core/store/rows.js';
import { hybridStatement, QUERY_LEXEMES_SQL } from '../../src/core/store/sql/ranking.js';
import { vectorIndex } from '../../src/core/store/sql/vector.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import { hybridTuning, type Hit } from '../../src/core/store/types.js';
import { DIM, MODEL } from '../support/db-contract.js';
import { hashEmbed } from '../support/db-embedder.js';
import { freshPGlite } from '../support/db-pglite.js';
import { papers, sentence, WORDS } from '../support/zipf-corpus.js';

describe('the in-memory keyword index of an embedded corpus', () => {
  let store: SqlCorpusStore;
  const u = mulberry32(7);
  const queries = Array.from({ length: 80 }, () => sentence(u));

  before(async () => {
    store = pgliteStore(await freshPGlite(), { ownsDatabase: true });
    await store.init({ model: MODEL, dimensions: DIM });
    await store.writePapers(papers(u));
  });

  after(() => store?.close());

  const sqlRanking = async (text: string, count: number) =>
    (await store.driver.query(`SELECT id FROM bm25_sentences($1, $2)`, [text, count])).rows.map((r) => Number(r.id));
  const lexemes = async (text: string) => (await store.driver.query(QUERY_LEXEMES_SQL, [text])).rows[0].lexemes as string[];
  /** The statements the store sends while fn runs. */
  async function statements(fn: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    const lookup = store.driver.lookup.bind(store.driver);
    store.driver.lookup = (sql, ...rest) => {
      seen.push(sql);
      return lookup(sql, ...rest);
    };
    try {
      await fn();
    } finally {
      store.driver.lookup = lookup;
    }
    return seen;
  }

  test('reads tsvectors as PostgreSQL unnests them (quotes, backslashes, accents, weights, many positions)', async () => {
    // Written as tsvector input, since the english parser never yields a lexeme with a quote or a backslash.
    const input = `'it''s':1,5 'back\\\\slash':2A 'naïve':3,4,6B 'ωmega':7 '''quoted''':8 'plain'`;
    const { rows } = await store.driver.query(
      `SELECT $1::tsvector::text AS t, (SELECT jsonb_agg(jsonb_build_array(lexeme, coalesce(array_length(positions, 1), 0))
         ORDER BY lexeme) FROM unnest($1::tsvector)) AS want`,
      [input],
    );
    const got: [string, number][] = [];
    parseTsvector(String(rows[0].t), (lexeme, tf) => got.push([lexeme, tf]));
    assert.ok(got.some(([l]) => l === "it's") && got.some(([l]) => l === 'back\\slash'), String(rows[0].t));
    assert.deepEqual(got, rows[0].want);
  });

  test('ranks as bm25_sentences does: the same 100 ids in the same order, for 80 queries', async () => {
    const index = await store.keywordIndex();
    assert.ok(index, 'an embedded corpus loads one');
    assert.equal(index.size, 3600);
    // Terms past the 2 % common-term share, and past the 2,000-sentence candidate budget on their own.
    const { rows } = await store.driver.query(`SELECT count(*) FILTER (WHERE df > 72)::int AS common, max(df)::int AS top FROM term_stats`);
    assert.ok(Number(rows[0].common) >= 10 && Number(rows[0].top) > 2000, JSON.stringify(rows[0]));
    // Queries of common words only: the rarest selects, the budget stops the others.
    const commonOnly = Array.from({ length: 10 }, (_, i) => [0, 1, 2, 3, 4].map((k) => WORDS[(k * 7 + i) % 12]).join(' '));
    let full = 0;
    for (const q of [...queries, ...commonOnly]) {
      const want = await sqlRanking(q, 100);
      assert.deepEqual(index.rank(await lexemes(q), 100), want, q);
      if (want.length === 100) full++;
    }
    assert.ok(full > 60, `most queries have 100 candidates to rank (${full})`);
  });

  test('a hybrid lookup ranks keywords in memory once the index is loaded, with the same hits as in SQL', async () => {
    await store.keywordIndex();
    const t = hybridTuning({ count: 25 });
    const inSql = hybridStatement(25, t.candidates, vectorIndex(DIM, 'float32'));
    for (const q of queries.slice(0, 20)) {
      const vector = hashEmbed(q, DIM);
      // Each hit's id with its fused score and similarity: the given ranking and places give the same doubles.
      const key = (h: Hit) => `${h.sentence.id} ${h.score} ${h.similarity}`;
      let hits: string[] = [];
      const sent = await statements(async () => (hits = (await store.matchHybrid(vector, q, { count: 25 })).map(key)));
      assert.ok(
        sent.some((sql) => /unnest\(\$2::bigint\[\], \$\d::text\[\], \$\d::int\[\]\)/.test(sql)),
        'the ranking was given, with its papers and sections',
      );
      assert.ok(!sent.some((sql) => sql.includes('bm25_sentences')), 'no SQL ranking');
      const want = await store.driver.lookup(inSql, vector, [q, 0, t.rrfK, t.sectionWeight, t.perSection]);
      assert.equal(hits.length, 25);
      assert.deepEqual(
        hits,
        want.map((r) => key(toHit(r))),
        q,
      );
    }
  });

  test('web-search syntax is ranked in SQL', async () => {
    await store.keywordIndex();
    const q = `"${WORDS[40]} ${WORDS[41]}" -${WORDS[2]}`;
    const sent = await statements(() => store.matchHybrid(hashEmbed(q, DIM), q, { count: 25 }));
    assert.ok(
      sent.some((sql) => sql.includes('bm25_sentences')),
      'SQL ranks it',
    );
  });

  test('after a write the old index is never used; the next load has the new paper', async () => {
    const before = await store.keywordIndex();
    const fresh = papers(mulberry32(99), 'new', 1);
    fresh[0].sentences[0].text = 'Zyxwvut quokkas graze beside the estuary.';
    fresh[0].sentences[0].embedding = hashEmbed(fresh[0].sentences[0].text, DIM);
    await store.writePapers(fresh);
    const q = 'zyxwvut quokkas';
    const sent = await statements(() => store.matchHybrid(hashEmbed(q, DIM), q, { count: 5 }));
    assert.ok(
      sent.some((sql) => sql.includes('bm25_sentences')),
      'SQL ranks until the index is loaded again',
    );
    const after = await store.keywordIndex();
    assert.notEqual(after, before);
    assert.equal(after?.size, 3630);
    const top = await store.driver.query(`SELECT text FROM sentences WHERE id = $1`, [after!.rank(await lexemes(q), 1)[0]]);
    assert.equal(top.rows[0].text, 'Zyxwvut quokkas graze beside the estuary.');
  });

  test('an index loaded while a write runs is dropped: it may hold half the write', async () => {
    const size = (await store.keywordIndex())!.size;
    const writing = store.writePapers(papers(mulberry32(5), 'during', 2));
    const during = store.keywordIndex();
    await writing;
    assert.equal(await during, undefined);
    assert.equal((await store.keywordIndex())?.size, size + 60);
  });

  test('a store opened for a long-lived process loads it on its first hybrid lookup, by itself', async () => {
    const auto = pgliteStore(await freshPGlite(), { ownsDatabase: true, keywordIndex: true });
    try {
      await auto.init({ model: MODEL, dimensions: DIM });
      await auto.writePapers(papers(mulberry32(7), 'p', 10));
      const q = queries[0];
      const inSql = await auto.matchHybrid(hashEmbed(q, DIM), q, { count: 5 });
      const index = await auto.keywordIndex(); // the load the lookup started
      assert.equal(index?.size, 300);
      assert.equal(await auto.loadKeywordIndex(), 300, 'what the corpus process answers a bench waiting for it');
      const names: string[] = [];
      const lookup = auto.driver.lookup.bind(auto.driver);
      auto.driver.lookup = (sql, vector, params, prepareAs) => {
        names.push(prepareAs ?? '');
        return lookup(sql, vector, params, prepareAs);
      };
      const memory = await auto.matchHybrid(hashEmbed(q, DIM), q, { count: 5 });
      assert.ok(names.includes('corpus_lens_query_lexemes'), 'the query lexemes come from the prepared statement');
      assert.ok(
        names.some((n) => n.startsWith('corpus_lens_hybrid_given_')),
        names.join(),
      );
      assert.deepEqual(memory, inSql);
    } finally {
      await auto.close();
    }
  });
});
