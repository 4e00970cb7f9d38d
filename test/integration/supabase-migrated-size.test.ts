// A Supabase project migrated for one vector size (`corpus-lens schema --print --dimensions 64`) and an embedding
// model of another: the first write is refused by pgvector ("expected 64 dimensions, not 32"); the store says which
// size the project was migrated for, what the model gives and what to do, and leaves nothing behind (no paper
// row, no metadata for the refused size), so the right model then fills the project. The REAL supabase-js client
// against the PostgREST stand-in on PGlite + pgvector (the real-server run is store-supabase.test.ts's).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openSupabaseStore } from '../../src/core/store/backends/supabase.js';
import { schemaSql } from '../../src/core/store/sql/schema.js';
import type { PaperInput } from '../../src/core/store/types.js';
import { freshPGlite } from '../support/db-pglite.js';
import { startPostgrestStandin, type PostgrestStandin } from '../support/postgrest-standin.js';

let db: Awaited<ReturnType<typeof freshPGlite>>;
let standin: PostgrestStandin;
before(async () => {
  db = await freshPGlite();
  await db.exec(schemaSql(64)); // the user's migration
  standin = await startPostgrestStandin(db, { key: 'k' });
});
after(async () => {
  await standin?.stop();
  await db?.close();
});

function paper(dimensions: number): PaperInput {
  const embedding = new Float32Array(dimensions).fill(1 / Math.sqrt(dimensions));
  return {
    id: 'p1',
    title: 'A paper',
    sentences: [{ sectionIndex: 0, sentenceIndex: 0, globalIndex: 0, text: 'One sentence.', embedding }],
  };
}

const MESSAGE =
  /the corpus was migrated for 64-d vectors \(`corpus-lens schema --print --dimensions 64`\) and the embedding model openai:nomic-embed-text gives 32-d vectors: use a model of 64 dimensions, or migrate an empty corpus again with `corpus-lens schema --print --dimensions 32`/;

test('a model of another size than the migration: a clear message, nothing written, then the right model works', async () => {
  const store = await openSupabaseStore(standin.url, 'k');
  const papers = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM papers')).rows[0].n;
  try {
    // The migration records its size: refused before anything is written.
    await assert.rejects(store.init({ model: 'openai:nomic-embed-text', dimensions: 32 }), MESSAGE);

    // A project migrated before the size was recorded: pgvector refuses the first write ("expected 64 dimensions,
    // not 32"); the message is the same, and the refused size is not left recorded.
    await db.exec('DELETE FROM corpus_meta');
    const older = await openSupabaseStore(standin.url, 'k');
    await older.init({ model: 'openai:nomic-embed-text', dimensions: 32 });
    await assert.rejects(older.writePapers([paper(32)]), (err: Error) => {
      assert.match(err.message, MESSAGE);
      assert.match(err.message, /Nothing was written$/);
      assert.doesNotMatch(err.message, /HTTP 400|expected 64 dimensions/);
      return true;
    });
    assert.equal(await older.meta(), null);
    assert.equal(await papers(), 0);

    await older.init({ model: 'openai:text-embedding-3-small@64', dimensions: 64 });
    assert.deepEqual(await older.writePapers([paper(64)]), { papers: 1, sentences: 1, skipped: 0, elements: 0 });
    await older.close();
  } finally {
    await store.close();
  }
});
