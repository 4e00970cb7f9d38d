// A conversation as the Markdown document the extension shows beside the editor: the latest question, its answer
// with its [n] citations, its sources (paper, year, section, page where known, the quoted sentence), then the
// earlier questions. Corpus text, model output and the author's own question are untrusted: every piece of them is
// escaped as Markdown text (no HTML, no links, no formatting), only the document's own scaffolding is Markdown.
import { escapeMarkdownText as esc } from '../text/escape.js';
import { pageAndLines } from './location.js';
import { citesLine } from './cites.js';
import type { AskElement, AskSource, AskTurn, Conversation } from './types.js';

export const ASK_DOCUMENT_TITLE = 'Ask the Corpus';

/** One source line: "- \[3\] Title (key, 2021), section “Results”, p. 4, ll. 12–14: “sentence”". */
export function sourceMarkdown(s: AskSource): string {
  const who = [s.citationKey, s.year]
    .filter((x) => x !== null && x !== '')
    .map((x) => esc(String(x)))
    .join(', ');
  const at = pageAndLines(s);
  const where = [s.section ? `section “${esc(s.section)}”` : null, at ? esc(at) : null].filter(Boolean).join(', ');
  const cites = (s.cites ?? []).map((c) => `\n  - ${esc(citesLine(c))}`).join('');
  return `- \\[${s.n}\\] **${esc(s.title ?? s.paperId)}**${who ? ` \\(${who}\\)` : ''}${where ? `, ${where}` : ''}: “${esc(s.text)}”${cites}`;
}

/** One element card: "- **Table 2** (table, p\. 3) “caption” — Title (key, 2021), via \[4\]". */
export function elementMarkdown(e: AskElement): string {
  const where = [e.type, e.section ? `section “${esc(e.section)}”` : null, e.page !== null ? `p\\. ${e.page}` : null]
    .filter(Boolean)
    .join(', ');
  const who = [e.citationKey, e.year]
    .filter((x) => x !== null && x !== '')
    .map((x) => esc(String(x)))
    .join(', ');
  const text = e.caption ?? e.content?.split('\n')[0] ?? null;
  return (
    `- **${esc(e.label ?? 'Unnumbered ' + e.type)}** \\(${where}\\)${text ? ` “${esc(text)}”` : ''}` +
    `${e.description ? ` _${esc(e.description)}_` : ''} — ${esc(e.title ?? e.paperId)}` +
    `${who ? ` \\(${who}\\)` : ''}${e.source !== null ? `, beside \\[${e.source}\\]` : ''}`
  );
}

function answerMarkdown(turn: AskTurn, c: Conversation): string[] {
  switch (turn.kind) {
    case 'extract':
      // core/ask/answer.ts: a line per paper, then its evidence lines indented under it.
      return [
        '_No LLM configured: the best evidence sentences from the corpus, word for word, by paper._',
        '',
        ...turn.text
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => (/^\s/.test(l) ? `  - ${esc(l)}` : `- ${esc(l)}`)),
      ];
    case 'sources':
      return turn.citations.length && lastAnswered(c, turn) ? ['Sources of the previous answer:'] : [esc(turn.text)];
    default:
      return [esc(turn.text)];
  }
}

/** Whether the turn before a "where did you find that?" was an answer with sources (else its text explains). */
function lastAnswered(c: Conversation, turn: AskTurn): boolean {
  const i = c.turns.lastIndexOf(turn);
  for (let j = i - 1; j >= 0; j--) if (c.turns[j].kind !== 'sources') return c.turns[j].kind !== 'unknown';
  return false;
}

/** One turn as a chat reply (the `@corpus` participant): the answer with its [n], then the sources it cites. */
export function turnMarkdown(turn: AskTurn, c: Conversation): string {
  const out: string[] = [];
  if (turn.rewrite !== 'none') out.push(`_Searched as:_ ${esc(turn.standalone)}`, '');
  out.push(...answerMarkdown(turn, c), '');
  const sources = turn.kind === 'unknown' ? [] : turn.citations.map((n) => c.sources[n - 1]).filter((s): s is AskSource => !!s);
  if (sources.length) out.push(turn.kind === 'sources' ? '' : '**Sources**', '', ...sources.map(sourceMarkdown), '');
  return out.join('\n').replace(/\n{3,}/g, '\n\n');
}

export function conversationMarkdown(c: Conversation): string {
  const out = [`# ${ASK_DOCUMENT_TITLE}`, ''];
  const turn = c.turns.at(-1);
  if (!turn) {
    out.push('No questions yet: run “Corpus Lens: Ask the Corpus…”\\.', '');
    return out.join('\n');
  }
  out.push(`## ${esc(turn.question)}`, '');
  if (turn.rewrite !== 'none') out.push(`_Searched as:_ ${esc(turn.standalone)}`, '');
  out.push(...answerMarkdown(turn, c), '');
  const sources = turn.kind === 'unknown' ? [] : turn.citations.map((n) => c.sources[n - 1]).filter((s): s is AskSource => !!s);
  if (sources.length) out.push('### Sources', '', ...sources.map(sourceMarkdown), '');
  if (turn.elements?.length) out.push('### Figures, tables and equations', '', ...turn.elements.map(elementMarkdown), '');
  const earlier = c.turns.slice(0, -1);
  if (earlier.length) {
    out.push('### Earlier in this conversation', '');
    earlier.forEach((t) =>
      out.push(
        `- ${esc(t.question)} — ${t.kind === 'unknown' ? 'I don’t know' : `${t.citations.length} source${t.citations.length === 1 ? '' : 's'}`}`,
      ),
    );
    out.push('');
  }
  return out.join('\n');
}
