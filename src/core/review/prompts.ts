// The prompts of the related-work pipeline's own steps (the evidence rows and the verification prompt it shares
// with Ask are in grounding/prompts.ts).
//
// Corpus text (and the user's topic) is fenced as DATA (src/core/llm/fence.ts, shared with Ask and element
// descriptions), with a standing instruction in every system prompt that fenced text is never instructions. Papers are referred to by short ids (P1, P2, …) that code maps to citation keys; quotes by Q ids.
import type { ChatMessage } from '../llm/chat.js';
import type { Hit } from '../store/types.js';
import {
  evidenceRows,
  paperHeader,
  systemPrompt,
  type PaperCandidate,
  type SectionFormat,
  type VerifiedQuote,
} from '../grounding/index.js';

export { neutralize } from '../llm/fence.js';
import { CORPUS_TAG, fence, line, TOPIC_TAG } from '../llm/fence.js';

/** A passage with its neighbours, as the model sees it. */
export function passageText(h: Hit): string {
  return [h.previous?.text, h.sentence.text, h.next?.text].filter(Boolean).join(' ');
}

// ---------------------------------------------------------------------------------------------------------

export function decomposePrompt(topic: string): ChatMessage[] {
  return [
    systemPrompt(
      'decompose',
      'You turn the topic of a related-work section into searches over a corpus of scientific papers.\n' +
        'Return ONLY a JSON object with these fields:\n' +
        '  "rewritten_query": one or two sentences for semantic search, stating what relevant prior work says;\n' +
        '  "keyword_query": 3-8 keywords or short phrases for full-text search, separated by spaces;\n' +
        '  "year_min", "year_max": integers, or null when the topic asks for no year range;\n' +
        '  "venues": list of venue names the topic explicitly restricts to, else [];\n' +
        '  "filter_phrases": the words of the topic that state the year range or venues, copied exactly ' +
        '(e.g. "since 2020", "at ACL"), else []. Leave these words out of both queries.',
    ),
    { role: 'user', content: `The topic:\n${fence(TOPIC_TAG, line(topic))}` },
  ];
}

export function rerankPrompt(topic: string, passages: readonly { id: string; hit: Hit }[]): ChatMessage[] {
  const rows = passages.map((p) => `[${p.id}] (${line(p.hit.paper.title ?? '')}) ${line(p.hit.sentence.text)}`);
  return [
    systemPrompt(
      'rerank',
      'You judge how relevant passages from papers are to a related-work topic.\n' +
        'Score every passage from 0 (irrelevant) to 10 (directly relevant prior work for the topic).\n' +
        'Return ONLY a JSON object: {"scores": [{"id": "S1", "score": 7}, ...]} with one entry per passage id.',
    ),
    {
      role: 'user',
      content: `The topic:\n${fence(TOPIC_TAG, line(topic))}\n\nThe passages:\n${fence(CORPUS_TAG, rows.join('\n'))}`,
    },
  ];
}

export function quotesPrompt(topic: string, paper: PaperCandidate): ChatMessage[] {
  const rows = paper.passages.map((h, i) => `(${i + 1}) ${line(passageText(h))}`);
  return [
    systemPrompt(
      'quotes',
      'You extract evidence from ONE paper for a related-work section on the topic.\n' +
        'Copy up to 5 quotes, each one or two consecutive sentences copied EXACTLY, character for character, from ' +
        'the passages, that say what this paper does or finds about the topic. Do not paraphrase, shorten ' +
        'inside a quote, join distant text, or add words. If nothing is relevant, return an empty list.\n' +
        'Return ONLY a JSON object: {"quotes": ["exact text", ...]}.',
    ),
    {
      role: 'user',
      content:
        `The topic:\n${fence(TOPIC_TAG, line(topic))}\n\n` +
        // The title and authors are corpus text too: inside the fence, on its first line.
        `The paper (its id, title and authors on the first line of the data) and its passages:\n${fence(CORPUS_TAG, [`Paper ${paperHeader(paper)}`, ...rows].join('\n'))}`,
    },
  ];
}

export function planPrompt(topic: string, papers: readonly PaperCandidate[], quotes: readonly VerifiedQuote[]): ChatMessage[] {
  const byPaper = new Map<string, VerifiedQuote[]>();
  for (const q of quotes) byPaper.set(q.paperShortId, [...(byPaper.get(q.paperShortId) ?? []), q]);
  const rows: string[] = [];
  for (const p of papers) {
    const qs = byPaper.get(p.shortId);
    if (!qs) continue;
    rows.push(paperHeader(p));
    for (const q of qs) rows.push(`  [${q.id}] ${line(q.text)}`);
  }
  return [
    systemPrompt(
      'plan',
      'You organise evidence quotes into the sections (dimensions) of a related-work section on the topic.\n' +
        'Make 2-6 sections. Each has a short "name", a "format" ("paragraph" for a synthesis, "list" for an ' +
        'enumeration of comparable approaches), and the ids of the quotes it uses (every quote id at most once; ' +
        'leave out quotes that do not fit). Use only quote ids that appear in the data.\n' +
        'Return ONLY a JSON object: {"sections": [{"name": "...", "format": "paragraph", "quotes": ["Q1", "Q4"]}]}.',
    ),
    {
      role: 'user',
      content: `The topic:\n${fence(TOPIC_TAG, line(topic))}\n\nThe quotes, by paper:\n${fence(CORPUS_TAG, rows.join('\n'))}`,
    },
  ];
}

export function writePrompt(
  topic: string,
  section: { name: string; format: SectionFormat },
  papers: readonly PaperCandidate[],
  quotes: readonly VerifiedQuote[],
  otherSections: readonly string[],
): ChatMessage[] {
  const rows = evidenceRows(papers, quotes);
  const ids = papers.map((p) => `[${p.shortId}]`).join(', ');
  const form =
    section.format === 'list'
      ? 'Write a list: one item per approach or finding, each line starting with "- ", one or two sentences each.'
      : 'Write one or two paragraphs of connected prose (a synthesis, not a list of summaries).';
  return [
    systemPrompt(
      'write',
      'You write one part of the related-work section of a scientific paper, from evidence quotes.\n' +
        `${form}\n` +
        'Rules:\n' +
        `- Every sentence that states what prior work does or finds ends with its citation(s) in square brackets, ` +
        `using ONLY these paper ids: ${ids}. Several papers: [P1][P2].\n` +
        '- Cite a paper only for what its quotes support. Do not mention papers that are not in the data.\n' +
        '- Never write author names with years as citations, and no \\cite commands or other citation formats.\n' +
        '- Paraphrase: never reuse 12 or more consecutive words of a quote. If exact wording matters, quote a short ' +
        'phrase in quotation marks with its citation.\n' +
        '- Plain text only: no heading, no Markdown or LaTeX markup, no preamble or closing remarks.',
    ),
    {
      role: 'user',
      content:
        `The topic:\n${fence(TOPIC_TAG, line(topic))}\n\n` +
        // Part titles came from the plan step's model output, itself made from corpus text: they stay in the data.
        'Write the part whose title is on the first line of the data below (the second line lists the other parts, ' +
        'written separately), from the evidence that follows, by paper id:\n' +
        fence(
          CORPUS_TAG,
          [
            `Part title: ${line(section.name)}`,
            `Other parts: ${otherSections.length ? otherSections.map((s) => `"${line(s)}"`).join(', ') : '(none)'}`,
            ...rows,
          ].join('\n'),
        ),
    },
  ];
}
