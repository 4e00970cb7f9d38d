// The references under an @corpus answer: each cited source's paper (opened at the quoted sentence) and, after it, each
// corpus paper that quote itself cites ("…, as cited in [n]"), so the chat can open the cited work, as the Ask tab's
// *Open cited paper* does. Pure (no vscode import) for the unit tests.
import type { AskSource } from '../../core/ask/types.js';

/** A paper to reference: at the quoted sentence when it is a cited source, at its start when its quote cites it. */
export interface ParticipantReference {
  paperId: string;
  sentence: { id: number; text: string } | null;
}

/** The papers of `cited` (the answer's sources, in citation order) and their quotes' in-corpus works, each once. */
export function participantReferences(cited: readonly AskSource[]): ParticipantReference[] {
  const seen = new Set<string>();
  const out: ParticipantReference[] = [];
  const add = (paperId: string, sentence: ParticipantReference['sentence']) => {
    if (seen.has(paperId)) return;
    seen.add(paperId);
    out.push({ paperId, sentence });
  };
  for (const s of cited) add(s.paperId, { id: s.sentenceId, text: s.text });
  for (const s of cited) for (const c of s.cites ?? []) if (c.inCorpus) add(c.inCorpus.paperId, null);
  return out;
}
