// The store contract, run against every backend (PGlite, `pg` on a real PostgreSQL 15 + pgvector server,
// supabase-js over the PostgREST stand-in on PGlite and on the real server, and the CorpusStudio schema on both):
// hits and order, context at section boundaries, offset, threshold, filters, model/dimension refusal, one lookup =
// one round trip, re-import adds nothing. Each run prints how many contract tests passed on its backend.
import assert from 'node:assert/strict';
import { after, test as nodeTest } from 'node:test';
import { hybridSearch, keywordSearch, match, type QueryEmbedding } from '../../src/core/retrieve/index.js';
import type { CorpusStore, Hit } from '../../src/core/store/types.js';
import { hashEmbed } from './db-embedder.js';
import { fixtureRows } from './db-fixture.js';

export const DIM = 64;
export const MODEL = `test-hash-${DIM}`;

export function q(text: string, model = MODEL, dims = DIM): QueryEmbedding {
  return { model, vector: hashEmbed(text, dims) };
}

export interface ContractTarget {
  store: () => CorpusStore;
  /** Round trips (statements / HTTP requests) made so far. */
  roundTrips: () => number;
  /** Re-imports the fixture; returns sentences added (0 expected). Omitted for read-only schemas. */
  reimport?: () => Promise<number>;
  /** Whether keyword and hybrid modes exist on this schema. */
  keyword: boolean;
  /** Requests per vector lookup (1; the CorpusStudio schema on Supabase: 3, two of them concurrent). */
  tripsPerLookup?: number;
  /** Whether sectionTitles() is served (the CorpusStudio schema on Supabase: no, a clear StoreError). */
  sections?: boolean;
  /** The backend's name in the printed count ("pglite", "postgres 15 (real server)", …). */
  backend?: string;
}

const { documents } = fixtureRows();

function sectionOf(h: { paperId: string; globalIndex: number }) {
  const d = documents.find((r) => r.doc_id === h.paperId && r.global_index === h.globalIndex)!;
  return d.section_title;
}

function assertContext(h: Hit) {
  for (const n of [h.previous, h.next]) {
    if (!n) continue;
    assert.equal(n.paperId, h.sentence.paperId, 'neighbour from another paper');
    assert.equal(sectionOf(n), sectionOf(h.sentence), 'neighbour from another section');
  }
  if (h.previous) assert.equal(h.previous.sentenceIndex, h.sentence.sentenceIndex - 1);
  else assert.equal(h.sentence.sentenceIndex, 0, 'previous is null only at the first sentence of a section');
  const last = Math.max(
    ...documents
      .filter((d) => d.doc_id === h.sentence.paperId && d.section_title === sectionOf(h.sentence))
      .map((d) => d.sentence_index),
  );
  if (h.next) assert.equal(h.next.sentenceIndex, h.sentence.sentenceIndex + 1);
  else assert.equal(h.sentence.sentenceIndex, last, 'next is null only at the last sentence of a section');
}

export function storeContract(t: ContractTarget): void {
  let registered = 0;
  let passed = 0;
  const test = (name: string, fn: () => Promise<void>) => {
    registered++;
    nodeTest(name, async () => {
      await fn();
      passed++;
    });
  };
  after(() => {
    // One line per backend, in the test output, so a CI log shows the suite really ran on each.
    console.log(`store contract on ${t.backend ?? 'unnamed backend'}: ${passed}/${registered} tests passed`);
  });
  test('the best hit is the sentence itself, with its paper and in-section context', async () => {
    const hits = await match(t.store(), q('Sentence embeddings map similar sentences to nearby vectors.'), { k: 5 });
    assert.ok(hits.length >= 3);
    const top = hits[0];
    assert.equal(top.sentence.text, 'Sentence embeddings map similar sentences to nearby vectors.');
    assert.ok(Math.abs(top.similarity - 1) < 1e-4, `similarity ${top.similarity}`);
    assert.equal(top.sentence.paperId, 'p1');
    assert.equal(top.sentence.sectionTitle, 'Introduction');
    assert.equal(top.sentence.sectionNumber, '1');
    assert.equal(top.sentence.sentenceIndex, 1);
    assert.equal(top.sentence.globalIndex, 1);
    assert.equal(top.previous?.text, 'Writing a related work section takes authors many hours of reading.');
    assert.equal(top.next?.text, 'We retrieve sentences from prior papers that phrase an idea similarly.');
    assert.equal(top.paper.title, 'Dense retrieval of scientific sentences');
    assert.deepEqual(top.paper.authors, ['Ada Lovelace', 'Alan Turing']);
    assert.equal(top.paper.year, 2019);
    assert.equal(top.paper.venue, 'ACL');
    assert.equal(top.paper.doi, '10.1000/p1');
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].similarity >= hits[i].similarity, 'best first');
    hits.forEach(assertContext);
  });

  test('context stops at section boundaries and never crosses papers', async () => {
    // First sentence of p1's Method section: previous is null (not the last Introduction sentence).
    const [first] = await match(t.store(), q('We encode every corpus sentence with a transformer encoder.'), { k: 1 });
    assert.equal(first.sentence.globalIndex, 3);
    assert.equal(first.previous, null);
    assert.equal(first.next?.text, 'Cosine similarity ranks the candidate sentences.');
    // Last sentence of p1's Introduction: next is null (not the first Method sentence).
    const [last] = await match(t.store(), q('We retrieve sentences from prior papers that phrase an idea similarly.'), { k: 1 });
    assert.equal(last.next, null);
    assert.equal(last.previous?.sentenceIndex, 1);
    const all = await match(t.store(), q('sentences retrieval writing authors'), { k: 50, dedupe: false });
    assert.ok(all.length >= 10);
    all.forEach(assertContext);
  });

  test('offset 1 returns the following sentence; matches at the end of a section are dropped', async () => {
    const text = 'Sentence embeddings map similar sentences to nearby vectors.';
    const [h] = await match(t.store(), q(text), { k: 1, offset: 1 });
    assert.equal(h.sentence.text, 'We retrieve sentences from prior papers that phrase an idea similarly.');
    assert.equal(h.previous?.text, text);
    assert.equal(h.next, null);
    const dropped = await match(t.store(), q('We retrieve sentences from prior papers that phrase an idea similarly.'), {
      k: 1,
      offset: 1,
      dedupe: false,
    });
    assert.deepEqual(dropped, [], 'the match is the last sentence of its section');
    const many = await match(t.store(), q('sentences retrieval writing authors'), { k: 50, offset: 1, dedupe: false });
    assert.ok(many.length > 0 && many.length < 16);
    many.forEach(assertContext);
  });

  test('threshold keeps only hits at least that similar', async () => {
    const all = await match(t.store(), q('Cosine similarity ranks the candidate sentences.'), { k: 20, dedupe: false });
    const some = await match(t.store(), q('Cosine similarity ranks the candidate sentences.'), {
      k: 20,
      threshold: 0.5,
      dedupe: false,
    });
    assert.ok(some.length >= 2 && some.length < all.length, `${some.length} of ${all.length}`);
    for (const h of some) assert.ok(h.similarity >= 0.5);
  });

  test('identical texts in two papers are deduplicated, keeping the best', async () => {
    const raw = await match(t.store(), q('Cosine similarity ranks the candidate sentences.'), { k: 5, dedupe: false });
    assert.equal(raw[0].sentence.text, raw[1].sentence.text);
    const deduped = await match(t.store(), q('Cosine similarity ranks the candidate sentences.'), { k: 5 });
    assert.equal(deduped.filter((h) => h.sentence.text === raw[0].sentence.text).length, 1);
    assert.equal(deduped.length, 5);
  });

  test('year and paper filters', async () => {
    const recent = await match(t.store(), q('sentences retrieval writing authors'), { k: 25, years: { min: 2021 } });
    assert.ok(recent.length > 0);
    for (const h of recent) assert.ok(h.paper.year! >= 2021);
    const range = await match(t.store(), q('sentences retrieval writing authors'), { k: 25, years: { min: 2020, max: 2022 } });
    assert.ok(range.length > 0);
    for (const h of range) assert.equal(h.paper.year, 2021);
    const p3 = await match(t.store(), q('sentences retrieval writing authors'), { k: 25, paperIds: ['p3'] });
    assert.equal(p3.length, 3);
    for (const h of p3) assert.equal(h.sentence.paperId, 'p3');
  });

  test('a query from another model or dimension is refused, naming both', async () => {
    await assert.rejects(match(t.store(), q('x y', 'other-model')), (err: Error) => {
      assert.match(err.message, /other-model \(64-d\)/);
      if (t.reimport) assert.match(err.message, new RegExp(`corpus was built with ${MODEL} \\(64-d\\)`));
      return true;
    });
    await assert.rejects(match(t.store(), q('x y', MODEL, 32)), /32-d/);
  });

  test('one lookup is one round trip', async () => {
    await match(t.store(), q('warm up'), { k: 3 }); // session settings and cached metadata
    const before = t.roundTrips();
    const hits = await match(t.store(), q('Hybrid retrieval with reciprocal rank fusion.'), { k: 25, offset: 1 });
    assert.ok(hits.length > 0);
    assert.equal(t.roundTrips() - before, t.tripsPerLookup ?? 1);
    if (t.keyword) {
      const b2 = t.roundTrips();
      await keywordSearch(t.store(), 'BM25 baseline', { k: 10 });
      await hybridSearch(t.store(), q('BM25 baseline'), 'BM25 baseline', { k: 10 });
      assert.equal(t.roundTrips() - b2, 2);
    }
  });

  if (t.keyword) {
    test('paper ranking: one hit per paper, best first, each its most similar sentence with context, one round trip', async () => {
      const s = t.store();
      const text = 'Writing assistants suggest example sentences while authors draft.';
      await s.matchPapers(q(text).vector, text, { count: 1 }); // session settings
      const before = t.roundTrips();
      const hits = await s.matchPapers(q(text).vector, text, { count: 3 });
      assert.equal(t.roundTrips() - before, 1);
      assert.deepEqual(hits.map((h) => h.paper.id).sort(), ['p1', 'p2', 'p3'], 'each paper once');
      assert.equal(hits[0].paper.id, 'p3');
      assert.equal(hits[0].sentence.text, text, "the paper's sentence most similar to the query");
      assert.ok(hits[0].similarity > 0.99);
      for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score, 'papers in score order');
      hits.forEach(assertContext);
      // Words only one paper holds, in no single sentence together: the whole-paper text field ranks it first.
      const words = 'BM25 acronyms hybrid rare terms';
      const kw = await s.matchPapers(q(words).vector, words, { count: 2 });
      assert.equal(kw[0].paper.id, 'p2');
      assert.equal(kw.length, 2);
      const old = await s.matchPapers(q(text).vector, text, { count: 3, yearMax: 2019 });
      assert.deepEqual(old.map((h) => h.paper.id), ['p1']);
    });

    test('keyword search finds acronyms; hybrid fuses both rankings', async () => {
      const kw = await keywordSearch(t.store(), 'BM25', { k: 5 });
      assert.equal(kw.length, 1);
      assert.equal(kw[0].sentence.text, 'BM25 remains a strong baseline for keyword retrieval.');
      assert.equal(kw[0].next?.text, 'Acronyms and numbers are blurred by sentence embeddings.');
      const phrase = await keywordSearch(t.store(), '"reciprocal rank fusion"', { k: 5 });
      assert.equal(phrase.length, 1);
      const hy = await hybridSearch(t.store(), q('strong baseline BM25'), 'strong baseline BM25', { k: 5 });
      assert.equal(hy[0].sentence.text, 'BM25 remains a strong baseline for keyword retrieval.');
      for (let i = 1; i < hy.length; i++) assert.ok(hy[i - 1].score >= hy[i].score);
      hy.forEach(assertContext);
      const years = await keywordSearch(t.store(), 'sentences', { k: 25, years: { max: 2019 } });
      assert.ok(years.length > 0);
      for (const h of years) assert.equal(h.paper.year, 2019);
    });
  }

  test('sectionTitles lists every section of every paper once, with its title, in paper order', async () => {
    if (t.sections === false) {
      await assert.rejects(t.store().sectionTitles(), (err: Error) => {
        assert.equal(err.name, 'StoreError');
        assert.match(err.message, /not available/);
        assert.doesNotMatch(err.message, /\n/);
        return true;
      });
      return;
    }
    const rows = await t.store().sectionTitles();
    const key = (r: { paperId: string; sectionIndex: number }) => `${r.paperId}#${r.sectionIndex}`;
    assert.deepEqual(
      [...rows].sort((a, b) => key(a).localeCompare(key(b))),
      [
        { paperId: 'p1', sectionIndex: 0, title: 'Introduction' },
        { paperId: 'p1', sectionIndex: 1, title: 'Method' },
        { paperId: 'p2', sectionIndex: 0, title: 'Introduction' },
        { paperId: 'p2', sectionIndex: 1, title: 'Results' },
        { paperId: 'p3', sectionIndex: 0, title: 'Background' },
      ],
    );
  });

  if (t.reimport) {
    test('re-importing the same rows adds nothing', async () => {
      const before = await t.store().counts();
      assert.equal(before.sentences, documents.length);
      assert.equal(await t.reimport!(), 0);
      assert.deepEqual(await t.store().counts(), before);
    });
  }
}
