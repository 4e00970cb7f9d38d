// The evidence outline (no LLM configured): the retrieved sentences clustered by embedding (k-means with a
// deterministic farthest-first start), each cluster labelled by its recurring words, emitted with citation
// keys as LaTeX comments or a Markdown HTML comment — notes for the author to write from, never prose.
import { mulberry32 } from '../random.js';
import type { Embedder } from '../embed/types.js';
import type { Hit } from '../store/types.js';
import { normalize } from './rerank.js';
import { words } from '../text/match.js';
import type { OutputFormat } from './types.js';

export interface OutlineCluster {
  label: string[];
  members: Hit[];
}

const STOP = new Set(
  (
    'the a an and or of to in on for with by from as at is are was were be been being this that these those it its ' +
    'we our us they their them he she his her not no but if then than so such can could may might will would should ' +
    'has have had do does did also which who whom whose what when where while how into over under between both each ' +
    'more most other some any all only very same about after before during through via per using used use based ' +
    'however thus therefore here there one two three first second new show shows shown paper papers work approach ' +
    'method methods result results propose proposed present study studies et al e g i'
  ).split(/\s+/),
);

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Bag-of-words vectors (hashed), for corpora searched without an embedder. */
export function wordVectors(texts: readonly string[], dimensions = 256): Float32Array[] {
  return texts.map((t) => {
    const v = new Float32Array(dimensions);
    for (const w of words(t)) {
      if (STOP.has(w) || w.length < 3) continue;
      let h = 2166136261;
      for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
      v[(h >>> 0) % dimensions] += 1;
    }
    return normalize(v);
  });
}

function assignAndScore(
  v: readonly Float32Array[],
  centres: readonly Float32Array[],
  assign: number[],
): { changed: boolean; score: number } {
  let changed = false;
  let score = 0;
  for (let i = 0; i < v.length; i++) {
    let best = 0;
    let bestSim = -Infinity;
    for (let c = 0; c < centres.length; c++) {
      const s = dot(v[i], centres[c]);
      if (s > bestSim) {
        bestSim = s;
        best = c;
      }
    }
    score += bestSim;
    if (assign[i] !== best) {
      assign[i] = best;
      changed = true;
    }
  }
  return { changed, score };
}

/**
 * Spherical k-means (cosine), started k-means++ style from a seeded generator, best of `restarts` runs by total
 * similarity to the centres. Deterministic for the same input.
 */
export function kMeans(vectors: readonly Float32Array[], k: number, iterations = 25, restarts = 5): number[] {
  const n = vectors.length;
  if (!n) return [];
  k = Math.max(1, Math.min(k, n));
  const v = vectors.map(normalize);
  let bestAssign: number[] = new Array<number>(n).fill(0);
  let bestScore = -Infinity;
  for (let r = 0; r < restarts; r++) {
    const rnd = mulberry32(0x5eed + r);
    const centres: Float32Array[] = [v[Math.floor(rnd() * n)]];
    const dist = v.map((x) => Math.max(0, 1 - dot(x, centres[0])));
    while (centres.length < k) {
      const total = dist.reduce((a, b) => a + b * b, 0);
      let pick: number;
      if (total > 0) {
        let x = rnd() * total;
        for (pick = 0; pick < n - 1; pick++) {
          x -= dist[pick] * dist[pick];
          if (x <= 0) break;
        }
      } else pick = centres.length % n;
      centres.push(v[pick]);
      for (let i = 0; i < n; i++) dist[i] = Math.min(dist[i], Math.max(0, 1 - dot(v[i], v[pick])));
    }
    const assign = new Array<number>(n).fill(-1);
    let score = -Infinity;
    for (let it = 0; it < iterations; it++) {
      const step = assignAndScore(v, centres, assign);
      score = step.score;
      if (!step.changed) break;
      for (let c = 0; c < centres.length; c++) {
        const sum = new Float32Array(v[0].length);
        let count = 0;
        for (let i = 0; i < n; i++) {
          if (assign[i] !== c) continue;
          count++;
          for (let d = 0; d < sum.length; d++) sum[d] += v[i][d];
        }
        if (count) centres[c] = normalize(sum);
      }
    }
    if (score > bestScore) {
      bestScore = score;
      bestAssign = assign;
    }
  }
  // Renumber clusters by first appearance, so that the order does not depend on the seed.
  const remap = new Map<number, number>();
  return bestAssign.map((c) => {
    if (!remap.has(c)) remap.set(c, remap.size);
    return remap.get(c)!;
  });
}

/** Up to `count` words recurring in the cluster (in ≥ 2 of its sentences when possible) and rarer outside it. */
export function clusterLabel(members: readonly string[], others: readonly string[], count = 3): string[] {
  const df = (texts: readonly string[]) => {
    const m = new Map<string, number>();
    for (const t of texts)
      for (const w of new Set(words(t))) if (w.length >= 3 && !STOP.has(w) && !/^\d+$/.test(w)) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  };
  const inside = df(members);
  const outside = df(others);
  const scored = [...inside.entries()].map(([w, c]) => ({
    w,
    c,
    s: c / members.length - ((outside.get(w) ?? 0) / Math.max(1, others.length)) * 0.5,
  }));
  const recurring = scored.filter((x) => x.c >= 2);
  const pool = recurring.length >= Math.min(count, 1) && recurring.length ? recurring : scored;
  return pool
    .sort((a, b) => b.s - a.s || b.c - a.c || a.w.localeCompare(b.w))
    .slice(0, count)
    .map((x) => x.w);
}

export async function clusterEvidence(
  hits: readonly Hit[],
  embedder: Embedder | null,
  options: { sentences?: number; clusters?: number; signal?: AbortSignal } = {},
): Promise<OutlineCluster[]> {
  const chosen: Hit[] = [];
  const seen = new Set<string>();
  for (const h of hits) {
    const key = h.sentence.text.toLowerCase().replace(/\s+/g, ' ').trim();
    if (seen.has(key)) continue;
    seen.add(key);
    chosen.push(h);
    if (chosen.length >= (options.sentences ?? 60)) break;
  }
  if (!chosen.length) return [];
  const texts = chosen.map((h) => h.sentence.text);
  const vectors = embedder ? await embedder.embed(texts, { signal: options.signal }) : wordVectors(texts);
  const k = options.clusters ?? Math.max(1, Math.min(6, Math.round(Math.sqrt(chosen.length / 2))));
  const assign = kMeans(vectors, k);
  const groups = new Map<number, Hit[]>();
  assign.forEach((c, i) => groups.set(c, [...(groups.get(c) ?? []), chosen[i]]));
  const clusters = [...groups.values()];
  return clusters
    .map((members) => {
      const others = chosen.filter((h) => !members.includes(h)).map((h) => h.sentence.text);
      return {
        label: clusterLabel(
          members.map((h) => h.sentence.text),
          others,
        ),
        members,
      };
    })
    .sort((a, b) => b.members.length - a.members.length || chosen.indexOf(a.members[0]) - chosen.indexOf(b.members[0]));
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** The outline as comments: LaTeX `%` lines, or one Markdown HTML comment (`--` inside neutralised). */
export function renderOutline(
  topic: string,
  clusters: readonly OutlineCluster[],
  keyOfPaper: ReadonlyMap<string, string>,
  format: OutputFormat,
): string {
  const lines: string[] = [];
  lines.push('Corpus Lens evidence outline (no LLM configured): notes to write from. Do not paste these sentences;');
  lines.push('write your own text and cite the keys shown.');
  lines.push(`Topic: ${oneLine(topic).slice(0, 300)}`);
  clusters.forEach((c, i) => {
    const keys = [...new Set(c.members.map((h) => keyOfPaper.get(h.paper.id)!))];
    lines.push('');
    lines.push(
      `Theme ${i + 1}: ${c.label.join(', ') || '(mixed)'} — ${c.members.length} sentence${c.members.length > 1 ? 's' : ''}, cite: ${keys.join(', ')}`,
    );
    for (const h of c.members) {
      const where = [h.paper.year, h.sentence.sectionTitle].filter((x) => x !== null && x !== undefined && x !== '').join(', ');
      lines.push(`  [${keyOfPaper.get(h.paper.id)}] "${oneLine(h.sentence.text)}"${where ? ` (${oneLine(String(where))})` : ''}`);
    }
  });
  if (format === 'latex') return lines.map((l) => (l ? `% ${l}` : '%')).join('\n');
  return ['<!--', ...lines.map(htmlCommentSafe), '-->'].join('\n');
}

/** Corpus text made safe inside an HTML comment: nothing in it can close the comment (`-->`) or open another. */
export function htmlCommentSafe(text: string): string {
  return text
    .replace(/--+/g, (m) => m.split('').join(' '))
    .replace(/<!/g, '< !')
    .replace(/-+>/g, (m) => m.replace(/>$/, ' >'));
}

/** Lines of the output that are not comments (an outline must have none). */
export function uncommentedLines(text: string, format: OutputFormat): number {
  if (format === 'latex') return text.split('\n').filter((l) => l.trim() && !l.trimStart().startsWith('%')).length;
  return text
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n')
    .filter((l) => l.trim()).length;
}
