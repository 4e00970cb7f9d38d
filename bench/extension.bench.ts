// The extension's own costs: activation (target ≤ 15 ms: nothing heavy loads), and the time from cursor idle
// to results posted with the offline embedder — sentence at cursor, embedding, match with context, mapping
// for the panel, recurring-word highlighting — on the sample corpus and on a large synthetic-text corpus
// (target p50 ≤ 15 ms of our own time), plus the memory the open corpus adds. BENCH_SCALE=small: 10k sentences
// instead of 100k. The sample corpus is also measured through the corpus process the extension uses
// (openRemoteStore, dist/store-host.js): the lookup's IPC cost, and the memory it adds here (this process stands in
// for the extension host) and in the child.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder } from '../src/core/embed/index.ts';
import { search } from '../src/core/retrieve/index.ts';
import { highlightTerms } from '../src/core/retrieve/recurring.ts';
import { openStore } from '../src/core/store/index.ts';
import { openRemoteStore } from '../src/core/store/backends/remote.ts';
import type { CorpusStore, PaperInput } from '../src/core/store/types.ts';
import { TextModel } from '../src/core/text/index.ts';
import { toHitView } from '../src/extension/panel/hit-view.ts';
import { rng } from './generate-paper.ts';
import { fmt, median, percentile } from './stats.ts';

const root = join(__dirname, '..');

/**
 * Activation in a fresh plain node process (bench/activation-probe.cjs), the way the extension host loads it, and
 * the features' load on first use after it.
 */
function activationMs(): { activation: number; features: number } {
  const [activation, features] = execFileSync(process.execPath, [join(__dirname, 'activation-probe.cjs')], { encoding: 'utf8' })
    .split(' ')
    .map(Number);
  return { activation, features };
}

async function lookupTimes(
  store: CorpusStore,
  paper: string,
  queries: number,
): Promise<{ total: number[]; parts: Record<string, number[]> }> {
  const model = new TextModel(paper, 'latex');
  const prose = model.sentences();
  const embedder = createEmbedder({ provider: 'offline' });
  const next = rng(5);
  const parts: Record<string, number[]> = { sentence: [], embed: [], match: [], view: [] };
  const total: number[] = [];
  for (let i = 0; i < queries; i++) {
    const s = prose[Math.floor(next() * prose.length)];
    const t0 = performance.now();
    const sentence = model.sentenceAt(s.start + 1)!;
    const t1 = performance.now();
    const text = `${sentence.clean} ${i}`; // a new text every time: no embedding cache hit
    const [vector] = await embedder.embed([text]);
    const t2 = performance.now();
    const hits = await search(
      store,
      { model: embedder.model, dimensions: embedder.dimensions, embed: async () => [vector] },
      text,
      'vector',
      { k: 25 },
    );
    const t3 = performance.now();
    const views = hits.map((h) => toHitView(h));
    highlightTerms({ texts: views.map((v) => v.sentence.text), query: sentence.clean }, { mode: 'recurring' });
    const t4 = performance.now();
    parts.sentence.push(t1 - t0);
    parts.embed.push(t2 - t1);
    parts.match.push(t3 - t2);
    parts.view.push(t4 - t3);
    total.push(t4 - t0);
  }
  return { total, parts };
}

/**
 * The author's first lookup after VS Code starts, through a new corpus process: cold (the process starts, opens the
 * folder and loads the index when the first sentence is looked up) against opened ahead (CorpusService.warm: the
 * same opening and a unit-vector query start when a paper becomes visible; the first lookup comes after it).
 */
async function coldFirstLookup(dir: string, paper: string): Promise<void> {
  const script = join(root, 'dist', 'store-host.js');
  const embedder = createEmbedder({ provider: 'offline' });
  const text = new TextModel(paper, 'latex').sentences()[3].clean;
  const cold: number[] = [];
  const warmed: number[] = [];
  const warmUp: number[] = [];
  for (let i = 0; i < 3; i++) {
    let t0 = performance.now();
    let store = await openRemoteStore(dir, {}, { script });
    await store.meta();
    await store.counts();
    await search(store, embedder, `${text} ${i}`, 'vector', { k: 25 });
    cold.push(performance.now() - t0);
    await store.close();
    t0 = performance.now();
    store = await openRemoteStore(dir, {}, { script });
    const meta = (await store.meta())!;
    await store.counts();
    const unit = new Float32Array(meta.dimensions);
    unit[0] = 1;
    await store.matchVector(unit, { count: 1 });
    warmUp.push(performance.now() - t0);
    t0 = performance.now();
    await search(store, embedder, `${text} ${i}`, 'vector', { k: 25 });
    warmed.push(performance.now() - t0);
    await store.close();
  }
  console.log(
    `first lookup after start, sample corpus, through a new corpus process: cold ${fmt(median(cold))} (median of 3); ` +
      `opened ahead ${fmt(median(warmed))} [target ≤ 2 s] (×${(median(cold) / median(warmed)).toFixed(1)} faster), ` +
      `after a warm-up of ${fmt(median(warmUp))} that starts when a paper or the panel becomes visible`,
  );
}

/** A process's resident memory in bytes (Linux: VmRSS of /proc/<pid>/status), or NaN elsewhere. */
function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb ? Number(kb[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

function report(label: string, r: { total: number[]; parts: Record<string, number[]> }): void {
  const parts = Object.entries(r.parts)
    .map(([k, v]) => `${k} ${fmt(median(v))}`)
    .join(', ');
  console.log(`${label}: cursor idle → results p50 ${fmt(median(r.total))}, p95 ${fmt(percentile(r.total, 95))} (${parts})`);
}

/** A corpus of `n` sentences of synthetic scientific text (words of the sample corpus, shuffled). */
async function syntheticCorpus(dir: string, n: number): Promise<CorpusStore> {
  const words = readFileSync(join(root, 'samples', 'corpus', 'lindqvist2021phrasebank.tex'), 'utf8').match(/[a-z]{3,}/g)!;
  const next = rng(9);
  const embedder = createEmbedder({ provider: 'offline', cache: { maxBytes: 1 } });
  const store = await openStore(dir);
  await store.init({ model: embedder.model, dimensions: embedder.dimensions });
  const bulk = store as unknown as { dropSearchIndexes(): Promise<void>; createSearchIndexes(): Promise<void> };
  await bulk.dropSearchIndexes();
  const perPaper = 50;
  for (let p = 0; p * perPaper < n; p += 40) {
    const papers: PaperInput[] = [];
    for (let q = p; q < p + 40 && q * perPaper < n; q++) {
      const texts = Array.from(
        { length: perPaper },
        () => Array.from({ length: 8 + Math.floor(next() * 14) }, () => words[Math.floor(next() * words.length)]).join(' ') + '.',
      );
      const vectors = await embedder.embed(texts);
      papers.push({
        id: `synthetic-${q}`,
        title: `Synthetic paper ${q}`,
        sentences: texts.map((text, i) => ({
          sectionIndex: Math.floor(i / 10),
          sectionTitle: `Section ${Math.floor(i / 10)}`,
          sentenceIndex: i % 10,
          globalIndex: i,
          text,
          embedding: vectors[i],
        })),
      });
    }
    await store.writePapers(papers);
  }
  await bulk.createSearchIndexes(); // one build at the end: live HNSW inserts cost ~4 ms a row in PGlite
  return store;
}

export async function run(): Promise<void> {
  console.log('## Extension: activation and cursor-idle-to-results (offline embedder)');
  execFileSync(process.execPath, [join(root, 'esbuild.mjs'), '--production'], { cwd: root });
  activationMs(); // warm the file cache
  const probes = Array.from({ length: 7 }, activationMs);
  const activations = probes.map((p) => p.activation);
  const baseline = median(
    Array.from({ length: 7 }, () =>
      Number(
        execFileSync(
          process.execPath,
          ['-e', 'const t=process.hrtime.bigint();require("node:fs");process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))'],
          { encoding: 'utf8' },
        ),
      ),
    ),
  );
  console.log(
    `activation (production dist/extension.js: require + activate, vscode stubbed): median ${fmt(median(activations))} [target ≤ 15 ms]; ` +
      `baseline (an empty require in the same kind of process): ${fmt(baseline)} (×${(median(activations) / baseline).toFixed(1)}); ` +
      `then the features on first use (dist/features.js: require + activateFeatures): median ${fmt(median(probes.map((p) => p.features)))}`,
  );

  const paper = readFileSync(join(root, 'samples', 'sample-paper.tex'), 'utf8');
  const sampleDir = join(mkdtempSync(join(tmpdir(), 'cl-bench-ext-')), 'sample');
  execFileSync(process.execPath, [join(root, 'dist', 'cli.js'), 'ingest', '--db', sampleDir, join(root, 'samples', 'corpus')], {
    cwd: root,
  });
  // The embedder's tables and the text code load before any memory is counted; the corpus process is measured
  // first, since PGlite opened in this process would leave its memory here.
  await createEmbedder({ provider: 'offline' }).embed([new TextModel(paper, 'latex').sentences()[0].clean]);
  await coldFirstLookup(sampleDir, paper);
  const rssRemoteBefore = process.memoryUsage().rss;
  const remote = await openRemoteStore(sampleDir, {}, { script: join(root, 'dist', 'store-host.js') });
  await lookupTimes(remote, paper, 5);
  const remoteTimes = await lookupTimes(remote, paper, 100);
  report(`sample corpus through the corpus process (${(await remote.counts()).sentences} sentences)`, remoteTimes);
  const remoteAdded = process.memoryUsage().rss - rssRemoteBefore;
  const childRss = rssOf(remote.pid);
  await remote.close();

  const rssBefore = process.memoryUsage().rss;
  const sample = await openStore(sampleDir);
  await lookupTimes(sample, paper, 5); // first lookups pay for PGlite's warm-up
  const localTimes = await lookupTimes(sample, paper, 100);
  report(`sample corpus (${(await sample.counts()).sentences} sentences)`, localTimes);
  const localAdded = process.memoryUsage().rss - rssBefore;
  console.log(`memory added by the open sample corpus: ${mb(localAdded)} RSS`);
  await sample.close();
  const p50 = (r: { total: number[]; parts: Record<string, number[]> }, part?: string) => median(part ? r.parts[part] : r.total);
  console.log(
    `corpus process vs in-process, sample corpus: match p50 ${fmt(p50(remoteTimes, 'match'))} vs ${fmt(p50(localTimes, 'match'))} ` +
      `(×${(p50(remoteTimes, 'match') / p50(localTimes, 'match')).toFixed(2)}, +${fmt(p50(remoteTimes, 'match') - p50(localTimes, 'match'))} IPC); ` +
      `cursor idle → results p50 ${fmt(p50(remoteTimes))} vs ${fmt(p50(localTimes))} (×${(p50(remoteTimes) / p50(localTimes)).toFixed(2)})`,
  );
  console.log(
    `memory the open sample corpus adds to this process (the extension host's stand-in): ${mb(remoteAdded)} RSS with the corpus process ` +
      `vs ${mb(localAdded)} in-process; the corpus process itself: ${mb(childRss)} RSS`,
  );

  const n = process.env.BENCH_SCALE === 'small' ? 10_000 : 100_000;
  const t0 = Date.now();
  const bigDir = join(mkdtempSync(join(tmpdir(), 'cl-bench-ext-')), 'big');
  await (await syntheticCorpus(bigDir, n)).close();
  console.log(`(built a ${n}-sentence corpus in ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  const big = await openStore(bigDir); // reopened, as a user's corpus is: its buffer cache sized to it
  await lookupTimes(big, paper, 5);
  report(`${n.toLocaleString('en')}-sentence corpus, in-process`, await lookupTimes(big, paper, 100));
  await big.close();
  // What the extension does: the same corpus through the corpus process.
  const bigRemote = await openRemoteStore(bigDir, {}, { script: join(root, 'dist', 'store-host.js') });
  await lookupTimes(bigRemote, paper, 5);
  report(
    `${n.toLocaleString('en')}-sentence corpus through the corpus process [target p50 ≤ 15 ms]`,
    await lookupTimes(bigRemote, paper, 100),
  );
  console.log(`the corpus process at ${n.toLocaleString('en')} sentences: ${mb(rssOf(bigRemote.pid))} RSS`);
  await bigRemote.close();
}
