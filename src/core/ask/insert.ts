// An answer as text for the author's paper ("Insert answer at cursor"): the kept, checked sentences only, each run
// of [n] markers one citation of the cited papers' keys in the document's format, the prose escaped as related-work
// prose is (review/emit.ts): LaTeX-safe quotes, `%`, `_`, `&`, formulas such as k=60 in math mode. Which key a paper gets (the .bib's entry, its own, a new one) is the caller's to decide.
import { escapeLatex, escapeMarkdownProse } from '../text/escape.js';
import { mendDroppedReferences } from '../text/references.js';
import type { CitationCommand } from '../bib/cite.js';
import type { AskSource, AskTurn } from './types.js';

/** `\cite{a,b}` (the configured command) in LaTeX, `[@a; @b]` in Markdown. */
export function citationOfKeys(format: 'latex' | 'markdown', keys: readonly string[], command: CitationCommand = 'cite'): string {
  return format === 'markdown' ? `[${keys.map((k) => `@${k}`).join('; ')}]` : `\\${command}{${keys.join(',')}}`;
}

/** The papers an answer cites (the ones to plan keys and BibTeX entries for), in order of first citation. */
export function citedPapers(turn: AskTurn, sources: readonly AskSource[]): AskSource[] {
  const seen = new Set<string>();
  const out: AskSource[] = [];
  for (const n of turn.citations) {
    const s = sources[n - 1];
    if (s && !seen.has(s.paperId)) {
      seen.add(s.paperId);
      out.push(s);
    }
  }
  return out;
}

/** What a turn inserts; null for a turn with nothing to insert ("I don't know", "where did you find that?"). */
export function answerForPaper(
  turn: AskTurn,
  sources: readonly AskSource[],
  format: 'latex' | 'markdown',
  keyOf: (paperId: string) => string,
  command: CitationCommand = 'cite',
): string | null {
  if (turn.kind !== 'answer' && turn.kind !== 'extract') return null;
  const kept = turn.sentences.filter((s) => s.kept);
  if (!kept.length) return null;
  const escape = format === 'latex' ? escapeLatex : escapeMarkdownProse;
  const glue = format === 'latex' ? '~' : ' ';
  const out = kept.map((s) => {
    // Text between markers is escaped; a run of markers ("[1][2]", "[1] [3]") becomes one citation of distinct keys.
    // A sentence echoed from a corpus indexed before references left a placeholder: "Fig.." → "Fig. [ref].".
    const parts = mendDroppedReferences(s.text).split(/((?:\s*\[\d+\])+)/);
    return parts
      .map((part, i) => {
        if (i % 2 === 0) return escape(part);
        const keys = [
          ...new Set(
            [...part.matchAll(/\[(\d+)\]/g)]
              .map((m) => sources[Number(m[1]) - 1])
              .filter((x): x is AskSource => !!x)
              .map((x) => keyOf(x.paperId)),
          ),
        ];
        return keys.length ? `${glue}${citationOfKeys(format, keys, command)}` : '';
      })
      .join('')
      .trim();
  });
  return out.join(turn.kind === 'extract' ? '\n' : ' ');
}
