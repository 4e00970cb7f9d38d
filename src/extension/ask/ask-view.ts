// The conversation as the Ask tab's protocol view (pure: no vscode import). Only kept sentences travel: what the
// check removed is counted, never shown as if it were an answer.
import type { AskProgress, AskTurn, Conversation } from '../../core/ask/types.js';
import { madeUpFrom } from '../../core/paper/made-up-title.js';
import { costLine, estimateLine, stepCostLines } from '../../core/grounding/cost.js';
import { describeFilters } from '../../core/retrieve/question-filters.js';
import type { AskCostView, AskProgressView, AskView } from '../../../webview/protocol.js';

export function toAskView(c: Conversation): AskView {
  return {
    turns: c.turns.map((t, index) => ({
      index,
      question: t.question,
      standalone: t.standalone,
      kind: t.kind,
      text: t.text,
      sentences: t.sentences.filter((s) => s.kept).map((s) => ({ text: s.text, citations: [...s.citations] })),
      citations: [...t.citations],
      removed: t.sentences.filter((s) => !s.kept).length,
      model: t.model,
      filters: t.filters ? `${describeFilters(t.filters)}` : null,
      elements: (t.elements ?? []).map((e) => ({
        type: e.type,
        label: e.label,
        caption: e.caption,
        content: e.content,
        title: e.title,
        year: e.year,
        section: e.section,
        page: e.page,
        match: e.match,
        source: e.source,
        description: e.description ?? null,
        ...mark(e.metadataProposedBy),
      })),
      cost: costView(t),
    })),
    sources: c.sources.map((s) => ({
      n: s.n,
      paperId: s.paperId,
      citationKey: s.citationKey,
      title: s.title,
      authors: [...s.authors],
      year: s.year,
      section: s.section,
      page: s.page,
      lineStart: s.lineStart ?? null,
      lineEnd: s.lineEnd ?? null,
      pageEnd: s.pageEnd ?? null,
      text: s.text,
      previous: s.previous,
      next: s.next,
      ...(s.cites?.length
        ? {
            cites: s.cites.map((c) => ({
              work: c.work,
              title: c.title,
              year: c.year,
              inCorpus: c.inCorpus ? { title: c.inCorpus.title } : null,
            })),
          }
        : {}),
      ...mark(s.metadataProposedBy),
    })),
  };
}

/** The proposed-title mark as the panel is told it (panel/hit-view.ts): the model, and whether the title was made up. */
function mark(proposedBy: string | undefined): { metadataProposedBy?: string; titleMadeUp?: true } {
  if (!proposedBy) return {};
  return { metadataProposedBy: proposedBy, ...(madeUpFrom(proposedBy) ? { titleMadeUp: true as const } : {}) };
}

/** A turn's cost as the tab shows it, when a chat model was asked (or answered from its cache). */
function costView(t: AskTurn): AskCostView | null {
  const total = t.trace?.total;
  if (!total || !t.model || total.llmCalls + total.cachedCalls === 0) return null;
  return {
    estimate: t.estimate ? estimateLine(t.estimate) : null,
    total: costLine(total),
    steps: stepCostLines(t.trace!.steps),
  };
}

/** The core's progress as the tab shows it (the evidence count is the log's business); null: nothing to show. */
export function toAskProgress(p: AskProgress): AskProgressView | null {
  switch (p.kind) {
    case 'estimate':
      return { kind: 'estimate', estimate: estimateLine(p.estimate), basis: p.estimate.basis };
    case 'stage':
      return { kind: 'stage', stage: p.stage };
    case 'standalone':
      return p.rewrite === 'none' ? null : { kind: 'standalone', standalone: p.standalone };
    case 'draft':
      return { kind: 'draft', delta: p.delta };
    case 'evidence':
      return null;
  }
}
