// Step 7: write (LLM, one call per section, streamed through onToken): prose or a list whose claims cite
// papers by short id ([P3]) among that section's verified quotes.
import type { ChatModel } from '../llm/chat.js';
import { writePrompt } from './prompts.js';
import type { StepContext } from '../grounding/index.js';
import type { PaperCandidate, PlannedSection, VerifiedQuote } from './types.js';

/** Drops a heading or preamble line the model may put first despite the instructions. */
export function tidySectionText(text: string, title: string): string {
  let lines = text.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length && !lines[0].trim()) lines.shift();
  if (lines.length > 1) {
    const first = lines[0]
      .replace(/^#+\s*|\*\*/g, '')
      .replace(/[:.]$/, '')
      .trim()
      .toLowerCase();
    if (/^#+\s/.test(lines[0]) || first === title.trim().toLowerCase()) lines = lines.slice(1);
  }
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export async function writeSections(
  topic: string,
  plan: readonly PlannedSection[],
  papers: readonly PaperCandidate[],
  quotes: readonly VerifiedQuote[],
  chat: ChatModel,
  ctx: StepContext,
  onToken?: (section: number, title: string, delta: string) => void,
): Promise<string[]> {
  const byId = new Map(quotes.map((q) => [q.id, q]));
  const out: string[] = [];
  for (const [i, section] of plan.entries()) {
    ctx.checkAborted();
    ctx.progress(`section ${i + 1} of ${plan.length}: ${section.name}`, i, plan.length);
    const sq = section.quoteIds.map((id) => byId.get(id)!).filter(Boolean);
    const ids = new Set(sq.map((q) => q.paperShortId));
    const sectionPapers = papers.filter((p) => ids.has(p.shortId));
    const others = plan.filter((_, j) => j !== i).map((s) => s.name);
    const r = await chat.complete({
      step: 'write',
      messages: writePrompt(topic, section, sectionPapers, sq, others),
      signal: ctx.signal,
      onToken: (delta) => onToken?.(i, section.name, delta),
    });
    ctx.usage(r.usage);
    out.push(tidySectionText(r.text, section.name));
  }
  ctx.progress(`${plan.length} sections written`, plan.length, plan.length);
  ctx.set('sections', out.length);
  return out;
}
