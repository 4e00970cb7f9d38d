// The store contract, run against every backend (PGlite, `pg` on a real PostgreSQL 15 + pgvector server,
// supabase-js over the PostgREST stand-in on PGlite and on the real server, and the CorpusStudio schema on both):
// hits and order, context at section boundaries, offset, threshold, filters, model/dimension refusal, one lookup =
// one round trip, re-import adds nothing. Each run prints how many contract tests passed on its backend.
import assert from 'node:assert/strict';
import { after, test as nodeTest } from 'node:test';
import { hybridSearch, keywordSearch, match, type QueryEmbedding } from '../../src/core/retrieve/index.js';
import { innerCitations } from '../../src/core/retrieve/inner-citations.js';
import type { CorpusStore, Hit, PaperInput } from '../../src/core/store/types.js';
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
    ...documents.filter((d) => d.doc_id === h.sentence.paperId && d.section_title === sectionOf(h.sentence)).map((d) => d.sentence_index),
  );
  if (h.next) assert.equal(h.next.sentenceIndex, h.sentence.sentenceIndex + 1);
  else assert.equal(h.sentence.sentenceIndex, last, 'next is null only at the last sentence of a section');
}

/** A paper of one sentence (page 1, outside any section) with this metadata: what a contract test writes, then deletes. */
function oneSentencePaper(id: string, text: string, metadata: Omit<PaperInput, 'id' | 'sentences'>): PaperInput {
  const sentence = {
    sectionTitle: null,
    sectionIndex: 0,
    sentenceIndex: 0,
    globalIndex: 0,
    page: 1,
    text,
    embedding: hashEmbed(text, DIM),
  };
  return { id, ...metadata, sentences: [sentence] };
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

  test('venue and section filters: case-insensitive substrings, with each other and with the year', async () => {
    const text = 'sentences retrieval writing authors';
    const sigir = await match(t.store(), q(text), { k: 25, venue: 'sigi' });
    assert.deepEqual([...new Set(sigir.map((h) => h.paper.id))], ['p2']);
    assert.equal(sigir.length, 5, "every sentence of p2 (the fixture's one SIGIR paper)");
    const background = await match(t.store(), q(text), { k: 25, section: 'BACKGROUND' });
    assert.equal(background.length, 3);
    for (const h of background) assert.equal(h.sentence.sectionTitle, 'Background');
    // Two papers have an Introduction: the venue narrows it to one; the context stays the section's.
    const intro = await match(t.store(), q(text), { k: 25, venue: 'acl', section: 'intro' });
    assert.equal(intro.length, 3);
    for (const h of intro) assert.deepEqual([h.paper.id, h.sentence.sectionTitle], ['p1', 'Introduction']);
    intro.forEach(assertContext);
    assert.deepEqual(await match(t.store(), q(text), { k: 25, venue: 'acl', years: { min: 2020 } }), [], 'ACL is 2019');
    assert.deepEqual(await match(t.store(), q(text), { k: 25, section: 'no such section' }), []);
    // A blank filter is no filter: all 14 sentences.
    assert.equal((await match(t.store(), q(text), { k: 25, venue: '  ', section: '', dedupe: false })).length, 14);
    if (t.keyword) {
      const kw = await keywordSearch(t.store(), 'sentences', { k: 25, section: 'results' });
      assert.ok(kw.length > 0);
      for (const h of kw) assert.equal(h.sentence.sectionTitle, 'Results');
      const hy = await hybridSearch(t.store(), q('cosine similarity ranks'), 'cosine similarity ranks', { k: 25, venue: 'ACL' });
      assert.ok(hy.length > 0);
      for (const h of hy) assert.equal(h.paper.venue, 'ACL');
      const papers = await t.store().matchPapers(q(text).vector, text, { count: 3, section: 'background' });
      assert.deepEqual(
        papers.map((h) => h.paper.id),
        ['p3'],
      );
    }
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
      assert.deepEqual(
        old.map((h) => h.paper.id),
        ['p1'],
      );
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

  test('paperStats (the corpus health report): every paper once in id order, with its metadata and its sentence count', async () => {
    const store = t.store();
    if (!store.paperStats) return;
    const rows = await store.paperStats();
    const expected = fixtureRows();
    assert.deepEqual(
      rows.map((r) => r.id),
      [...new Set(expected.documents.map((d) => d.doc_id))].sort(),
    );
    for (const r of rows) {
      assert.equal(r.sentences, expected.documents.filter((d) => d.doc_id === r.id).length, r.id);
      const source = expected.sources.find((x) => x.doc_id === r.id)!;
      assert.equal(r.title, source.title);
      assert.equal(r.year, source.year ?? null);
      assert.deepEqual(r.authors, Array.isArray(source.authors) ? source.authors : [source.authors]);
    }
    assert.equal(
      rows.reduce((n, r) => n + r.sentences, 0),
      (await store.counts()).sentences,
    );
  });

  if (t.reimport) {
    test("paperStats, sentence and element hits: the model that proposed a paper's metadata comes back with it (Supabase: read from the table)", async () => {
      const store = t.store();
      if (!store.paperStats) return;
      const text = 'Sparse retrieval raises recall on long queries.';
      const caption = 'Recall of sparse retrieval on long queries.';
      const paper = oneSentencePaper('pm1', text, {
        title: 'Sparse Retrieval for Long Queries',
        authors: ['Jane Smith'],
        year: 2019,
        metadataProposedBy: 'standin-model',
        elements: [
          {
            type: 'table' as const,
            label: 'Table 1',
            caption,
            content: null,
            sectionTitle: null,
            sectionIndex: 0,
            afterSentence: 0,
            page: 1,
            bbox: null,
            elementIndex: 0,
            embedding: hashEmbed(caption, DIM),
          },
        ],
      });
      try {
        await store.writePapers([paper]);
        const rows = await store.paperStats();
        assert.equal(rows.find((r) => r.id === 'pm1')?.metadataProposedBy, 'standin-model');
        assert.ok(rows.filter((r) => r.id !== 'pm1').every((r) => r.metadataProposedBy === null));
        // Every lookup's hit carries the mark, so the panel can show a proposed title as one (a real one unmarked).
        const vector = await store.matchVector(hashEmbed(text, DIM), { count: 3 });
        const keyword = await store.matchKeyword('sparse retrieval recall', { count: 3 });
        const context = await store.context([vector.find((h) => h.paper.id === 'pm1')!.sentence.id]);
        for (const hits of [vector, keyword, context]) {
          assert.equal(hits.find((h) => h.paper.id === 'pm1')?.paper.metadataProposedBy, 'standin-model');
        }
        const others = [...vector, ...keyword].filter((h) => h.paper.id !== 'pm1');
        assert.ok(others.length > 0);
        assert.ok(
          others.every((h) => !h.paper.metadataProposedBy),
          JSON.stringify(others.map((h) => h.paper)),
        );
        // So do its figures' and tables' hits: found, linked to a cited sentence, listed.
        if (store.matchElements && store.linkedElements && store.listElements) {
          const elementHits = [
            await store.matchElements(hashEmbed(caption, DIM), 'sparse retrieval recall', { count: 3 }),
            await store.linkedElements([vector.find((h) => h.paper.id === 'pm1')!.sentence.id], { count: 3 }),
            await store.listElements({ count: 10, paperIds: ['pm1'] }),
          ];
          for (const hits of elementHits) {
            assert.deepEqual(
              hits.filter((h) => h.paper.id === 'pm1').map((h) => [h.element.label, h.paper.metadataProposedBy]),
              [['Table 1', 'standin-model']],
            );
          }
        }
      } finally {
        await store.deletePapers(['pm1']);
      }
    });

    test('updatePaperMetadata: a made-up title (stored as its proposer) becomes a real one; the sentences and their ids stay', async () => {
      const store = t.store();
      if (!store.updatePaperMetadata || !store.paperStats) return;
      const text = 'Product quantisation costs recall on long queries.';
      const paper = oneSentencePaper('mu1', text, {
        title: 'Introduction',
        authors: ['Elin Falk'],
        year: 2024,
        citationKey: 'falk2024introduction',
        bibtex: '@article{falk2024introduction, title = {Introduction}}',
        metadataProposedBy: 'its first heading',
      });
      try {
        await store.writePapers([paper]);
        const [before] = (await store.matchVector(hashEmbed(text, DIM), { count: 5 })).filter((h) => h.paper.id === 'mu1');
        assert.equal(before.paper.metadataProposedBy, 'its first heading');
        const meta = { title: 'How Much Recall Does Quantisation Cost?', authors: ['Elin Falk'], year: 2024, metadataProposedBy: null };
        assert.equal(
          await store.updatePaperMetadata('mu1', { ...meta, citationKey: 'falk2024much', bibtex: '@article{falk2024much}' }),
          true,
        );
        assert.equal(await store.updatePaperMetadata('no-such-paper', { ...meta, citationKey: null }), false);
        const [after] = (await store.matchVector(hashEmbed(text, DIM), { count: 5 })).filter((h) => h.paper.id === 'mu1');
        assert.equal(after.sentence.id, before.sentence.id, 'the sentence row stays');
        assert.deepEqual(
          [after.paper.title, after.paper.citationKey, after.paper.metadataProposedBy ?? null],
          [meta.title, 'falk2024much', null],
        );
        const stat = (await store.paperStats()).find((r) => r.id === 'mu1')!;
        assert.deepEqual([stat.title, stat.metadataProposedBy, stat.sentences], [meta.title, null, 1]);
        if (store.paperBibtex) assert.deepEqual(await store.paperBibtex(['mu1']), [{ id: 'mu1', bibtex: '@article{falk2024much}' }]);
        // Without a BibTeX entry the stored one stays (the user's own, under the user's key).
        await store.updatePaperMetadata('mu1', { ...meta, citationKey: 'Falk:2024pq' });
        if (store.paperBibtex) assert.deepEqual(await store.paperBibtex(['mu1']), [{ id: 'mu1', bibtex: '@article{falk2024much}' }]);
      } finally {
        await store.deletePapers(['mu1']);
      }
    });

    test('a cited work whose reference entry prints a Chinese or a Russian title is that corpus paper (schema v18 title_key)', async () => {
      const store = t.store();
      if (!store.findPapers || !store.citedWorks) return;
      const chinese = '深度学习的文本检索方法研究';
      const russian = 'Глубокое обучение для поиска научных предложений';
      const entries = [
        `[3] 王五, 李四. ${chinese}[J]. 计算机学报, 2020, 43(5): 1–12.`,
        // In sentence case, where the corpus has the title in capitals (ck2).
        `[4] Иванов И. И. «${russian}» // Вестник МГУ. 2019. № 2.`,
      ];
      const text = 'Dense retrieval of scientific sentences was studied in Chinese [3] and in Russian [4].';
      const work = (label: string, entry: string) => ({
        label,
        key: null,
        text: entry,
        authors: [],
        year: null,
        title: null,
        doi: null,
        citedBy: [0],
      });
      const papers = [
        oneSentencePaper('ck0', text, {
          title: 'Cross-lingual citations',
          authors: ['Ana Ruiz'],
          year: 2023,
          citedWorks: [work('3', entries[0]), work('4', entries[1])],
        }),
        oneSentencePaper('ck1', 'Han characters in a title.', { title: chinese, authors: ['王五'], year: 2020 }),
        oneSentencePaper('ck2', 'Cyrillic letters in a title.', { title: russian.toUpperCase(), authors: ['И. И. Иванов'], year: 2019 }),
        // Printed inside entry 4 too, but too short to be taken from an entry's text (as a Latin title of 17 letters).
        oneSentencePaper('ck3', 'A Latin title.', { title: 'Глубокое обучение', authors: ['Anon'], year: 2019 }),
      ];
      try {
        await store.writePapers(papers);
        // The SQL lookup alone, from each entry as printed.
        for (const [entry, id] of [
          [entries[0], 'ck1'],
          [entries[1], 'ck2'],
        ]) {
          const found = await store.findPapers({ dois: [], titles: [], keys: [], texts: [entry] });
          assert.ok(
            found.some((p) => p.id === id),
            `${id} from ${entry}: ${found.map((p) => p.id).join(' ')}`,
          );
        }
        // And what Ask shows for the quote: each work is its corpus paper.
        const hit = (await store.matchVector(hashEmbed(text, DIM), { count: 5 })).find((h) => h.paper.id === 'ck0')!;
        const cited = (await innerCitations(store, [hit])).get(hit.sentence.id) ?? [];
        assert.deepEqual(
          cited.map((c) => c.paper?.id ?? null),
          ['ck1', 'ck2'],
        );
      } finally {
        await store.deletePapers(papers.map((p) => p.id));
      }
    });

    test('source copies (schema v17): a file recorded as a copy of a paper, again with a new hash and paper, forgotten on request', async () => {
      const store = t.store();
      if (!store.sourceCopies || !store.updateSourceCopies) return;
      assert.deepEqual(await store.sourceCopies(), []);
      const paths = ['/papers/a.pdf', '/papers/b.pdf'];
      try {
        await store.updateSourceCopies(
          [
            { sourcePath: paths[0], contentHash: 'h1', paperId: 'p1' },
            { sourcePath: paths[1], contentHash: 'h2', paperId: 'p1' },
          ],
          [],
        );
        await store.updateSourceCopies([{ sourcePath: paths[0], contentHash: 'h3', paperId: 'p2' }], [paths[1]]);
        assert.deepEqual(await store.sourceCopies(), [{ sourcePath: paths[0], contentHash: 'h3', paperId: 'p2' }]);
      } finally {
        await store.updateSourceCopies([], paths);
      }
      assert.deepEqual(await store.sourceCopies(), []);
    });

    test('elements: written with their paper; found by vector, keyword and type; linked by page; listed; deleted with the paper', async () => {
      const store = t.store();
      const v = (text: string) => hashEmbed(text, DIM);
      const texts = [
        'Our encoder maps each sentence to one vector.',
        'A pooling layer averages the token states.',
        'Dense retrieval beats BM25 on the benchmark.',
        'The score is the cosine of the two vectors.',
      ];
      const sentences = texts.map((text, i) => ({
        sectionTitle: i < 2 ? 'Model' : 'Results',
        sectionIndex: i < 2 ? 0 : 1,
        sentenceIndex: i % 2,
        globalIndex: i,
        page: i < 2 ? 1 : 2,
        text,
        embedding: v(text),
      }));
      const elements = [
        {
          // A drawing of a structure (ingest's diagram rule): the schema takes the type, a figure filter finds it.
          type: 'diagram' as const,
          label: 'Figure 1',
          labelKey: 'fig:arch',
          caption: 'Architecture of the sentence encoder with its pooling layer.',
          content: null,
          sectionTitle: 'Model',
          sectionIndex: 0,
          afterSentence: 1,
          page: 1,
          bbox: [72, 90.5, 540, 300] as [number, number, number, number],
        },
        {
          type: 'table' as const,
          label: 'Table 1',
          labelKey: 'tab:recall',
          caption: 'Retrieval accuracy on the benchmark.',
          content: 'Model | Recall@10\nBM25 | 0.61\nDense encoder | 0.74',
          sectionTitle: 'Results',
          sectionIndex: 1,
          afterSentence: 2,
          page: 2,
          bbox: null,
        },
        {
          type: 'equation' as const,
          label: 'Equation (1)',
          labelKey: 'eq:score',
          caption: null,
          content: 's(q, d) = \\cos(E(q), E(d))',
          sectionTitle: 'Results',
          sectionIndex: 1,
          afterSentence: 3,
          page: 2,
          bbox: null,
        },
      ].map((e, i) => ({ ...e, elementIndex: i, embedding: v([e.label, e.caption, e.content].filter(Boolean).join(' ')) }));
      const paper = { id: 'el1', title: 'Elements of a paper', authors: ['Grace Hopper'], year: 2021, sentences, elements };
      try {
        const w = await store.writePapers([paper]);
        assert.equal(w.sentences, 4);
        assert.equal(w.elements, 3);
        assert.equal((await store.writePapers([paper])).elements, 0, 'a re-write adds no element');

        const listed = await store.listElements!({ count: 10 });
        assert.deepEqual(
          listed.map((h) => [h.element.type, h.element.label, h.element.elementIndex]),
          [
            ['diagram', 'Figure 1', 0],
            ['table', 'Table 1', 1],
            ['equation', 'Equation (1)', 2],
          ],
        );
        const fig = listed[0].element;
        assert.deepEqual(fig.bbox, [72, 90.5, 540, 300]);
        assert.equal(fig.page, 1);
        assert.equal(fig.labelKey, 'fig:arch');
        assert.equal(fig.sectionTitle, 'Model');
        assert.equal(listed[1].element.content, 'Model | Recall@10\nBM25 | 0.61\nDense encoder | 0.74');
        assert.equal(listed[2].element.content, 's(q, d) = \\cos(E(q), E(d))');
        assert.equal(listed[1].paper.title, 'Elements of a paper');
        assert.deepEqual(
          (await store.listElements!({ count: 10, type: 'equation' })).map((h) => h.element.label),
          ['Equation (1)'],
        );
        assert.deepEqual(
          (await store.listElements!({ count: 10, after: fig.id })).map((h) => h.element.label),
          ['Table 1', 'Equation (1)'],
          'paged after an id',
        );

        // The table's cells find the table: by keyword alone (a number only its content holds) and fused with the vector.
        const before = t.roundTrips();
        const byCell = await store.matchElements!(v('0.74'), '0.74', { count: 3 });
        assert.equal(t.roundTrips() - before, 1, 'one element lookup is one round trip');
        assert.equal(byCell[0].element.label, 'Table 1');
        assert.equal(byCell[0].match, 'direct');
        const q1 = 'Recall@10 of the dense encoder and BM25';
        const byQuery = await store.matchElements!(v(q1), q1, { count: 3 });
        assert.equal(byQuery[0].element.label, 'Table 1');
        assert.ok(byQuery[0].similarity !== null && byQuery[0].similarity > 0 && byQuery[0].similarity <= 1);
        for (let i = 1; i < byQuery.length; i++) assert.ok(byQuery[i - 1].score >= byQuery[i].score, 'best first');
        const figuresOnly = await store.matchElements!(v(q1), q1, { count: 3, type: 'figure' });
        assert.deepEqual(
          figuresOnly.map((h) => h.element.label),
          ['Figure 1'],
          'a diagram is a figure',
        );
        assert.deepEqual(
          (await store.matchElements!(v(q1), q1, { count: 3, type: 'diagram' })).map((h) => h.element.label),
          ['Figure 1'],
        );
        assert.deepEqual(await store.listElements!({ count: 10, type: 'table' }).then((h) => h.map((x) => x.element.type)), ['table']);
        assert.deepEqual(await store.matchElements!(v(q1), q1, { count: 3, paperIds: ['p1'] }), []);

        // Linked: the elements on the page of a sentence (page 2 holds the table and the equation), in element order.
        const [hit] = await match(store, q('Dense retrieval beats BM25 on the benchmark.'), { k: 1 });
        assert.equal(hit.sentence.paperId, 'el1');
        const linked = await store.linkedElements!([hit.sentence.id], { count: 5 });
        assert.deepEqual(
          linked.map((h) => [h.element.label, h.match, h.viaSentenceId, h.similarity]),
          [
            ['Table 1', 'linked', hit.sentence.id, null],
            ['Equation (1)', 'linked', hit.sentence.id, null],
          ],
        );
        assert.deepEqual(await store.linkedElements!([hit.sentence.id], { count: 5, type: 'figure' }), []);

        // A stored description (LLM enrichment) and its vector: keyword and vector search find the element by it.
        if (store.describeElements) {
          const table = listed[1].element;
          const text = 'A leaderboard of quokkaboard retrievers.';
          assert.deepEqual(
            await store.matchElements!(v('quokkaboard'), 'quokkaboard', { count: 3 }).then((h) => h.filter((x) => x.element.description)),
            [],
          );
          assert.equal(await store.describeElements([{ id: table.id, description: text, embedding: v(text) }]), 1);
          const byDescription = await store.matchElements!(v('quokkaboard'), 'quokkaboard', { count: 3 });
          assert.equal(byDescription[0].element.label, 'Table 1');
          assert.equal(byDescription[0].element.description, text);
        }
      } finally {
        await store.deletePapers(['el1']);
      }
      assert.deepEqual(await store.listElements!({ count: 10 }), [], 'deleted with their paper');
    });

    test('PDF sentences keep their page and line range (schema v8), also over a page break; other sentences have none', async () => {
      const store = t.store();
      assert.ok(store.sentencePages, 'the store reads pages and lines back');
      const texts = [
        'A sentence printed on three lines of page three.',
        'A sentence that runs over the page break.',
        'A sentence from a LaTeX source.',
      ];
      const at = [
        { page: 3, lineStart: 12, lineEnd: 14, pageEnd: 3 },
        { page: 3, lineStart: 40, lineEnd: 2, pageEnd: 4 },
        { page: null, lineStart: null, lineEnd: null, pageEnd: null },
      ];
      const paper = {
        id: 'ln1',
        title: 'Lines of a paper',
        sentences: texts.map((text, i) => ({
          sectionTitle: 'Results',
          sectionIndex: 0,
          sentenceIndex: i,
          globalIndex: i,
          ...at[i],
          text,
          embedding: hashEmbed(text, DIM),
        })),
      };
      try {
        assert.equal((await store.writePapers([paper])).sentences, 3);
        const ids: number[] = [];
        for (const text of texts) {
          const [hit] = await match(store, q(text), { k: 1 });
          assert.equal(hit.sentence.text, text);
          ids.push(hit.sentence.id);
        }
        const got = await store.sentencePages!(ids);
        assert.deepEqual(
          [...got].sort((a, b) => a.id - b.id),
          [
            { id: ids[0], ...at[0] },
            { id: ids[1], ...at[1] },
          ].sort((a, b) => a.id - b.id),
          'PDF sentences with their lines; the one without a page is left out',
        );
      } finally {
        await store.deletePapers(['ln1']);
      }
    });

    test('elements: a paper whose element cannot be written is not written at all (SQL backends: one transaction)', async () => {
      const store = t.store();
      if (store.kind === 'supabase') return; // over HTTP a paper is several requests (supabase.ts says so)
      const text = 'A sentence of a paper whose figure is refused.';
      const bad = {
        id: 'el2',
        sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, text, embedding: hashEmbed(text, DIM) }],
        elements: [
          {
            type: 'chart' as never,
            label: null,
            caption: 'x',
            content: null,
            sectionTitle: null,
            sectionIndex: 0,
            afterSentence: 0,
            page: null,
            bbox: null,
            elementIndex: 0,
            embedding: hashEmbed('x', DIM),
          },
        ],
      };
      await assert.rejects(store.writePapers([bad]), /paper el2: .*elements_type_check/);
      assert.ok(!(await store.sources()).some((p) => p.id === 'el2'), 'neither the paper nor its sentences');
    });

    test('re-importing the same rows adds nothing', async () => {
      const before = await t.store().counts();
      assert.equal(before.sentences, documents.length);
      assert.equal(await t.reimport!(), 0);
      assert.deepEqual(await t.store().counts(), before);
    });
  }
}
