// The conversation as the Ask tab's protocol view (pure: no vscode import). Only kept sentences travel: what the
// check removed is counted, never shown as if it were an answer.
import type { AskProgress, Conversation } from '../../core/ask/types.js';
import { describeFilters } from '../../core/retrieve/question-filters.js';
import type { AskProgressView, AskView } from '../../../webview/protocol.js';

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
      })),
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
    })),
  };
}

/** The core's progress as the tab shows it (the evidence count is the log's business); null: nothing to show. */
export function toAskProgress(p: AskProgress): AskProgressView | null {
  switch (p.kind) {
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
