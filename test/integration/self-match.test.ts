// The author's draft never matches itself: a corpus paper indexed from the file being edited, from a file with the
// same bytes, or holding the same text (indexed from a copy elsewhere) is left out of the draft's lookups, while the
// rest of the corpus (including a paper that quotes one sentence of the draft) still answers. Real PGlite corpus,
// real ingest of the sample papers, the offline embedder.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineEmbedder } from '../../src/core/embed/index.ts';
import { ingest } from '../../src/core/ingest/pipeline.ts';
import { search, type MatchOptions } from '../../src/core/retrieve/index.ts';
import { lookupExcludingSelf, SelfPapers } from '../../src/core/retrieve/self.ts';
import { openStore } from '../../src/core/store/index.ts';
import type { CorpusStore, Hit } from '../../src/core/store/types.ts';
import { TextModel } from '../../src/core/text/index.ts';
import { projectRoot } from '../support/eval.ts';

const SAMPLES = join(projectRoot, 'samples', 'corpus');
const DRAFT_SOURCE = join(SAMPLES, 'falk2024quantization.tex');
const QUOTED = 'Quantisation replaces each vector with a compact code, and distances are then approximated from the codes.';

let dir: string;
let store: CorpusStore;
const embedder = createOfflineEmbedder();
let draftPath: string;
let copyPath: string;
let quoterPath: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cl-self-match-'));
  const corpusDir = join(dir, 'papers');
  mkdirSync(corpusDir);
  for (const f of ['mwangi2022hnswtuning.tex', 'marchetti2022sentenceretrieval.tex', 'lindahl2024sentencesegment.tex'])
    copyFileSync(join(SAMPLES, f), join(corpusDir, f));
  // The draft, indexed from its own file (Index This Paper).
  draftPath = join(corpusDir, 'draft.tex');
  copyFileSync(DRAFT_SOURCE, draftPath);
  // The same paper indexed earlier from another folder, one sentence since changed: other path, other bytes.
  mkdirSync(join(dir, 'old'));
  copyPath = join(dir, 'old', 'quantisation-v1.tex');
  writeFileSync(
    copyPath,
    readFileSync(DRAFT_SOURCE, 'utf8')
      .replace('We focus on two questions.', 'We focus on two research questions.')
      .replace(/\\title\{[^}]*\}/, '\\title{Quantised Sentence Embeddings, an Early Version}'),
  );
  // Another paper that quotes one sentence of the draft: it must stay (the originality check is for exactly this).
  quoterPath = join(corpusDir, 'quoter.md');
  writeFileSync(
    quoterPath,
    `---\ntitle: "A Survey of Compact Embeddings"\nyear: 2025\n---\n\n## Background\n\nSurveys of compression rarely quote directly. ${QUOTED} Graph indexes need other tricks entirely, and we discuss them in turn.\n`,
  );
  store = await openStore(join(dir, 'corpus'));
  // Two runs: within one run the two versions would be merged into one paper (one paper per work, identity.ts).
  const earlier = await ingest(store, [copyPath], { embedder });
  const summary = await ingest(store, [corpusDir], { embedder });
  assert.deepEqual([...earlier.failed, ...summary.failed], []);
});

after(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function draftSentences(path: string): string[] {
  return new TextModel(readFileSync(path, 'utf8'), 'latex').sentences().map((s) => s.clean);
}

async function paperIdsFrom(path: string): Promise<string[]> {
  return (await store.sources()).filter((s) => s.sourcePath === path).map((s) => s.id);
}

const lookup = (text: string, o: MatchOptions = {}) => search(store, embedder, text, 'vector', { k: 10, ...o });

test('without the exclusion, the draft finds itself at 1.00 (what users saw)', async () => {
  const [own] = await paperIdsFrom(draftPath);
  const hits = await lookup(QUOTED);
  assert.equal(hits[0].paper.id === own || (await paperIdsFrom(copyPath)).includes(hits[0].paper.id), true);
  assert.ok(hits[0].similarity > 0.99);
});

test("papers from the draft's own file, and from a file with its bytes, are known at once", async () => {
  const own = await paperIdsFrom(draftPath);
  assert.equal(own.length, 1);
  const byPath = new SelfPapers(store, { paths: [draftPath], sentences: [] });
  assert.deepEqual(await byPath.known(), own);
  // A single-file paper opened from elsewhere (a checkout of the same file): the same bytes. (A LaTeX paper's hash
  // covers its \input files, so it is recognised by path or by its text instead.)
  const bytes = readFileSync(quoterPath);
  const byHash = new SelfPapers(store, {
    paths: ['/elsewhere/quoter.md'],
    contentHash: createHash('sha256').update(bytes).digest('hex'),
    sentences: [],
  });
  assert.deepEqual(await byHash.known(), await paperIdsFrom(quoterPath));
});

test("a draft's lookups leave out every copy of it, and nothing else", async () => {
  const own = await paperIdsFrom(draftPath);
  const copy = await paperIdsFrom(copyPath);
  const quoter = await paperIdsFrom(quoterPath);
  assert.equal(copy.length, 1);
  const self = new SelfPapers(store, { paths: [draftPath], sentences: draftSentences(draftPath) });
  const hits: Hit[] = await lookupExcludingSelf(self, (excludePaperIds) => lookup(QUOTED, { excludePaperIds }));
  const papers = new Set(hits.map((h) => h.paper.id));
  assert.ok(!papers.has(own[0]), "the draft's own paper is left out");
  assert.ok(!papers.has(copy[0]), 'the earlier copy (other path, other bytes, the same text) is left out by its fingerprint');
  assert.equal(hits[0].paper.id, quoter[0], 'the paper quoting the sentence is the top hit');
  assert.ok(hits[0].similarity > 0.9);
  assert.equal(hits.length, 10, 'k hits remain after the exclusion');
  assert.deepEqual((await self.known()).sort(), [...own, ...copy].sort());
});

test('the exclusion holds in every search mode, and within a paper restriction', async () => {
  const own = await paperIdsFrom(draftPath);
  const copy = await paperIdsFrom(copyPath);
  const excludePaperIds = [...own, ...copy];
  for (const mode of ['vector', 'keyword', 'hybrid'] as const) {
    const hits = await search(store, embedder, 'product quantisation recall re-ranking', mode, { k: 5, excludePaperIds });
    assert.ok(hits.length > 0, mode);
    assert.ok(
      hits.every((h) => !excludePaperIds.includes(h.paper.id)),
      mode,
    );
  }
  assert.deepEqual(await lookup(QUOTED, { paperIds: own, excludePaperIds }), []);
});

test('a draft that is not in the corpus excludes nothing', async () => {
  const other = join(dir, 'unrelated.md');
  writeFileSync(other, '# Notes\n\nThis is an unrelated note about gardening in spring.\n');
  const self = new SelfPapers(store, { paths: [other], sentences: ['This is an unrelated note about gardening in spring.'] });
  const hits = await lookupExcludingSelf(self, (excludePaperIds) => lookup(QUOTED, { excludePaperIds }));
  assert.deepEqual(await self.known(), []);
  assert.ok(hits[0].similarity > 0.99, 'the corpus copies are still found from another document');
});
