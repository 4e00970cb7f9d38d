// The checks themselves: one citing sentence against one cited paper (checkCitation), corpus papers that support
// a sentence better (suggestAlternatives), completion candidates by support (rankForCompletion), and a whole
// document (checkDocument). The paper's stored sentences come from the store in one statement (with their stored
// vectors where the corpus was built by this embedder); score.ts scores them; the optional LLM verdict (llm.ts)
// is asked on the closest sentences.
import type { BibIndex } from '../bib/bib-index.js';
import type { PaperRef, StoredSentence } from '../store/types.js';
import { PaperCatalog } from './catalog.js';
import { findCitations } from './find.js';
import { judgeWithLlm } from './llm.js';
import { scorePaper } from './score.js';
import { CHECK_THRESHOLD, CITATION_NEEDED_THRESHOLD } from './threshold.js';
import { TextModel } from '../text/index.js';
import { lineStarts, positionAt } from '../text/lines.js';
import type {
  Alternative,
  CheckContext,
  CheckOptions,
  CitationCheck,
  CiteFormat,
  CompletionCandidate,
  DocumentCheck,
  DocumentCheckOptions,
  Evidence,
  PaperCatalogLike,
  RankedCandidate,
  SiteCiteResult,
} from './types.js';

/** How many of the paper's closest sentences the LLM sees. */
const LLM_EVIDENCE = 5;

interface PaperText {
  rows: Array<Pick<StoredSentence, 'id' | 'globalIndex' | 'text' | 'sectionTitle' | 'page' | 'lineStart' | 'lineEnd' | 'embedding'>>;
}

/** Per-context caches: a document check reads each cited paper once, and the catalog once. */
const caches = new WeakMap<
  CheckContext,
  { papers: Map<string, Promise<PaperText>>; catalog?: Promise<PaperCatalogLike>; model?: Promise<string | null> }
>();

function cacheOf(ctx: CheckContext) {
  let c = caches.get(ctx);
  if (!c) caches.set(ctx, (c = { papers: new Map() }));
  return c;
}

function catalogOf(ctx: CheckContext, bib?: BibIndex | null): Promise<PaperCatalogLike> {
  if (ctx.catalog) return Promise.resolve(ctx.catalog);
  const c = cacheOf(ctx);
  return (c.catalog ??= PaperCatalog.load(ctx.store, bib ?? null));
}

function paperText(ctx: CheckContext, paperId: string): Promise<PaperText> {
  const c = cacheOf(ctx);
  let p = c.papers.get(paperId);
  if (!p) {
    p = (async (): Promise<PaperText> => {
      if (ctx.store.paperRows) return { rows: await ctx.store.paperRows(paperId, { embeddings: true, signal: ctx.signal }) };
      const texts = ctx.store.paperSentences ? await ctx.store.paperSentences(paperId, ctx.signal) : [];
      return {
        rows: texts.map((text, i) => ({
          id: -1,
          globalIndex: i,
          text,
          sectionTitle: null,
          page: null,
          lineStart: null,
          lineEnd: null,
          embedding: null,
        })),
      };
    })();
    c.papers.set(paperId, p);
  }
  return p;
}

/** True when the stored vectors come from this embedder (else the cosine term is left out rather than mixed). */
async function sameModel(ctx: CheckContext): Promise<boolean> {
  const c = cacheOf(ctx);
  const model = await (c.model ??= ctx.store.meta().then((m) => m?.model ?? null));
  return model === ctx.embedder.model;
}

const claimVectors = new WeakMap<CheckContext, Map<string, Promise<Float32Array>>>();

function claimVector(ctx: CheckContext, sentence: string): Promise<Float32Array> {
  let m = claimVectors.get(ctx);
  if (!m) claimVectors.set(ctx, (m = new Map()));
  let v = m.get(sentence);
  if (!v) m.set(sentence, (v = ctx.embedder.embed([sentence], { signal: ctx.signal, role: 'query' }).then((r) => r[0])));
  return v;
}

/** A paper's support for a sentence and its sentences best first, as Evidence. */
async function supportOf(ctx: CheckContext, sentence: string, paperId: string): Promise<{ score: number; ranked: Evidence[] }> {
  const { rows } = await paperText(ctx, paperId);
  if (!rows.length) return { score: 0, ranked: [] };
  const withVectors = rows.every((r) => r.embedding) && (await sameModel(ctx));
  const vectors = withVectors ? { claim: await claimVector(ctx, sentence), sentences: rows.map((r) => r.embedding) } : null;
  const s = scorePaper(
    sentence,
    rows.map((r) => r.text),
    vectors,
  );
  const ranked = s.sentences.map(({ index, score }) => {
    const r = rows[index];
    return {
      sentenceIndex: r.globalIndex,
      sentenceId: r.id >= 0 ? r.id : null,
      text: r.text,
      page: r.page,
      lines: r.lineStart != null ? { start: r.lineStart, end: r.lineEnd ?? r.lineStart } : null,
      section: r.sectionTitle,
      score: round(score),
    };
  });
  return { score: round(s.score), ranked };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Checks one citing sentence against the paper a key or id names. */
export async function checkCitation(
  ctx: CheckContext,
  input: { sentence: string; cite: string },
  options: CheckOptions = {},
): Promise<CitationCheck> {
  const threshold = options.threshold ?? CHECK_THRESHOLD;
  const count = options.evidence ?? 3;
  const catalog = await catalogOf(ctx);
  let paper = catalog.resolve(input.cite);
  if (!paper && !ctx.store.listPapers) {
    // A store that cannot list its papers: the cite may still be a paper id it holds.
    const rows = await paperText(ctx, input.cite);
    if (rows.rows.length) paper = { id: input.cite, title: null, authors: [], year: null, venue: null, doi: null };
  }
  if (!paper) {
    return {
      cite: input.cite,
      paper: null,
      verdict: 'not-in-corpus',
      score: 0,
      threshold,
      evidence: [],
      judgedBy: 'offline',
      reason: `${input.cite} is not in the corpus`,
    };
  }
  const { score, ranked } = await supportOf(ctx, input.sentence, paper.id);
  const supported = score >= threshold && ranked.length > 0;
  const base: CitationCheck = {
    cite: input.cite,
    paper,
    verdict: supported ? 'supported' : 'unsupported',
    score,
    threshold,
    evidence: ranked.slice(0, count),
    judgedBy: 'offline',
    reason: !ranked.length
      ? 'the corpus holds no sentence of this paper'
      : `support ${score.toFixed(2)} ${supported ? '≥' : '<'} threshold ${threshold.toFixed(2)} (best sentence ${ranked[0].sentenceIndex})`,
  };
  if (!ctx.chat || !ranked.length) return base;
  const j = await judgeWithLlm(ctx.chat, input.sentence, paper.title, ranked.slice(0, LLM_EVIDENCE), ctx.signal);
  if ('error' in j) return { ...base, reason: `${base.reason}; the model's verdict failed (${j.error}), the offline verdict stands` };
  if (j.verdict !== 'not-enough-info' && !j.quote) {
    return { ...base, reason: `${base.reason}; the model named no sentence of the paper for "${j.verdict}", the offline verdict stands` };
  }
  const verdict = j.verdict === 'not-enough-info' ? 'unsupported' : j.verdict;
  const evidence = j.quote ? [j.quote, ...ranked.filter((e) => e !== j.quote)].slice(0, count) : base.evidence;
  return {
    ...base,
    verdict,
    evidence,
    judgedBy: 'llm',
    quote: j.quote,
    reason: j.reason || `the model judged it ${j.verdict.replace(/-/g, ' ')}`,
  };
}

/** The key a paper is cited by in this project: its .bib entry's, else its corpus key. */
function keyFor(paper: PaperRef, bib: BibIndex | null | undefined): { key: string | null; inBib: boolean } {
  const e = bib?.find({ id: paper.id, doi: paper.doi, title: paper.title, citationKey: paper.citationKey });
  return e ? { key: e.key, inBib: true } : { key: paper.citationKey ?? null, inBib: false };
}

/**
 * Corpus papers that support the sentence (score ≥ threshold), best first: the store's paper ranking proposes
 * candidates, each is scored as a citation would be.
 */
export async function suggestAlternatives(
  ctx: CheckContext,
  sentence: string,
  options: { exclude?: readonly string[]; count?: number; bib?: BibIndex | null; threshold?: number } = {},
): Promise<Alternative[]> {
  const count = options.count ?? 1;
  const threshold = options.threshold ?? CHECK_THRESHOLD;
  if (count <= 0) return [];
  const exclude = new Set(options.exclude ?? []);
  const vector = await claimVector(ctx, sentence);
  const hits = await ctx.store.matchPapers(vector, sentence, { count: Math.max(5, count * 3) + exclude.size });
  const out: Alternative[] = [];
  for (const h of hits) {
    if (exclude.has(h.paper.id)) continue;
    const { score, ranked } = await supportOf(ctx, sentence, h.paper.id);
    if (score < threshold || !ranked.length) continue;
    out.push({ paper: h.paper, ...keyFor(h.paper, options.bib), score, evidence: ranked.slice(0, 3) });
  }
  return out.sort((a, b) => b.score - a.score).slice(0, count);
}

/** Completion candidates best-supporting first; those not in the corpus keep their order after the scored ones. */
export async function rankForCompletion(
  ctx: CheckContext,
  sentence: string,
  candidates: readonly CompletionCandidate[],
): Promise<RankedCandidate[]> {
  const catalog = await catalogOf(ctx);
  const byId = new Map(catalog.papers().map((p) => [p.id, p]));
  const ranked: RankedCandidate[] = [];
  for (const c of candidates) {
    const paper = (c.paperId ? byId.get(c.paperId) : undefined) ?? catalog.resolve(c.paperId ?? c.key) ?? catalog.resolve(c.key);
    if (!paper || !sentence.trim()) {
      ranked.push({ ...c, paper: paper ?? null, score: null, best: null });
      continue;
    }
    const { score, ranked: ev } = await supportOf(ctx, sentence, paper.id);
    ranked.push({ ...c, paper, score, best: ev[0] ?? null });
  }
  return ranked
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (b.r.score ?? -1) - (a.r.score ?? -1) || a.i - b.i)
    .map((x) => x.r);
}

/** A sentence that states a finding or a number (what a reader expects a citation for). */
function statesFinding(sentence: string): boolean {
  return (
    /\d/.test(sentence) ||
    /\b(show|shown|showed|found|find|finds|demonstrat\w*|report\w*|increas\w*|decreas\w*|reduc\w*|improv\w*|outperform\w*|associat\w*|caus\w*|lead[s]? to|result\w* in)\b/i.test(
      sentence,
    )
  );
}

/**
 * Every citation of a document checked: missing from the .bib, not in the corpus, or scored (with alternatives).
 * `bib` null: the project has no bibliography, so no key is reported missing from it.
 */
export async function checkDocument(
  ctx: CheckContext,
  input: { text: string; format: CiteFormat; file?: string | null; bib: BibIndex | null },
  options: DocumentCheckOptions = {},
): Promise<DocumentCheck> {
  const catalog = await catalogOf(ctx, input.bib);
  const sites = findCitations(input.text, input.format, { commands: options.commands, file: input.file ?? null });
  const out: DocumentCheck = { sites: [], citationNeeded: [], warnings: [] };
  const alternatives = options.alternatives ?? 1;
  for (const site of sites) {
    ctx.signal?.throwIfAborted();
    const cites: SiteCiteResult[] = [];
    const papers = site.keys.map((k) => catalog.resolve(k));
    for (const [i, key] of site.keys.entries()) {
      const paper = papers[i];
      if (input.bib && !input.bib.hasKey(key)) {
        cites.push({ key, status: 'missing-from-bib', paper });
        continue;
      }
      if (!paper) {
        cites.push({ key, status: 'not-in-corpus', paper: null });
        continue;
      }
      const check = await checkCitation(ctx, { sentence: site.sentence.text, cite: key }, options);
      const r: SiteCiteResult = { key, status: 'checked', paper, check };
      if (check.verdict !== 'supported' && alternatives > 0) {
        r.alternatives = await suggestAlternatives(ctx, site.sentence.text, {
          exclude: papers.filter((p): p is PaperRef => !!p).map((p) => p.id),
          count: alternatives,
          bib: input.bib,
          threshold: Math.max(options.threshold ?? CHECK_THRESHOLD, check.score),
        });
      }
      cites.push(r);
    }
    out.sites.push({ site, cites });
  }
  if (options.citationNeeded) {
    const cited = new Set(sites.map((s) => s.sentence.range.start));
    const starts = lineStarts(input.text);
    for (const s of new TextModel(input.text, input.format).sentences()) {
      if (cited.has(s.start) || !statesFinding(s.clean) || s.clean.split(/\s+/).length < 6) continue;
      // "Closely": one sentence of the paper nearly says it (its best sentence's score), not just the paper's support.
      const candidates = await suggestAlternatives(ctx, s.clean, { count: 3, bib: input.bib });
      const best = candidates.find((a) => (a.evidence[0]?.score ?? 0) >= CITATION_NEEDED_THRESHOLD);
      if (!best) continue;
      out.citationNeeded.push({
        sentence: { text: s.clean, range: { start: s.start, end: s.end } },
        line: positionAt(starts, s.start).line,
        file: input.file ?? null,
        suggestion: best,
      });
    }
  }
  return out;
}
