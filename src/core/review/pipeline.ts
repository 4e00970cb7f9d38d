// The related-work pipeline (after Ai2 ScholarQA): topic → decompose → retrieve → rerank → quotes → plan →
// write → check → emit, each step a function of its own, traced (duration, counts, LLM calls, tokens) and
// reported through onProgress; the AbortSignal reaches every call. Without a chat model: the evidence outline.
import {
  type CheckedSection,
  checkReview,
  checkSentences,
  joinUnits,
  keptSentence,
  paperTextSource,
  type StepContext,
  stripQuotations,
  stripShortIds,
  verifySection,
} from '../grounding/index.js';
import { bibKeys } from '../bib/bib-index.js';
import { clusterPlan, withFallback } from './fallback.js';
import { isAbortError } from '../llm/chat.js';
import { corpusVenuesOnly, decompose, ruleDecomposition } from './decompose.js';
import { corpusVenues, venueNames } from '../retrieve/question-filters.js';
import { estimateReview, type EstimateInput, type RunEstimate } from './estimate.js';
import { assignKeys, citedPaper, renderUnits, type EmitOptions } from './emit.js';
import { clusterEvidence, renderOutline, uncommentedLines } from './outline.js';
import { planSections } from './plan.js';
import { extractQuotes } from './quotes.js';
import { markSecondHand, quoteCitations } from './second-hand.js';
import { groupByPaper, rerankWithHttp, rerankWithLlm, rerankWithMmr } from './rerank.js';
import { retrieveCandidates } from './retrieve.js';
import { writeSections } from './write.js';
import { ShingleIndex, type SpanSource } from '../text/match.js';
import { resolveTopic } from './topic.js';
import { ReviewError, Tracer } from './trace.js';
import {
  OUTLINE_STEPS,
  REVIEW_STEPS,
  type CitedPaper,
  type GeneratedSection,
  type Passage,
  type ReviewOptions,
  type ReviewResult,
} from './types.js';
import type { Hit } from '../store/types.js';

export const DEFAULTS = {
  candidates: 256,
  papers: 50,
  passagesPerPaper: 4,
  concurrency: 4,
  fuzzyThreshold: 0.9,
  copySpanWords: 12,
} as const;

function topicStep(o: ReviewOptions) {
  return (ctx: StepContext) => {
    const topic = resolveTopic(o.topic, o.document);
    ctx.set('words', topic.split(/\s+/).length);
    if (!o.topic?.trim()) ctx.note('topic from the document title and abstract');
    return topic;
  };
}

function corpusSentencesOf(hits: readonly Hit[]): SpanSource[] {
  const out: SpanSource[] = [];
  const seen = new Set<number>();
  for (const h of hits) {
    for (const s of [h.previous, h.sentence, h.next]) {
      if (s && !seen.has(s.id)) {
        seen.add(s.id);
        out.push({ text: s.text, paperId: s.paperId });
      }
    }
  }
  return out;
}

/** Runs the pipeline: a cited related-work section with a chat model, else the evidence outline. */
export async function runReview(o: ReviewOptions): Promise<ReviewResult> {
  if (!o.chat) return runOutline(o);
  const chat = o.chat;
  const format = o.format ?? o.document?.format ?? 'latex';
  const emitOptions: EmitOptions = {
    format,
    cite: o.citeCommand ?? 'cite',
    sectionCommand: o.sectionCommand ?? 'subsection',
    tables: o.tables ?? false,
  };
  const tracer = new Tracer('review', chat.model, REVIEW_STEPS, o.signal, o.onProgress);
  // The cost ahead, told at the start and again when retrieval and the plan know more (ScholarQA tells it after its plan).
  const rerankKind = o.rerank?.kind ?? 'llm';
  const basis: EstimateInput = {
    passages: 2 * (o.candidates ?? DEFAULTS.candidates),
    papers: o.papers ?? DEFAULTS.papers,
    passagesPerPaper: o.passagesPerPaper ?? DEFAULTS.passagesPerPaper,
    rerank: rerankKind,
    batchSize: o.rerank?.kind === 'llm' ? o.rerank.batchSize : undefined,
    concurrency: o.concurrency ?? DEFAULTS.concurrency,
    verify: o.verify !== false,
    topicWords: resolveTopic(o.topic, o.document).split(/\s+/).length,
    at: 'start',
  };
  const estimates: RunEstimate[] = [];
  const estimate = (more: Partial<EstimateInput>) => {
    Object.assign(basis, more);
    const e = estimateReview(basis);
    estimates.push(e);
    try {
      o.onEstimate?.(e);
    } catch {
      // a failing listener must not break the run
    }
  };
  estimate({});

  const topic = await tracer.step('topic', topicStep(o));
  const decomposition = await tracer.step('decompose', async (ctx) => {
    const venues = await corpusVenues(o.store);
    return withFallback(
      ctx,
      'decompose',
      'searching with the topic itself, less the filters the rule set reads in it',
      async () => corpusVenuesOnly(await decompose(topic, chat, ctx), venues, ctx),
      async () => ruleDecomposition(topic, venueNames(venues), ctx),
    );
  });
  const { hits, queryVector } = await tracer.step('retrieve', (ctx) =>
    retrieveCandidates(o.store, o.embedder, decomposition, o.candidates ?? DEFAULTS.candidates, ctx),
  );
  estimate({ passages: hits.length, papers: Math.min(basis.papers, new Set(hits.map((h) => h.paper.id)).size), at: 'retrieve' });

  const papers = await tracer.step('rerank', async (ctx) => {
    const config = o.rerank ?? { kind: 'llm' as const };
    ctx.note(`method: ${config.kind}`);
    let passages: Passage[];
    if (config.kind === 'http') passages = await rerankWithHttp(topic, hits, config, ctx);
    else if (config.kind === 'mmr') passages = await rerankWithMmr(hits, o.embedder, queryVector, ctx, config.lambda);
    else {
      passages = await withFallback(
        ctx,
        'rerank',
        o.embedder && queryVector ? 'ranking by MMR over embeddings instead' : 'keeping the retrieval order instead',
        () => rerankWithLlm(topic, hits, chat, ctx, { batchSize: config.batchSize, concurrency: o.concurrency }),
        () => rerankWithMmr(hits, o.embedder, queryVector, ctx),
      );
    }
    const grouped = groupByPaper(passages, o.papers ?? DEFAULTS.papers, o.passagesPerPaper ?? DEFAULTS.passagesPerPaper);
    ctx.set('papers', grouped.length);
    ctx.set(
      'passages',
      grouped.reduce((n, p) => n + p.passages.length, 0),
    );
    return grouped;
  });

  const passagesOf = new Map(papers.map((p) => [p.paper.id, p.passages.map((h) => h.sentence.text).join(' ')]));
  const source = o.paperText ?? paperTextSource(o.store, (id) => passagesOf.get(id) ?? '');
  const quotes = await tracer.step('quotes', (ctx) =>
    extractQuotes(topic, papers, chat, source, ctx, {
      concurrency: o.concurrency ?? DEFAULTS.concurrency,
      fuzzyThreshold: o.fuzzyThreshold ?? DEFAULTS.fuzzyThreshold,
    }),
  );
  // What the verified quotes themselves cite: a sentence resting on one says whose claim it is (second-hand.ts).
  const quoteCites = await quoteCitations(o.store, papers, quotes);
  const plan = await tracer.step('plan', (ctx) =>
    withFallback(
      ctx,
      'plan',
      'one section per cluster of the verified quotes',
      () => planSections(topic, papers, quotes, chat, ctx),
      async () => {
        const sections = await clusterPlan(quotes, o.embedder, ctx.signal);
        ctx.set('sections', sections.length);
        return sections;
      },
    ),
  );
  estimate({ papers: papers.length, quotes: quotes.length, sections: plan.length, at: 'plan' });
  const texts = await tracer.step('write', (ctx) => writeSections(topic, plan, papers, quotes, chat, ctx, o.onToken));

  const corpusSentences = [...corpusSentencesOf(hits), ...quotes.map((q) => ({ text: q.text, paperId: q.paperId }))];
  const minWords = o.copySpanWords ?? DEFAULTS.copySpanWords;
  const quoteById = new Map(quotes.map((q) => [q.id, q]));
  const mode = o.unsupported ?? 'remove';
  const keep = keptSentence(mode);
  const checked = await tracer.step('check', async (ctx) => {
    const shingles = new ShingleIndex(corpusSentences, minWords);
    const out: (CheckedSection & { index: number })[] = [];
    for (const [i, section] of plan.entries()) {
      ctx.checkAborted();
      const c = checkSentences({
        index: i,
        text: texts[i],
        format: section.format,
        topic,
        sectionQuotes: section.quoteIds.map((id) => quoteById.get(id)!),
        allQuotes: quotes,
        papers,
        shingles,
        threshold: o.supportThreshold,
      });
      if (o.verify !== false) {
        try {
          await verifySection(c.sentences, quoteById, chat, ctx);
        } catch (err) {
          if (isAbortError(err)) throw err;
          ctx.count('verifyFailed');
          ctx.note(`verification of "${section.name}" failed (${(err as Error).message.split('\n')[0]}): offline check only`);
        }
      }
      for (const r of c.removed)
        ctx.count(
          r.reason === 'raw-citation'
            ? 'rawCitationsRemoved'
            : r.reason === 'unknown-paper'
              ? 'unknownPaperCitationsRemoved'
              : 'outOfSectionCitationsRemoved',
        );
      ctx.count('removedCitations', c.removed.length);
      for (const s of c.sentences) {
        s.kept = keep(s);
        if (s.kept) {
          const marked = markSecondHand(s, quoteById, quoteCites, papers);
          if (marked.text !== s.text) {
            ctx.count('secondHandMarked');
            ctx.note(`${s.id} rests on a quote that cites other work: marked "${marked.text.replace(/\s+/g, ' ').slice(0, 120)}"`);
            s.text = marked.text;
            s.cited = marked.cited;
          }
        }
        ctx.count('sentences');
        ctx.count(`verdict_${s.verdict}`);
        if (s.resolvedCitations.length) ctx.count('citationsConverted', s.resolvedCitations.length);
        if (s.quotations) ctx.count('quotationsMade', s.quotations);
        if (s.verdict === 'unsupported') {
          ctx.count(mode === 'flag' ? 'unsupportedFlagged' : 'unsupportedRemoved');
          if (!s.cited.length) ctx.count('uncitedClaims');
          ctx.note(
            `${s.id} ${mode === 'flag' ? 'flagged' : 'removed'}: "${s.original.replace(/\s+/g, ' ').slice(0, 100)}" — ${s.reasons.join('; ')}`,
          );
        }
      }
      const cited = new Set(c.sentences.filter((s) => s.kept).flatMap((s) => s.cited));
      if (!cited.size) {
        ctx.count('sectionsDropped');
        ctx.note(`section "${section.name}" dropped: no supported sentence citing its quotes`);
        continue;
      }
      out.push({ ...c, index: i });
    }
    for (const k of ['removedCitations', 'unsupportedRemoved', 'unsupportedFlagged', 'citationsConverted', 'quotationsMade'])
      ctx.count(k, 0);
    if (!out.length) throw new ReviewError('check', 'no written section kept a sentence supported by its verified quotes');
    return out;
  });

  return tracer
    .step('emit', (ctx) => {
      const order: string[] = [];
      for (const c of checked) for (const s of c.sentences) if (s.kept) for (const id of s.cited) if (!order.includes(id)) order.push(id);
      const cited = assignKeys(order, papers, o.existingBib);
      const keyOf = new Map(cited.map((c) => [c.shortId, c.key]));
      const keyOfPaper = new Map<string, string>(
        papers.map((p) => [p.paper.id, `"${(p.paper.title ?? p.paper.id).replace(/\s+/g, ' ').slice(0, 60)}"`]),
      );
      for (const c of cited) keyOfPaper.set(c.paper.id, c.key);
      const copyIndex = new ShingleIndex(corpusSentences, minWords);
      const sections: GeneratedSection[] = checked.map((c) => {
        const s = plan[c.index];
        const text = joinUnits(c.units, keep);
        // Copies left in kept sentences (only when unsupported ones are kept by the flag setting).
        const copiedSpans = copyIndex.find(stripShortIds(stripQuotations(text))).map((x) => ({ ...x, section: c.index }));
        const { body, table } = renderUnits(
          { title: s.name, format: s.format, units: c.units, keep, copiedSpans },
          keyOf,
          cited,
          { ...emitOptions, provenance: o.provenance ?? true },
          { quotes: quoteById, keyOfPaper },
        );
        return {
          title: s.name,
          format: s.format,
          text,
          body,
          cited: [...new Set(c.sentences.filter((x) => x.kept).flatMap((x) => x.cited))],
          quoteIds: s.quoteIds,
          removedCitations: c.removed,
          copiedSpans,
          uncitedSentences: c.sentences.filter((x) => x.kept && !x.cited.length).length,
          sentences: c.sentences,
          ...(table ? { table } : {}),
        };
      });
      const text = sections.map((s) => s.body).join('\n\n') + '\n';
      const bibtex = cited.map((c) => c.bibtex).join('\n\n') + (cited.length ? '\n' : '');
      const fresh = cited.filter((c) => !c.reused);
      const newBibtex = fresh.map((c) => c.bibtex).join('\n\n') + (fresh.length ? '\n' : '');
      ctx.set('sections', sections.length);
      ctx.set('citedPapers', cited.length);
      ctx.set('reusedKeys', cited.length - fresh.length);
      if (sections.some((s) => s.table)) ctx.set('tables', sections.filter((s) => s.table).length);
      const check = checkReview({
        format,
        sections,
        bibtex,
        keys: new Map(cited.map((c) => [c.key, c.paper.id])),
        corpusPaperIds: new Set(hits.map((h) => h.paper.id)),
        quotes,
        corpusSentences,
        copySpanWords: minWords,
        bibKeysOf: bibKeys,
      });
      const flagged = sections.reduce((n, s) => n + s.sentences.filter((x) => x.kept && x.verdict === 'unsupported').length, 0);
      check.flaggedSentences = flagged;
      check.ok &&= flagged === 0;
      return {
        mode: 'review' as const,
        topic,
        format,
        text,
        bibtex,
        newBibtex,
        cited,
        sections,
        quotes,
        decomposition,
        trace: tracer.result(),
        check,
      };
    })
    .then((r) => ({ ...r, trace: { ...tracer.result(), estimates } }));
}

/** No LLM: clusters of retrieved sentences with their citation keys, as comments (never prose). */
export async function runOutline(o: ReviewOptions): Promise<ReviewResult> {
  const format = o.format ?? o.document?.format ?? 'latex';
  const tracer = new Tracer('outline', null, OUTLINE_STEPS, o.signal, o.onProgress);
  const topic = await tracer.step('topic', topicStep(o));
  const decomposition = await tracer.step('decompose', async (ctx) => {
    ctx.note('no LLM configured: the topic is the query, less the filters the rule set reads in it');
    return ruleDecomposition(topic, venueNames(await corpusVenues(o.store)), ctx);
  });
  const { hits, queryVector } = await tracer.step('retrieve', (ctx) =>
    retrieveCandidates(o.store, o.embedder, decomposition, o.candidates ?? DEFAULTS.candidates, ctx),
  );
  const ranked = await tracer.step('rerank', async (ctx) => {
    ctx.note('method: mmr');
    const passages = await rerankWithMmr(hits, o.embedder, queryVector, ctx);
    return passages.map((p) => p.hit);
  });
  const clusters = await tracer.step('cluster', async (ctx) => {
    const c = await clusterEvidence(ranked, o.embedder, { sentences: o.outlineSentences, clusters: o.outlineClusters, signal: ctx.signal });
    ctx.set('clusters', c.length);
    ctx.set(
      'sentences',
      c.reduce((n, x) => n + x.members.length, 0),
    );
    return c;
  });
  return tracer
    .step('emit', (ctx) => {
      const taken = new Set(o.existingBib?.keys ?? []);
      const cited: CitedPaper[] = [];
      const keyOfPaper = new Map<string, string>();
      for (const c of clusters) {
        for (const h of c.members) {
          if (keyOfPaper.has(h.paper.id)) continue;
          const cp = citedPaper(h.paper, `P${cited.length + 1}`, o.existingBib, taken);
          cited.push(cp);
          keyOfPaper.set(h.paper.id, cp.key);
        }
      }
      const text = renderOutline(topic, clusters, keyOfPaper, format) + '\n';
      const bibtex = cited.map((c) => c.bibtex).join('\n\n') + (cited.length ? '\n' : '');
      const fresh = cited.filter((c) => !c.reused);
      ctx.set('citedPapers', cited.length);
      const bib = new Set(bibKeys(bibtex));
      const missing = [...keyOfPaper.values()].filter((k) => !bib.has(k));
      const uncommented = uncommentedLines(text, format);
      return {
        mode: 'outline' as const,
        topic,
        format,
        text,
        bibtex,
        newBibtex: fresh.map((c) => c.bibtex).join('\n\n') + (fresh.length ? '\n' : ''),
        cited,
        sections: [],
        themes: clusters.length,
        quotes: [],
        decomposition,
        trace: tracer.result(),
        check: {
          ok: !missing.length && uncommented === 0,
          citedKeysMissingFromBib: missing,
          bibEntriesNotInCorpus: [...bib].filter((k) => !cited.some((c) => c.key === k)),
          citationsWithoutVerifiedQuote: [],
          copiedSpans: [],
          uncommentedLines: uncommented,
        },
      };
    })
    .then((r) => ({ ...r, trace: tracer.result() }));
}
