// Readers only (no embedding, no store): PDF pages/s, LaTeX and arXiv-HTML sentences/s, BibTeX entries/s.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readArxivHtmlText, readLatexProject, readPdfBytes } from '../src/core/ingest/index.ts';
import { readBibtexText } from '../src/core/ingest/bib.ts';
import { generateLatexPaper } from './generate-paper.ts';
import { load } from './stats.ts';

const root = join(__dirname, '..');
const fixtures = join(root, 'test', 'fixtures', 'ingest');
const shared = process.env.CORPUS_LENS_EVAL_DIR ?? join(root, '..', 'shared', 'eval');

async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t0 = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, value };
}

/** Best of n runs (after one warm-up), the usual way to read throughput on a shared machine. */
async function best<T>(n: number, fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  await fn();
  let out: { ms: number; value: T } | undefined;
  for (let i = 0; i < n; i++) {
    const r = await timed(fn);
    if (!out || r.ms < out.ms) out = r;
  }
  return out!;
}

export async function run(): Promise<void> {
  console.log('## Ingest readers (reading only: no embedding, no store)');
  const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-bench-'));
  try {
    // PDF: the two-column fixture compiled with pdflatex.
    let havePdflatex = true;
    try {
      execFileSync('pdflatex', ['--version'], { stdio: 'ignore' });
    } catch {
      havePdflatex = false;
    }
    if (havePdflatex) {
      // A longer paper: the two-column fixture's body ten times over.
      const tex = readFileSync(join(fixtures, 'twocol.tex'), 'utf8');
      const body = tex.slice(tex.indexOf('\\section{Introduction}'), tex.indexOf('\\section*{Acknowledgements}'));
      writeFileSync(join(dir, 'long.tex'), tex.replace(body, body.repeat(10)));
      for (const name of ['twocol', 'onecol', 'long']) {
        const src = name === 'long' ? join(dir, 'long.tex') : join(fixtures, `${name}.tex`);
        execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', '-output-directory', dir, src], {
          cwd: dir,
          stdio: 'ignore',
        });
        const data = new Uint8Array(readFileSync(join(dir, `${name}.pdf`)));
        const first = await timed(() => readPdfBytes(data, null));
        const r = await best(name === 'long' ? 2 : 5, () => readPdfBytes(data, null));
        const pages = Math.max(...r.value.papers[0].sentences.map((s) => s.page ?? 0));
        const sentences = r.value.papers[0].sentences.length;
        console.log(
          `PDF (${name}, ${pages} pages, ${sentences} sentences): ${((pages / r.ms) * 1000).toFixed(1)} pages/s, ${((sentences / r.ms) * 1000).toFixed(0)} sentences/s` +
            ` (${r.ms.toFixed(0)} ms per file; first read incl. loading PDF.js ${first.ms.toFixed(0)} ms)`,
        );
      }
    } else console.log('PDF: skipped (pdflatex not installed)');

    // LaTeX: the SciPy 1.0 project when the shared material is there, and a generated 20,000-line paper.
    const scipy = join(shared, 'latex', 'scipy-1.0-paper', 'paper.tex');
    if (existsSync(scipy)) {
      const r = await best(3, () => readLatexProject(scipy));
      const n = r.value.papers[0].sentences.length;
      console.log(
        `LaTeX project (SciPy 1.0, 7 files, ${n} sentences): ${((n / r.ms) * 1000).toFixed(0)} sentences/s (${r.ms.toFixed(0)} ms)`,
      );
    }
    const big = join(dir, 'big.tex');
    writeFileSync(big, generateLatexPaper(20_000, 7));
    const g = await best(3, () => readLatexProject(big));
    const gn = g.value.papers[0].sentences.length;
    console.log(
      `LaTeX (generated 20,000-line paper, ${gn} sentences): ${((gn / g.ms) * 1000).toFixed(0)} sentences/s (${g.ms.toFixed(0)} ms)`,
    );

    // arXiv HTML: the fixture page with its sections repeated 200 times.
    const page = readFileSync(join(fixtures, 'arxiv-2503.12436.html'), 'utf8');
    const sections = page.slice(page.indexOf('<section id="S1"'), page.indexOf('<section id="bib"'));
    const html = page.replace(sections, sections.repeat(200));
    const h = await best(3, () => readArxivHtmlText(html, null));
    const hn = h.value.papers[0].sentences.length;
    console.log(
      `arXiv HTML (${(html.length / 1e6).toFixed(1)} MB, ${hn} sentences): ${((hn / h.ms) * 1000).toFixed(0)} sentences/s (${h.ms.toFixed(0)} ms)`,
    );

    // BibTeX: the SciPy bibliography.
    const bibPath = join(shared, 'bibtex', 'scipy-1.0-references.bib');
    if (existsSync(bibPath)) {
      const text = readFileSync(bibPath, 'utf8');
      await readBibtexText('@misc{warm, title={Loads the parser}}', null);
      const cold = await timed(() => readBibtexText(text, null));
      const n = cold.value.index.size;
      const warm = await timed(() => readBibtexText(text + '\n@misc{added2024, title={One New Entry}}\n', null));
      console.log(
        `BibTeX (SciPy references, ${n} entries): ${((n / cold.ms) * 1000).toFixed(0)} entries/s first read (${cold.ms.toFixed(0)} ms);` +
          ` re-read with one entry added (the Cite action's case): ${warm.ms.toFixed(1)} ms`,
      );
    }
    await endToEnd(dir);
    bigBib(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Files → readers → offline embeddings → PGlite, then the same folder again (no-op). */
async function endToEnd(dir: string): Promise<void> {
  const { ingest } = await import('../src/core/ingest/pipeline.ts');
  const { openStore } = await import('../src/core/store/index.ts');
  const { createEmbedder } = await import('../src/core/embed/index.ts');
  const folder = join(dir, 'papers');
  mkdirSync(folder);
  const papers = Number(process.env.INGEST_BENCH_PAPERS ?? 400);
  for (let p = 0; p < papers; p++) {
    const body = [0, 1, 2, 3, 4]
      .map(
        (s) =>
          `## Section ${s}\n\n` +
          Array.from(
            { length: 10 },
            (_, i) => `Paper ${p} section ${s} reports result ${i} on benchmark ${(p + i) % 17} with a margin of ${i}.${p} points.`,
          ).join(' '),
      )
      .join('\n\n');
    writeFileSync(join(folder, `p${p}.md`), `---\ntitle: "Paper ${p}"\n---\n\n${body}\n`);
  }
  const inner = createEmbedder({ provider: 'offline' });
  let embedMs = 0;
  const embedder = {
    model: inner.model,
    dimensions: inner.dimensions,
    embed: async (t: readonly string[], o?: { signal?: AbortSignal }) => {
      const t0 = performance.now();
      const v = await inner.embed(t, o);
      embedMs += performance.now() - t0;
      return v;
    },
  };
  const store = await openStore(join(dir, 'corpus'));
  await store.init({ model: inner.model, dimensions: inner.dimensions }); // initdb is a one-off, not per sentence
  // The index build and statistics recount at the end of the load, timed apart.
  const sql = store as unknown as { createSearchIndexes(): Promise<void> };
  const build = sql.createSearchIndexes.bind(store);
  let buildMs = 0;
  sql.createSearchIndexes = async () => {
    const t0 = performance.now();
    await build();
    buildMs += performance.now() - t0;
  };
  const first = await timed(() => ingest(store, [folder], { embedder }));
  const n = first.value.sentences;
  const rate = (ms: number) => ((n / ms) * 1000).toFixed(0);
  console.log(
    `end to end into PGlite (${papers} Markdown papers, ${n} sentences): ${rate(first.ms)} sentences/s;` +
      ` excluding the embedder's own ${embedMs.toFixed(0)} ms: ${rate(first.ms - embedMs)} sentences/s [target ≥ 5,000];` +
      ` of which the HNSW/GIN build + BM25/section recount at the end took ${(buildMs / 1000).toFixed(1)} s` +
      ` (without it: ${rate(first.ms - embedMs - buildMs)} sentences/s)`,
  );
  const again = await timed(() => ingest(store, [folder], { embedder }));
  console.log(
    `second run on the same folder (no-op): ${again.ms.toFixed(0)} ms, ${again.value.skipped} skipped, ${again.value.sentences} sentences written (ratio to the first run: ${(again.ms / first.ms).toFixed(3)})`,
  );
  await store.close();
  cliPeak(dir, folder, n);
}

/** `corpus-lens ingest` (the built dist/cli.js, as users run it) with its wall time, CPU time and peak RSS. */
function measuredIngest(
  dir: string,
  args: string[],
): { seconds: number; cpuSeconds: number | null; peak: string; stdout: string; stderr: string } | null {
  const cli = join(root, 'dist', 'cli.js');
  if (!existsSync(cli)) return null;
  // VmHWM and the CPU time, read by a preloaded exit hook: Node reports no child's rusage.
  const hook = join(dir, 'peak-hook.cjs');
  const out = join(dir, 'peak.json');
  rmSync(out, { force: true });
  writeFileSync(
    hook,
    `process.on('exit', () => { try { const m = /VmHWM:\\s+(\\d+) kB/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'));` +
      ` const c = process.cpuUsage(); require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ kb: m ? Number(m[1]) : null, cpu: (c.user + c.system) / 1e6 })); } catch {} });\n`,
  );
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', hook, cli, 'ingest', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`corpus-lens ingest failed: ${r.stderr.slice(-400)}`);
  const seconds = (performance.now() - t0) / 1000;
  const m = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as { kb: number | null; cpu: number }) : null;
  return {
    seconds,
    cpuSeconds: m?.cpu ?? null,
    peak: m?.kb ? `${(m.kb / 1024).toFixed(0)} MB` : 'n/a (no /proc)',
    stdout: r.stdout,
    stderr: r.stderr,
  };
}

/** `corpus-lens ingest` on the same folder into a new corpus: its peak RSS. */
function cliPeak(dir: string, folder: string, n: number): void {
  const r = measuredIngest(dir, ['--db', join(dir, 'cli-corpus'), '--json', folder]);
  if (!r) return void console.log('corpus-lens ingest peak RSS: skipped (dist/cli.js missing: npm run build)');
  console.log(
    `corpus-lens ingest (${n} sentences, offline embedder, new embedded corpus): ${r.seconds.toFixed(1)} s, peak RSS ${r.peak}; ${load()}`,
  );
}

/**
 * A large .bib (INGEST_BENCH_BIB entries, default 100,000; about 200 bytes each as in an exported library, every
 * second one with a one-sentence abstract) through `corpus-lens ingest --progress` into a new embedded corpus: entries
 * a second, peak RSS, and how many progress lines came while the file was read. Target: 100k entries in ≤ 3 min.
 */
function bigBib(dir: string): void {
  const n = Number(process.env.INGEST_BENCH_BIB ?? 100_000);
  const file = join(dir, 'library.bib');
  const topics = ['retrieval', 'citation', 'embedding', 'ranking', 'parsing', 'graphs', 'attention', 'corpora'];
  const entries: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = topics[i % topics.length];
    const abstract = i % 2 ? '' : `\n  abstract = {We measure ${t} on collection ${i} and gain ${i % 41} points.},`;
    entries.push(
      `@article{k${i},\n  author = {Smith, J. and Lee${i % 97}, K.},\n  title = {On ${t} number ${i}},\n  journal = {J. ${t}},\n  year = {${1990 + (i % 35)}},${abstract}\n  doi = {10.1/${i}}\n}\n`,
    );
  }
  writeFileSync(file, entries.join('\n'));
  const mb = (statSync(file).size / 1e6).toFixed(1);
  const r = measuredIngest(dir, ['--db', join(dir, 'bib-corpus'), '--json', '--progress', file]);
  if (!r) return void console.log('.bib ingest: skipped (dist/cli.js missing: npm run build)');
  const summary = JSON.parse(r.stdout) as { papers: number; sentences: number };
  const lines = r.stderr.split('\n').filter((l) => l.includes('"filePapers"')).length;
  console.log(
    `.bib ingest (${n.toLocaleString('en')} entries, ${mb} MB, ${summary.papers} papers with abstracts, ${summary.sentences} sentences, offline embedder, new embedded corpus):` +
      ` ${r.seconds.toFixed(0)} s wall, ${r.cpuSeconds?.toFixed(0) ?? 'n/a'} s CPU, ${((n / r.seconds) * 60).toFixed(0)} entries/min [target: 100k in ≤ 180 s],` +
      ` peak RSS ${r.peak}, ${lines} progress lines inside the file; ${load()}`,
  );
}
