// The sentence at the cursor must cost the same in a 200-line and a 20,000-line paper.
import { TextModel } from '../src/core/text/index.ts';
import { generateLatexPaper, rng } from './generate-paper.ts';
import { fmt, median, percentile, timeMs } from './stats.ts';
import { split as sentenceSplitterSplit } from 'sentence-splitter';
import { splitSentences } from '../src/core/text/split.ts';
import { evalPath } from '../test/support/eval.ts';
import { loadSbdCases, scoreSbd, type Splitter } from '../test/support/sbd-score.ts';

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

const SBD_SUITES: Array<[label: string, file: string]> = [
  ['pragmatic-segmenter English spec', 'pragmatic_segmenter_english_spec_all.json'],
  ['pySBD regression issues', 'pysbd_regression_issues_en.json'],
  ['Golden Rules (pySBD)', 'golden_rules_en_pysbd.json'],
];

const intlSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

const SPLITTERS: Array<[name: string, split: Splitter]> = [
  ['Corpus Lens', splitSentences],
  ['Intl.Segmenter', (text) => [...intlSegmenter.segment(text)].map((s) => ({ start: s.index, end: s.index + s.segment.length }))],
  [
    'sentence-splitter',
    (text) =>
      sentenceSplitterSplit(text)
        .filter((n) => n.type === 'Sentence')
        .map((n) => ({ start: n.range[0], end: n.range[1] })),
  ],
];

/** Sentence-boundary suites (../shared/eval/sbd, scored as its README says) against two common splitters. */
function sbdTable(): void {
  console.log('## Sentence boundaries: cases passed (exact sentence lists after trimming)');
  const rows = SBD_SUITES.map(([label, file]) => [label, evalPath('sbd', file)] as const);
  if (rows.every(([, path]) => !path)) {
    console.log('(skipped: ../shared/eval/sbd absent)');
    return;
  }
  console.log(`| suite | ${SPLITTERS.map(([name]) => name).join(' | ')} |`);
  console.log(`|---|${SPLITTERS.map(() => '---:').join('|')}|`);
  for (const [label, path] of rows) {
    if (!path) continue;
    const cases = loadSbdCases(path);
    const cells = SPLITTERS.map(([, split]) => {
      const s = scoreSbd(cases, split);
      return `${s.passed}/${s.total} (${((100 * s.passed) / s.total).toFixed(1)}%)`;
    });
    console.log(`| ${label} (${cases.length} cases) | ${cells.join(' | ')} |`);
  }
}

export async function run(): Promise<void> {
  sbdTable();
  const short = generateLatexPaper(200, 7);
  const long = generateLatexPaper(20_000, 7);
  const s = lookupTimes(short, 11);
  const l = lookupTimes(long, 11);
  const ratio = median(l.all) / median(s.all);
  console.log('## Text engine: sentence at cursor (LaTeX, random offsets, outline cached per document version)');
  console.log(
    `200-line paper    (${short.length} chars): median ${fmt(median(s.all))}, p95 ${fmt(percentile(s.all, 95))}; in prose only: median ${fmt(median(s.prose))} (${s.prose.length} lookups)`,
  );
  console.log(
    `20,000-line paper (${long.length} chars): median ${fmt(median(l.all))}, p95 ${fmt(percentile(l.all, 95))}; in prose only: median ${fmt(median(l.prose))} (${l.prose.length} lookups)`,
  );
  console.log(
    `ratio long/short (median): ${ratio.toFixed(2)}  [target < 2; long-file median target ≤ 0.5 ms: ${median(l.all) <= 0.5 ? 'met' : 'NOT met'}]`,
  );
  const outlineMs = median(Array.from({ length: 9 }, () => timeMs(() => new TextModel(long, 'latex').sentenceAt(0))));
  console.log(`outline build for the 20,000-line paper (once per document version, i.e. after an edit): ${fmt(outlineMs)}`);
  const whole = median(Array.from({ length: 5 }, () => timeMs(() => new TextModel(long, 'latex').sentences())));
  const count = new TextModel(long, 'latex').sentences().length;
  console.log(
    `whole-document segmentation of the 20,000-line paper: ${fmt(whole)} (${count} sentences, ${((count / whole) * 1000).toFixed(0)} sentences/s)`,
  );
}
