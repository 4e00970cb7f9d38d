// Metadata for a paper that has none (PaperQA's "LLM generates the citation from the first chunk"): when a PDF's
// layout, XMP and info dictionary give no title and no .bib or Zotero entry matches, a chat model (when configured)
// proposes title, authors and year from page 1's text. Model output is untrusted: the reply must be JSON of that
// shape, the title must be printed on the page (so an invented one, a 2,000-character essay or HTML never becomes a
// title), each author's surname too, and the year a printed year. Anything else is a clean fallback: the paper keeps
// what the offline reader found. A proposal is stored with the model that made it (papers.metadata_proposed_by), never
// over real metadata.
import { z } from 'zod';
import { isAbortError, type ChatModel } from '../llm/chat.js';
import { CORPUS_TAG, DATA_RULE, fence } from '../llm/fence.js';
import { parseJsonReply } from '../llm/json.js';
import { normaliseTitle } from '../paper/ids.js';

/** Page 1's text shown to the model (the title and author block are at its top). */
const MAX_PAGE_CHARS = 3000;
const MAX_TITLE_CHARS = 300;
const MAX_AUTHORS = 50;
const MAX_AUTHOR_CHARS = 80;

const Reply = z.object({
  title: z.string().nullable().optional(),
  authors: z.array(z.string()).nullable().optional(),
  year: z.union([z.number(), z.string()]).nullable().optional(),
});

export interface ProposedMetadata {
  title: string;
  authors: string[];
  year: number | null;
  /** The model that proposed it. */
  model: string;
}

const printedOn = (page: string, s: string) => {
  const n = normaliseTitle(s);
  return n.length > 0 && page.includes(` ${n} `);
};

/** Title, authors and year proposed from page 1's text, each checked against the page; null when nothing usable came back. */
export async function proposeMetadata(chat: ChatModel, firstPage: string, signal?: AbortSignal): Promise<ProposedMetadata | null> {
  const text = firstPage.slice(0, MAX_PAGE_CHARS);
  if (!text.trim()) return null;
  let reply: string;
  let model = chat.model;
  try {
    const result = await chat.complete({
      step: 'metadata',
      json: true,
      temperature: 0,
      signal,
      messages: [
        {
          role: 'system',
          content:
            'Corpus Lens metadata assistant — step: metadata.\nYou read the first page of a research paper and give its title, its authors ' +
            'and its publication year exactly as printed. Reply with ONLY a JSON object: {"title": "...", "authors": ["First Last", ...], ' +
            '"year": 2020}. Use null for what the page does not print.\n\n' +
            DATA_RULE,
        },
        { role: 'user', content: `The first page:\n${fence(CORPUS_TAG, text)}` },
      ],
    });
    reply = result.text;
    // The model that answered: a fallback's proposal is stored under its own name.
    model = result.usage.model ?? model;
  } catch (err) {
    if (isAbortError(err)) throw err;
    return null;
  }
  const parsed = parseJsonReply(reply, Reply);
  if (!parsed.ok) return null;
  const page = ` ${normaliseTitle(text)} `;
  const title = (parsed.value.title ?? '').replace(/\s+/g, ' ').trim();
  if (!title || title.length > MAX_TITLE_CHARS || /[<>]/.test(title) || !printedOn(page, title)) return null;
  const authors = (parsed.value.authors ?? [])
    .map((a) => a.replace(/\s+/g, ' ').trim())
    .filter((a) => a && a.length <= MAX_AUTHOR_CHARS && !/[<>@]/.test(a) && printedOn(page, a.split(' ').pop()!))
    .slice(0, MAX_AUTHORS);
  const y = Number(parsed.value.year);
  const year = Number.isInteger(y) && y >= 1900 && y <= new Date().getFullYear() + 1 && page.includes(` ${y} `) ? y : null;
  return { title, authors, year, model };
}
