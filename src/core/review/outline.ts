// The evidence outline (no LLM configured): the retrieved sentences clustered by embedding (k-means with a
// deterministic farthest-first start), each cluster labelled by its most distinctive recurring phrase and quoted in
// whole sentences, emitted with citation keys as LaTeX comments or a Markdown HTML comment — notes for the author
// to write from, never prose.
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

/** A word's singular, so that "sentence" and "sentences" count as one word ("queries" → "query", "indexes" → "index"). */
function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(?:ss|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/** A phrase as compared: its words' singulars. */
function phraseKey(phrase: string): string {
  return phrase.split(' ').map(singular).join(' ');
}

/** Candidate phrases of a sentence: runs of 1–3 content words within one clause, keyed by their singulars. */
function phrases(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const clause of text.split(/[,.;:!?()[\]{}"\u201c\u201d]+/)) {
    const ws = words(clause);
    for (let i = 0; i < ws.length; i++) {
      for (let n = 1; n <= 3 && i + n <= ws.length; n++) {
        const run = ws.slice(i, i + n);
        if (run.some((w) => w.length < 3 || STOP.has(w) || /^\d+$/.test(w))) break;
        const key = phraseKey(run.join(' '));
        if (!out.has(key)) out.set(key, run.join(' '));
      }
    }
  }
  return out;
}

/**
 * The cluster's most distinctive phrases (up to `count`, default 2): runs of one to three content words that recur
 * in its sentences (in ≥ 2 of them when any does) and are rarer outside it, a longer phrase preferred over its
 * words when it recurs nearly as often. A word and its plural are one word, and no word appears in two phrases,
 * so a label never reads "sentence, sentences, retrieval". Phrases in `avoid` (keys of other themes' labels) are not used.
 */
export function clusterLabel(
  members: readonly string[],
  others: readonly string[],
  count = 2,
  avoid: ReadonlySet<string> = new Set(),
): string[] {
  const df = (texts: readonly string[]) => {
    const m = new Map<string, { c: number; forms: Map<string, number> }>();
    for (const t of texts)
      for (const [key, form] of phrases(t)) {
        const e = m.get(key) ?? { c: 0, forms: new Map<string, number>() };
        e.c++;
        e.forms.set(form, (e.forms.get(form) ?? 0) + 1);
        m.set(key, e);
      }
    return m;
  };
  const inside = df(members);
  const outside = df(others);
  const scored = [...inside.entries()].map(([key, e]) => {
    const length = key.split(' ').length;
    const share = e.c / members.length - ((outside.get(key)?.c ?? 0) / Math.max(1, others.length)) * 0.5;
    // The form written most often ("sentence retrieval" over "sentences retrieval").
    const form = [...e.forms.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0][0];
    return { key, form, c: e.c, s: share + (e.c >= 2 ? 0.1 * (length - 1) : 0) };
  });
  const recurring = scored.filter((x) => x.c >= 2 && !avoid.has(x.key));
  const pool = recurring.length ? recurring : scored.filter((x) => !avoid.has(x.key));
  pool.sort((a, b) => b.s - a.s || b.c - a.c || a.key.localeCompare(b.key));
  const used = new Set<string>();
  const out: string[] = [];
  for (let x of pool) {
    if (out.length >= count) break;
    // A phrase that holds this one and recurs in at least half as many sentences says more ("retrieval" →
    // "sentence retrieval").
    let longer: (typeof pool)[number] | undefined = x;
    while (longer) {
      x = longer;
      const shorter = x;
      longer = pool.find(
        (y) => y.key.length > shorter.key.length && ` ${y.key} `.includes(` ${shorter.key} `) && y.c >= Math.max(2, shorter.c / 2),
      );
    }
    const stems = x.key.split(' ');
    if (stems.some((w) => used.has(w))) continue;
    for (const w of stems) used.add(w);
    out.push(x.form);
  }
  return out;
}

/**
 * The whole sentence a hit belongs to, for quoting: a stored fragment (a list item cut at its semicolon, a clause
 * that starts in lower case) is joined with the neighbour it continues or that continues it.
 */
export function wholeSentence(h: Pick<Hit, 'sentence' | 'previous' | 'next'>): string {
  let text = oneLine(h.sentence.text);
  const prev = h.previous ? oneLine(h.previous.text) : '';
  const next = h.next ? oneLine(h.next.text) : '';
  if (prev && /^[\p{Ll}(,;]/u.test(text) && !/[.!?]["\u201d')\]]*$/.test(prev)) text = `${prev} ${text}`;
  if (next && !/[.!?]["\u201d')\]]*$/.test(text) && /^[\p{Ll}(]/u.test(next)) text = `${text} ${next}`;
  return text;
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
  const clusters = [...groups.values()].sort((a, b) => b.length - a.length || chosen.indexOf(a[0]) - chosen.indexOf(b[0]));
  // Larger themes pick first; a phrase that labels one theme is not another's label too.
  const taken = new Set<string>();
  return clusters.map((members) => {
    const others = chosen.filter((h) => !members.includes(h)).map((h) => h.sentence.text);
    const label = clusterLabel(
      members.map((h) => h.sentence.text),
      others,
      2,
      taken,
    );
    for (const l of label) taken.add(phraseKey(l));
    return { label, members };
  });
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
  // The whole topic, however long: cut, it would read as a different question.
  lines.push(`Topic: ${oneLine(topic)}`);
  clusters.forEach((c, i) => {
    const keys = [...new Set(c.members.map((h) => keyOfPaper.get(h.paper.id)!))];
    lines.push('');
    lines.push(
      `Theme ${i + 1}: ${c.label.join(', ') || '(mixed)'} — ${c.members.length} sentence${c.members.length > 1 ? 's' : ''}, cite: ${keys.join(', ')}`,
    );
    for (const h of c.members) {
      const where = [h.paper.year, h.sentence.sectionTitle].filter((x) => x !== null && x !== undefined && x !== '').join(', ');
      lines.push(`  [${keyOfPaper.get(h.paper.id)}] "${wholeSentence(h)}"${where ? ` (${oneLine(String(where))})` : ''}`);
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
