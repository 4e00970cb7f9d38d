// The sentence at the cursor must cost the same in a 200-line and a 20,000-line paper.
import { TextModel } from '../src/core/text/index.ts';
import { generateLatexPaper, rng } from './generate-paper.ts';
import { fmt, median, percentile, timeMs } from './stats.ts';

const LOOKUPS = 5000;

function lookupTimes(text: string, seed: number): { all: number[]; prose: number[] } {
  const model = new TextModel(text, 'latex');
  model.sentenceAt(0); // the outline is built once per document version, outside the per-lookup cost
  const next = rng(seed);
  for (let i = 0; i < 500; i++) model.sentenceAt(Math.floor(next() * text.length)); // warm-up
  const all: number[] = [];
  const prose: number[] = [];
  for (let i = 0; i < LOOKUPS; i++) {
    const offset = Math.floor(next() * text.length);
    let found = null;
    const ms = timeMs(() => (found = model.sentenceAt(offset)));
    all.push(ms);
    if (found) prose.push(ms);
  }
  return { all, prose };
}

export async function run(): Promise<void> {
  const short = generateLatexPaper(200, 7);
  const long = generateLatexPaper(20_000, 7);
  const s = lookupTimes(short, 11);
  const l = lookupTimes(long, 11);
  const ratio = median(l.all) / median(s.all);
  console.log('## Text engine: sentence at cursor (LaTeX, random offsets, outline cached per document version)');
  console.log(`200-line paper    (${short.length} chars): median ${fmt(median(s.all))}, p95 ${fmt(percentile(s.all, 95))}; in prose only: median ${fmt(median(s.prose))} (${s.prose.length} lookups)`);
  console.log(`20,000-line paper (${long.length} chars): median ${fmt(median(l.all))}, p95 ${fmt(percentile(l.all, 95))}; in prose only: median ${fmt(median(l.prose))} (${l.prose.length} lookups)`);
  console.log(`ratio long/short (median): ${ratio.toFixed(2)}  [target < 2; long-file median target ≤ 0.5 ms: ${median(l.all) <= 0.5 ? 'met' : 'NOT met'}]`);
  const outlineMs = median(Array.from({ length: 9 }, () => timeMs(() => new TextModel(long, 'latex').sentenceAt(0))));
  console.log(`outline build for the 20,000-line paper (once per document version, i.e. after an edit): ${fmt(outlineMs)}`);
  const whole = median(Array.from({ length: 5 }, () => timeMs(() => new TextModel(long, 'latex').sentences())));
  const count = new TextModel(long, 'latex').sentences().length;
  console.log(`whole-document segmentation of the 20,000-line paper: ${fmt(whole)} (${count} sentences, ${((count / whole) * 1000).toFixed(0)} sentences/s)`);
}
