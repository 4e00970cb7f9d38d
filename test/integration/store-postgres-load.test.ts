// npm test runs this file alone: lookup and write floors over a 3 s window.
// Many authors at once, short: 8 clients doing cursor lookups for 3 s on a real PostgreSQL 15 + pgvector server
// while a writer ingests papers. What must hold (the figures are the bench's: `npm run bench -- postgres`): no
// lookup or write fails, every paper the writer reports is there with all its sentences and none twice, and no
// reader ever sees a paper with only some of its sentences. Skipped with a reason where the server is absent,
// except CI=true.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openPostgresStore } from '../../src/core/store/backends/postgres.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import type { PaperInput } from '../../src/core/store/types.js';
import { DIM, MODEL } from '../support/db-contract.js';
import { hashEmbed } from '../support/db-embedder.js';
import { loadFixture } from '../support/db-fixture.js';
import { runLoad, verifyIngest } from '../support/pg-load.js';
import { realPgSkip, startRealPg, type RealPg } from '../support/pg-real.js';

const PER_PAPER = 12;

function ingestPaper(i: number): PaperInput {
  return {
    id: `ingest-${i}`,
    title: `Ingested ${i}`,
    year: 2025,
    sentences: Array.from({ length: PER_PAPER }, (_, g) => {
      const text = `Ingested paper ${i} sentence part${g} on sentence retrieval for writing authors.`;
      return { sectionIndex: Math.floor(g / 4), sentenceIndex: g % 4, globalIndex: g, text, embedding: hashEmbed(text, DIM) };
    }),
  };
}

describe('8 authors looking up while a writer ingests, on a real PostgreSQL 15 server', { skip: realPgSkip() }, () => {
  let server: RealPg;
  let stores: SqlCorpusStore[] = [];
  let writer: SqlCorpusStore;

  before(async () => {
    server = await startRealPg();
    const url = await server.createDatabase('load');
    writer = await openPostgresStore(url);
    await writer.init({ model: MODEL, dimensions: DIM });
    await loadFixture(writer);
    stores = await Promise.all(Array.from({ length: 8 }, () => openPostgresStore(url, { max: 2 })));
  });

  after(async () => {
    await Promise.all([...stores, writer].filter(Boolean).map((s) => s.close()));
    await server?.stop();
  });

  test('0 errors, 0 lost or duplicated rows, papers appear whole', async () => {
    const queries = ['sentence retrieval for writing', 'Ingested paper sentence', 'BM25 keyword baseline', 'cosine similarity ranks'].map(
      (t) => hashEmbed(t, DIM),
    );
    const r = await runLoad({
      clients: stores,
      probe: (sql, params) => stores[0].driver.query(sql, params),
      durationMs: 3000,
      queries,
      writer,
      ingest: ingestPaper,
      ingestPrefix: 'ingest-',
      sentencesPerPaper: PER_PAPER,
      ingestBatch: 3,
      probeEvery: 3,
    });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.torn, []);
    assert.ok(r.lookups >= 8, `${r.lookups} lookups`);
    assert.ok(r.probes > 0 && r.ingestedPapers >= 3, `${r.probes} probes, ${r.ingestedPapers} papers ingested`);
    const v = await verifyIngest((sql, p) => writer.driver.query(sql, p), 'ingest-', PER_PAPER);
    assert.deepEqual(v, { papers: r.ingestedPapers, sentences: r.ingestedPapers * PER_PAPER, incomplete: 0, duplicated: 0 });
    assert.deepEqual(await writer.counts(), { papers: 3 + r.ingestedPapers, sentences: 14 + r.ingestedPapers * PER_PAPER });
    // A paper written during the run is found by a lookup afterwards, with its context.
    const lastPaper = ingestPaper(r.ingestedPapers - 1);
    const last = lastPaper.sentences[5];
    const [hit] = await stores[1].matchVector(last.embedding, { count: 1, paperIds: [lastPaper.id] });
    assert.equal(hit.sentence.text, last.text);
    assert.ok(hit.previous && hit.next);
  });
});
