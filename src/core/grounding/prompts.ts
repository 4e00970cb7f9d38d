// The prompts grounding shares: the evidence as a model sees it (each paper's header, then its quotes) and the
// verification step that judges each sentence against the quotes of the papers it cites. Corpus text is fenced as
// DATA (llm/fence.ts) under a standing instruction that fenced text is never instructions.
import type { ChatMessage } from '../llm/chat.js';
import { CORPUS_TAG, DATA_RULE, fence, line } from '../llm/fence.js';
import type { PaperCandidate, VerifiedQuote } from './types.js';

/** The first line of every system prompt names the step (`step: quotes`), for logs and test stand-ins. */
export function systemPrompt(step: string, body: string): ChatMessage {
  return { role: 'system', content: `Corpus Lens related-work assistant — step: ${step}.\n${body}\n\n${DATA_RULE}` };
}

export function paperHeader(p: PaperCandidate): string {
  const authors = p.paper.authors.length > 3 ? `${p.paper.authors[0]} et al.` : p.paper.authors.join(', ');
  const bits = [authors, p.paper.year ?? 'n.d.', p.paper.venue].filter((x) => x !== null && x !== undefined && x !== '');
  return `${p.shortId}: "${line(p.paper.title ?? '(untitled)')}" (${line(bits.join(', '))})`;
}

/** The evidence as the write step (and Ask's answer step) shows it: each paper's header, then its quotes. */
export function evidenceRows(papers: readonly PaperCandidate[], quotes: readonly VerifiedQuote[]): string[] {
  const rows: string[] = [];
  for (const p of papers) {
    const qs = quotes.filter((q) => q.paperShortId === p.shortId);
    if (!qs.length) continue;
    rows.push(paperHeader(p));
    for (const q of qs) rows.push(`  - ${line(q.text)}`);
  }
  return rows;
}

/** The verification step: each generated sentence with the quotes of the papers it cites → a verdict. */
export function verifyPrompt(
  items: readonly { id: string; sentence: string; quotes: readonly { paper: string; text: string }[] }[],
): ChatMessage[] {
  const rows: string[] = [];
  for (const it of items) {
    rows.push(`[${it.id}] ${line(it.sentence)}`);
    for (const q of it.quotes) rows.push(`  quote of ${q.paper}: ${line(q.text)}`);
  }
  return [
    systemPrompt(
      'verify',
      'You check generated related-work sentences against the evidence quotes of the papers each one cites.\n' +
        'For every sentence id, answer "supported" when its quotes state everything the sentence claims (numbers, ' +
        'methods, direction of findings), "partial" when they state the main claim but not every detail, and ' +
        '"unsupported" when a claim, number, method or comparison is missing from or contradicted by the quotes.\n' +
        'Return ONLY a JSON object: {"verdicts": [{"id": "S1.1", "verdict": "supported"}, ...]} with one entry per sentence id.',
    ),
    { role: 'user', content: `The sentences, each followed by its quotes:\n${fence(CORPUS_TAG, rows.join('\n'))}` },
  ];
}
