// A LaTeX source without \title is stored under a made-up name (its first heading), marked as made up; when a later
// ingest run brings a real title for the same work (the PDF compiled from it, the user's .bib entry), the stored
// paper takes it without its sentences being written again, and Corpus Health lists the paper until then. Real
// pdflatex, real PGlite, corpus-lens ingest's pipeline.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineEmbedder } from '../../src/core/embed/index.ts';
import { readPaperFile } from '../../src/core/ingest/index.ts';
import { ingest } from '../../src/core/ingest/pipeline.ts';
import { healthReport } from '../../src/core/health/report.ts';
import { healthMarkdown } from '../../src/core/health/markdown.ts';
import { openStore } from '../../src/core/store/index.ts';
import type { CorpusStore } from '../../src/core/store/types.ts';
import { projectRoot } from '../support/eval.ts';
import { noPdflatex } from '../support/pdflatex.ts';

const SAMPLE = join(projectRoot, 'samples', 'corpus', 'falk2024quantization.tex');
const TITLE = 'How Much Recall Does Quantisation Cost? Product Quantisation for Sentence Embeddings';
const ABSTRACT = /\\begin\{abstract\}([\s\S]*?)\\end\{abstract\}/.exec(readFileSync(SAMPLE, 'utf8'))![1].trim();
const embedder = createOfflineEmbedder();
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cl-made-up-title-'));
  dirs.push(dir);
  return dir;
}

/** paper.pdf compiled from the sample (with its \title), and paper.tex: the sample without \title. */
function untitledTexAndPdf(): string {
  const dir = folder();
  copyFileSync(SAMPLE, join(dir, 'paper.tex'));
  execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', 'paper.tex'], { cwd: dir, stdio: 'ignore', timeout: 60_000 });
  for (const ext of ['aux', 'log']) rmSync(join(dir, `paper.${ext}`), { force: true });
  untitledTex(dir);
  return dir;
}

function untitledTex(dir: string): void {
  writeFileSync(join(dir, 'paper.tex'), readFileSync(SAMPLE, 'utf8').replace(/^\\title\{.*\}\n/m, ''));
}

/** The one stored paper as a hit carries it, with its source file and BibTeX. */
async function onePaper(store: CorpusStore) {
  const sources = await store.sources();
  assert.equal(sources.length, 1, 'one paper');
  const [hit] = await store.matchKeyword('quantisation', { count: 1, paperIds: [sources[0].id] });
  const [bib] = await store.paperBibtex!([sources[0].id]);
  return { ...sources[0], paper: hit.paper, bibtex: bib?.bibtex ?? null };
}

test(
  "the .tex in one run, its PDF in a later one: one paper with the PDF's title and the LaTeX text; Corpus Health lists the made-up title until then",
  { skip: noPdflatex, timeout: 120_000 },
  async () => {
    const dir = untitledTexAndPdf();
    const tex = join(dir, 'paper.tex');
    const texSentences = (await readPaperFile(tex)).papers[0].sentences.length;
    const store = await openStore(join(dir, 'corpus'));
    try {
      await ingest(store, [tex], { embedder });
      const before = await onePaper(store);
      assert.equal(before.paper.title, 'Introduction', 'shown by its first heading');
      assert.equal(before.paper.metadataProposedBy, 'its first heading', 'and marked as made up from it');
      const health = await healthReport(store, { db: 'corpus' });
      assert.deepEqual(
        health.missingTitle.map((f) => [f.paper.id, f.paper.title, f.paper.titleMadeUpFrom]),
        [[before.id, 'Introduction', 'its first heading']],
        'Corpus Health lists the made-up title as missing',
      );
      assert.deepEqual(health.proposedMetadata, [], 'not as metadata a model proposed');
      assert.equal(
        health.missingTitle[0].fix.command,
        `corpus-lens ingest --db corpus ${join(dir, 'paper.pdf')}`,
        'its fix indexes the PDF',
      );
      assert.match(healthMarkdown(health), /## Without a title \(1\)[\s\S]*Introduction _\(made up from its first heading\)_/);

      const second = await ingest(store, [join(dir, 'paper.pdf')], { embedder });
      assert.deepEqual(second.failed, []);
      assert.deepEqual(
        { papers: second.papers, sentences: second.sentences, retitled: second.retitled },
        { papers: 0, sentences: 0, retitled: 1 },
      );
      assert.deepEqual(await store.counts(), { papers: 1, sentences: texSentences }, 'one paper, the LaTeX sentences (not written again)');
      const one = await onePaper(store);
      assert.equal(one.id, before.id);
      assert.equal(one.sourcePath, tex, 'the LaTeX text stays');
      assert.equal(one.paper.title, TITLE, "the PDF's title");
      assert.equal(one.paper.metadataProposedBy ?? null, null, 'no longer marked');
      assert.match(one.paper.citationKey ?? '', /^falk2024/);
      assert.doesNotMatch(one.paper.citationKey ?? '', /introduction/, 'the key made from the heading is made again');
      assert.match(one.bibtex ?? '', /title = \{\{How Much Recall/);
      // A sentence of the paper finds the one paper only: the PDF is not a second copy that matches it.
      const hits = await store.matchKeyword('product quantisation recall sentence embeddings', { count: 10 });
      assert.deepEqual([...new Set(hits.map((h) => h.paper.id))], [one.id]);
      const health2 = await healthReport(store, { db: 'corpus' });
      assert.deepEqual([health2.missingTitle, health2.duplicates], [[], []]);

      const third = await ingest(store, [join(dir, 'paper.pdf')], { embedder });
      assert.deepEqual({ papers: third.papers, retitled: third.retitled ?? 0 }, { papers: 0, retitled: 0 }, 'again: nothing to do');

      // Re-indexing the .tex alone (Corpus Health's fix for other problems) writes its text again, under the real title.
      const fourth = await ingest(store, [tex], { embedder, reindex: true });
      assert.deepEqual([fourth.papers, fourth.sentences], [1, texSentences], 'the LaTeX text written again');
      const reindexed = await onePaper(store);
      assert.deepEqual(
        [reindexed.id, reindexed.paper.title, reindexed.paper.metadataProposedBy ?? null, reindexed.paper.citationKey],
        [one.id, TITLE, null, one.paper.citationKey],
        'the title the PDF brought stays, with its key',
      );

      // An edit that changes no sentence (a comment) writes the paper again under its id on a plain run: the title
      // stays too (the PDF, unchanged and recorded as a copy, is not read again to bring it back).
      appendFileSync(tex, '% a note to self\n');
      const fifth = await ingest(store, [dir], { embedder });
      assert.deepEqual([fifth.failed, fifth.papers], [[], 1], 'the LaTeX text written again');
      const edited = await onePaper(store);
      assert.deepEqual(
        [edited.id, edited.paper.title, edited.paper.metadataProposedBy ?? null, edited.paper.citationKey],
        [one.id, TITLE, null, one.paper.citationKey],
        'the title the PDF brought stays after an edit',
      );
    } finally {
      await store.close();
    }
  },
);

test(
  "a user's .bib key stays when the PDF brings the title: the .tex and a .bib entry without a title, then the PDF",
  { skip: noPdflatex, timeout: 120_000 },
  async () => {
    const dir = untitledTexAndPdf();
    writeFileSync(
      join(dir, 'refs.bib'),
      `@article{Falk:2024pq,\n  author = {Falk, Elin and Asante, Kwabena and van Rijswijk, Noor},\n  year = {2024},\n  abstract = {${ABSTRACT}}\n}\n`,
    );
    const store = await openStore(join(dir, 'corpus'));
    try {
      await ingest(store, [join(dir, 'paper.tex'), join(dir, 'refs.bib')], { embedder });
      const before = await onePaper(store);
      assert.deepEqual([before.paper.title, before.paper.citationKey], ['Introduction', 'Falk:2024pq']);
      const second = await ingest(store, [join(dir, 'paper.pdf')], { embedder });
      assert.deepEqual(second.failed, []);
      const one = await onePaper(store);
      assert.deepEqual([one.paper.title, one.paper.citationKey], [TITLE, 'Falk:2024pq'], "the PDF's title, the user's key");
      assert.match(one.bibtex ?? '', /^@article\{Falk:2024pq,/, "the user's entry");
    } finally {
      await store.close();
    }
  },
);

test(
  "the .tex in one run, the user's .bib entry (no DOI) in a later one: one paper with its title, under the user's key",
  { timeout: 60_000 },
  async () => {
    const dir = folder();
    untitledTex(dir);
    writeFileSync(
      join(dir, 'refs.bib'),
      `@article{Falk:2024pq,\n  title = {${TITLE}},\n  author = {Falk, Elin and Asante, Kwabena and van Rijswijk, Noor},\n  year = {2024},\n  abstract = {${ABSTRACT}}\n}\n`,
    );
    const store = await openStore(join(dir, 'corpus'));
    try {
      await ingest(store, [join(dir, 'paper.tex')], { embedder });
      const second = await ingest(store, [join(dir, 'refs.bib')], { embedder });
      assert.deepEqual(second.failed, []);
      const one = await onePaper(store);
      assert.equal(one.sourcePath, join(dir, 'paper.tex'), 'the LaTeX text stays');
      assert.deepEqual([one.paper.title, one.paper.citationKey], [TITLE, 'Falk:2024pq']);
    } finally {
      await store.close();
    }
  },
);
