// Reading back the provenance notes that emit.ts writes under generated related work, so that hovering a citation
// in the author's document shows the verified quotes behind it. The notes are the only record that survives in
// the document (the author may have edited the prose, moved paragraphs, or closed VS Code since), so the lookup
// works from the text alone:
//   LaTeX:    the paragraph's notes follow it as comments, `% S1.2 (support 0.81, …): backed by Q3 (key): "…"; Q7 (key2): "…"`
//             — a citation is matched to the notes of its own paragraph by key.
//   Markdown: each sentence carries a footnote mark `[^S1-2]` whose definition holds its notes, with `Q3 [@key]: “…”`
//             — a citation is matched to the footnote of its own sentence.
import type { OutputFormat } from './types.js';
import { unescapeMarkdownProse } from '../text/escape.js';

/** One verified quote named in a provenance note. */
export interface ProvenanceQuote {
  /** The review's quote id, e.g. "Q3". */
  id: string;
  /** The citation key of the quoted paper. */
  key: string;
  text: string;
  /** The generated sentence whose note names it, e.g. "S1.2". */
  sentenceId: string;
  /** The sentence's support score as the check computed it. */
  support: number | null;
  /** The note says the sentence is unsupported (kept with a flag). */
  unsupported: boolean;
}

/** What a hover shows: the keys of the citation under the cursor and the quotes behind them. */
export interface CitationProvenance {
  /** The citation's span in the text. */
  start: number;
  end: number;
  /** The key under the cursor, or every key of the citation when the cursor is on the command itself. */
  keys: string[];
  quotes: ProvenanceQuote[];
}

const LATEX_CITE = /\\(?:cite|citep|citet|autocite|parencite|textcite)\*?(?:\[[^\]\n]*\]){0,2}\{([^}\n]*)\}/g;
const MARKDOWN_CITE = /\[((?:[^\]\n]*?)@[^\]\n]*)\]/g;
const LATEX_NOTE = /^%\s*(S\d+\.\d+)\s+\(support ([0-9.]+)[^)]*\):(.*)$/;
const LATEX_QUOTE = /(Q\d+) \(([^()\s]+)\): "(.*?)"(?=; Q\d+ \(|\s*$)/g;
const MARKDOWN_QUOTE = /(Q\d+) \[@([^\]\s]+)\]: \u201c(.*?)\u201d(?=; Q\d+ \[@|\s*$)/g;

/** The quotes behind the citation at `offset` in `text`, or null when `offset` is not on a citation with notes. */
export function provenanceAt(text: string, offset: number, format: OutputFormat): CitationProvenance | null {
  const cite = citationAt(text, offset, format);
  if (!cite) return null;
  const notes = format === 'latex' ? latexParagraphNotes(text, cite.end) : markdownSentenceNotes(text, cite.end);
  const quotes = notes.filter((q) => cite.keys.includes(q.key));
  return quotes.length ? { ...cite, quotes } : null;
}

function citationAt(text: string, offset: number, format: OutputFormat): { start: number; end: number; keys: string[] } | null {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = text.indexOf('\n', offset);
  const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
  for (const m of line.matchAll(format === 'latex' ? LATEX_CITE : MARKDOWN_CITE)) {
    const start = lineStart + m.index!;
    const end = start + m[0].length;
    if (offset < start || offset > end) continue;
    const inner = m[1];
    const innerStart = start + m[0].length - inner.length - 1;
    const parts = format === 'latex' ? splitKeys(inner, ',', /[^\s,]+/, innerStart) : splitKeys(inner, ';', /(?<=@)[^\s;,\]]+/, innerStart);
    const under = parts.find((p) => offset >= p.start && offset <= p.end);
    return { start, end, keys: under ? [under.key] : parts.map((p) => p.key) };
  }
  return null;
}

/** The keys of a citation's argument with their offsets: `key` finds the key inside each separated part. */
function splitKeys(inner: string, separator: string, key: RegExp, at: number): Array<{ key: string; start: number; end: number }> {
  const out: Array<{ key: string; start: number; end: number }> = [];
  let pos = at;
  for (const part of inner.split(separator)) {
    const m = key.exec(part);
    if (m) out.push({ key: m[0], start: pos + m.index, end: pos + m.index + m[0].length });
    pos += part.length + separator.length;
  }
  return out;
}

/** The notes under the paragraph that holds `from`: the comment lines after its last line of prose. */
function latexParagraphNotes(text: string, from: number): ProvenanceQuote[] {
  const lines = text.slice(from).split('\n');
  const isComment = (l: string) => l.trimStart().startsWith('%');
  let i = 1; // lines[0] is the rest of the citation's own line; the paragraph may go on over more lines
  while (i < lines.length && lines[i].trim() !== '' && !isComment(lines[i])) i++;
  const out: ProvenanceQuote[] = [];
  for (; i < lines.length && isComment(lines[i]); i++) {
    const m = LATEX_NOTE.exec(lines[i].trim());
    if (m) out.push(...quotesOf(m[3], LATEX_QUOTE, m[1], Number(m[2])));
  }
  return out;
}

/** The footnote of the sentence holding `from`: the first `[^S…]` mark after it in the same paragraph. */
function markdownSentenceNotes(text: string, from: number): ProvenanceQuote[] {
  const paragraphEnd = text.indexOf('\n\n', from);
  const rest = text.slice(from, paragraphEnd < 0 ? text.length : paragraphEnd);
  const mark = /\[\^(S\d+-\d+)\](?!:)/.exec(rest);
  if (!mark) return [];
  const definition = new RegExp(`^\\[\\^${mark[1]}\\]:\\s*(S\\d+\\.\\d+)\\s+\\(support ([0-9.]+)[^)]*\\):(.*)$`, 'm').exec(text);
  // The emitted quote is escaped Markdown (emit.ts); the hover shows the quote as stored.
  return definition
    ? quotesOf(definition[3], MARKDOWN_QUOTE, definition[1], Number(definition[2])).map((q) => ({
        ...q,
        text: unescapeMarkdownProse(q.text),
      }))
    : [];
}

function quotesOf(body: string, pattern: RegExp, sentenceId: string, support: number): ProvenanceQuote[] {
  const unsupported = /\bUNSUPPORTED\b/.test(body);
  const backed = body.indexOf('backed by ');
  if (backed < 0) return [];
  return [...body.slice(backed + 'backed by '.length).matchAll(pattern)].map((m) => ({
    id: m[1],
    key: m[2],
    text: m[3],
    sentenceId,
    support: Number.isFinite(support) ? support : null,
    unsupported,
  }));
}
