// One paper per work: a folder holding a paper's LaTeX source and the PDF compiled from it (and, in the second case,
// the user's .bib entry for it) is indexed as ONE paper with the LaTeX text and the metadata merged; a re-index
// adds nothing; an edited draft replaces its previous version instead of joining it. Real pdflatex, real PGlite.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineEmbedder } from '../../src/core/embed/index.ts';
import { readPaperFile } from '../../src/core/ingest/index.ts';
import { ingest } from '../../src/core/ingest/pipeline.ts';
import { openStore } from '../../src/core/store/index.ts';
import type { CorpusStore } from '../../src/core/store/types.ts';
import { projectRoot } from '../support/eval.ts';
import { noPdflatex } from '../support/pdflatex.ts';

const SAMPLE = join(projectRoot, 'samples', 'corpus', 'falk2024quantization.tex');
const TITLE = 'How Much Recall Does Quantisation Cost? Product Quantisation for Sentence Embeddings';
const embedder = createOfflineEmbedder();
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A folder with paper.tex (the sample) and paper.pdf compiled from it. */
function texAndPdf(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cl-one-work-'));
  dirs.push(dir);
  copyFileSync(SAMPLE, join(dir, 'paper.tex'));
  for (let i = 0; i < 2; i++)
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', 'paper.tex'], { cwd: dir, stdio: 'ignore', timeout: 60_000 });
  for (const ext of ['aux', 'log']) rmSync(join(dir, `paper.${ext}`), { force: true });
  return dir;
}

/** Every stored paper with its metadata (as a hit carries it). */
async function papers(store: CorpusStore) {
  const sources = await store.sources();
  return Promise.all(
    sources.map(async (s) => ({ ...s, paper: (await store.matchKeyword('quantisation', { count: 1, paperIds: [s.id] }))[0].paper })),
  );
}

test(
  'a LaTeX source and its compiled PDF are one paper, with the LaTeX text; a re-index adds nothing',
  { skip: noPdflatex, timeout: 300_000 },
  async () => {
    const dir = texAndPdf();
    const tex = await readPaperFile(join(dir, 'paper.tex'));
    const pdf = await readPaperFile(join(dir, 'paper.pdf'));
    assert.notEqual(pdf.papers[0].id, tex.papers[0].id, 'the two readings have different ids on their own (no DOI in either)');
    const store = await openStore(join(dir, 'corpus'));
    try {
      const first = await ingest(store, [dir], { embedder });
      assert.deepEqual(first.failed, []);
      assert.equal(first.papers, 1, 'one paper');
      assert.equal(first.merged, 1, 'the PDF was merged into the LaTeX source');
      assert.equal(first.sentences, tex.papers[0].sentences.length, 'the LaTeX text');
      const [one] = await papers(store);
      assert.equal(one.sourcePath, join(dir, 'paper.tex'));
      assert.equal(one.paper.title, TITLE);
      assert.deepEqual(one.paper.authors, ['Elin Falk', 'Kwabena Asante', 'Noor van Rijswijk']);
      assert.equal(one.paper.year, 2024);
      assert.match(one.paper.citationKey ?? '', /^falk2024/);

      const again = await ingest(store, [dir], { embedder });
      assert.deepEqual({ papers: again.papers, sentences: again.sentences }, { papers: 0, sentences: 0 });
      assert.deepEqual(await store.counts(), { papers: 1, sentences: tex.papers[0].sentences.length });
    } finally {
      await store.close();
    }
  },
);

test(
  "with the user's .bib entry beside them: still one paper, under the user's key, with the DOI only the .bib has",
  { skip: noPdflatex, timeout: 300_000 },
  async () => {
    const dir = texAndPdf();
    const abstract = /\\begin\{abstract\}([\s\S]*?)\\end\{abstract\}/.exec(readFileSync(SAMPLE, 'utf8'))![1].trim();
    writeFileSync(
      join(dir, 'refs.bib'),
      `@article{Falk:2024pq,\n  title = {${TITLE}},\n  author = {Falk, Elin and Asante, Kwabena and van Rijswijk, Noor},\n  year = {2024},\n  doi = {10.5555/falk.2024.pq},\n  abstract = {${abstract}}\n}\n`,
    );
    const store = await openStore(join(dir, 'corpus'));
    try {
      const first = await ingest(store, [dir], { embedder });
      assert.deepEqual(first.failed, []);
      assert.equal((await store.counts()).papers, 1);
      const [one] = await papers(store);
      assert.equal(one.id, 'doi:10.5555/falk.2024.pq');
      assert.equal(one.paper.citationKey, 'Falk:2024pq');
      assert.equal(one.sourcePath, join(dir, 'paper.tex'), 'the LaTeX text, not the .bib abstract or the PDF');
      const again = await ingest(store, [dir], { embedder });
      assert.equal(again.papers, 0);
      assert.equal((await store.counts()).papers, 1);
    } finally {
      await store.close();
    }
  },
);

test('an edited draft indexed again replaces its previous version', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cl-one-work-edit-'));
  dirs.push(dir);
  const draft = join(dir, 'draft.tex');
  copyFileSync(SAMPLE, draft);
  const store = await openStore(join(dir, 'corpus'));
  try {
    await ingest(store, [draft], { embedder });
    writeFileSync(draft, readFileSync(SAMPLE, 'utf8').replace('We focus on two questions.', 'We focus on two research questions here.'));
    const second = await ingest(store, [draft], { embedder });
    assert.equal(second.papers, 1);
    const sources = await store.sources();
    assert.equal(sources.length, 1, 'the previous version is gone');
    const text = await store.paperSentences!(sources[0].id);
    assert.ok(text.includes('We focus on two research questions here.'));
  } finally {
    await store.close();
  }
});

test(
  'across separate runs: the PDF of a paper whose LaTeX an earlier run indexed joins it (and the reverse); re-runs add nothing',
  { skip: noPdflatex, timeout: 400_000 },
  async () => {
    const dir = texAndPdf();
    const tex = join(dir, 'paper.tex');
    const pdf = join(dir, 'paper.pdf');
    const texSentences = (await readPaperFile(tex)).papers[0].sentences.length;
    // LaTeX first, its PDF in a later run: one paper, the LaTeX text; the PDF again: nothing.
    const store = await openStore(join(dir, 'corpus'));
    try {
      await ingest(store, [tex], { embedder });
      const second = await ingest(store, [pdf], { embedder });
      assert.deepEqual(second.failed, []);
      assert.deepEqual(
        { papers: second.papers, sentences: second.sentences, skipped: second.skipped },
        { papers: 0, sentences: 0, skipped: 1 },
      );
      assert.deepEqual(await store.counts(), { papers: 1, sentences: texSentences });
      const third = await ingest(store, [pdf], { embedder });
      assert.equal(third.papers, 0);
      assert.deepEqual(await store.counts(), { papers: 1, sentences: texSentences });
      assert.equal((await store.sources())[0].sourcePath, tex);
    } finally {
      await store.close();
    }
    // The PDF first, then its LaTeX source: the LaTeX text replaces the PDF's, under the stored paper's id; again: nothing.
    const reverse = await openStore(join(dir, 'corpus-reverse'));
    try {
      await ingest(reverse, [pdf], { embedder });
      const [before] = await reverse.sources();
      const second = await ingest(reverse, [tex], { embedder });
      assert.equal(second.merged, 1);
      const after = await reverse.sources();
      assert.equal(after.length, 1);
      assert.equal(after[0].id, before.id);
      assert.equal(after[0].sourcePath, tex);
      assert.deepEqual(await reverse.counts(), { papers: 1, sentences: texSentences });
      const [one] = await papers(reverse);
      assert.equal(one.paper.title, TITLE);
      assert.deepEqual(one.paper.authors, ['Elin Falk', 'Kwabena Asante', 'Noor van Rijswijk']);
      const third = await ingest(reverse, [tex, pdf], { embedder });
      assert.deepEqual({ papers: third.papers, sentences: third.sentences }, { papers: 0, sentences: 0 });
      assert.deepEqual(await reverse.counts(), { papers: 1, sentences: texSentences });
    } finally {
      await reverse.close();
    }
  },
);

/** The sample's source with its \title taken out (the title set elsewhere: a supplement, a chapter file, a custom macro). */
function withoutTitle(path: string): void {
  writeFileSync(path, readFileSync(SAMPLE, 'utf8').replace(/^\\title\{.*\}\n/m, ''));
}

test(
  'a LaTeX source without \\title and the PDF compiled with the title are one paper, with the LaTeX text and the real title',
  { skip: noPdflatex, timeout: 300_000 },
  async () => {
    const dir = texAndPdf();
    withoutTitle(join(dir, 'paper.tex'));
    const tex = (await readPaperFile(join(dir, 'paper.tex'))).papers[0];
    assert.equal(tex.title, 'Introduction', 'on its own the source is shown by its first heading');
    const store = await openStore(join(dir, 'corpus'));
    try {
      const first = await ingest(store, [dir], { embedder });
      assert.deepEqual(first.failed, []);
      assert.equal(first.papers, 1, 'one paper');
      assert.equal(first.sentences, tex.sentences.length, 'the LaTeX text');
      const [one] = await papers(store);
      assert.equal(one.sourcePath, join(dir, 'paper.tex'));
      assert.equal(one.paper.title, TITLE, "the PDF's title, not the first heading");
      assert.match(one.paper.citationKey ?? '', /^falk2024/);
      assert.doesNotMatch(one.paper.citationKey ?? '', /introduction/);
    } finally {
      await store.close();
    }
  },
);

test(
  "a LaTeX source without \\title beside the user's .bib entry (no DOI): one paper, under the user's key, with its title",
  { timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-one-work-untitled-bib-'));
    dirs.push(dir);
    withoutTitle(join(dir, 'paper.tex'));
    const abstract = /\\begin\{abstract\}([\s\S]*?)\\end\{abstract\}/.exec(readFileSync(SAMPLE, 'utf8'))![1].trim();
    writeFileSync(
      join(dir, 'refs.bib'),
      `@article{Falk:2024pq,\n  title = {${TITLE}},\n  author = {Falk, Elin and Asante, Kwabena and van Rijswijk, Noor},\n  year = {2024},\n  abstract = {${abstract}}\n}\n`,
    );
    const store = await openStore(join(dir, 'corpus'));
    try {
      const first = await ingest(store, [dir], { embedder });
      assert.deepEqual(first.failed, []);
      assert.equal((await store.counts()).papers, 1, 'one paper');
      const [one] = await papers(store);
      assert.equal(one.sourcePath, join(dir, 'paper.tex'));
      assert.deepEqual([one.paper.title, one.paper.citationKey], [TITLE, 'Falk:2024pq']);
    } finally {
      await store.close();
    }
  },
);

test(
  'across runs: a LaTeX source without \\title indexed after its PDF joins it and takes its title',
  { skip: noPdflatex, timeout: 300_000 },
  async () => {
    const dir = texAndPdf();
    withoutTitle(join(dir, 'paper.tex'));
    const store = await openStore(join(dir, 'corpus'));
    try {
      await ingest(store, [join(dir, 'paper.pdf')], { embedder });
      const second = await ingest(store, [join(dir, 'paper.tex')], { embedder });
      assert.deepEqual(second.failed, []);
      assert.equal((await store.counts()).papers, 1, 'one paper');
      const [one] = await papers(store);
      assert.equal(one.sourcePath, join(dir, 'paper.tex'), 'the LaTeX text replaced the PDF');
      assert.equal(one.paper.title, TITLE);
    } finally {
      await store.close();
    }
  },
);
