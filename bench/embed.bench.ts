/**
 * Embedding bench: offline embedder throughput and per-sentence latency, and the cost of a cache hit.
 * Run alone: `node --import tsx bench/embed.bench.ts`; bench/run.ts imports `run`.
 */
import { createEmbedder, createOfflineEmbedder } from '../src/core/embed/index.js';

const WORDS = (
  'patients cirrhosis covid mortality hepatic function infection immune dysfunction hospitalization risk ' +
  'intensive care admission death cells apoptosis proliferation differentiation invasion metastasis tumor ' +
  'suppressor expression regulation pathway protein gene receptor signaling increased decreased significantly ' +
  'associated compared with the of and in to was were a an by for from that these study results showed'
).split(' ');

function sentences(n: number, seed = 1): string[] {
  let s = seed;
  const rnd = (): number => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  return Array.from({ length: n }, () => {
    const len = 12 + Math.floor(rnd() * 20);
    const w = Array.from({ length: len }, () => WORDS[Math.floor(rnd() * WORDS.length)]);
    return w.join(' ') + ` (${Math.floor(rnd() * 100)}%).`;
  });
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export async function run(): Promise<void> {
  const e = createOfflineEmbedder();
  const texts = sentences(20_000);
  e.embedSync(texts.slice(0, 1000)); // warm-up
  const t0 = performance.now();
  e.embedSync(texts);
  const ms = performance.now() - t0;
  const lat: number[] = [];
  for (const t of texts.slice(0, 2000)) {
    const a = performance.now();
    e.embedOne(t);
    lat.push(performance.now() - a);
  }
  console.log(`embed/offline ${e.model} (${e.dimensions}-d): ${Math.round(texts.length / (ms / 1000))} sentences/s`);
  console.log(
    `embed/offline per-sentence latency: mean ${((ms / texts.length) * 1000).toFixed(1)} µs, p50 ${(pct(lat, 50) * 1000).toFixed(1)} µs, p95 ${(pct(lat, 95) * 1000).toFixed(1)} µs`,
  );

  const cached = createEmbedder({ provider: 'offline' });
  const q = texts.slice(0, 1000);
  await cached.embed(q);
  const c0 = performance.now();
  const rounds = 20;
  for (let r = 0; r < rounds; r++) await cached.embed(q);
  const hitUs = ((performance.now() - c0) / (rounds * q.length)) * 1000;
  const m0 = performance.now();
  for (let r = 0; r < rounds; r++) e.embedSync(q);
  const missUs = ((performance.now() - m0) / (rounds * q.length)) * 1000;
  console.log(
    `embed/cache hit: ${hitUs.toFixed(2)} µs per text (offline embed without cache: ${missUs.toFixed(2)} µs; ratio ${(missUs / hitUs).toFixed(1)}x)`,
  );
  const one = texts[5];
  await cached.embed([one]);
  const s0 = performance.now();
  for (let r = 0; r < 10_000; r++) await cached.embed([one]);
  console.log(`embed/cache single-text lookup (one cursor-idle query): ${(((performance.now() - s0) / 10_000) * 1000).toFixed(2)} µs`);
}

if (/embed\.bench\.[cm]?[tj]s$/.test(process.argv[1] ?? '')) {
  run().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
