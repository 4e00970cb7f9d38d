// One paper per work across ingest runs: a record read now (a PDF) is matched against the papers stored by earlier
// runs (its LaTeX source) by its text, where no DOI or arXiv id ties them. The candidates are the stored papers a
// keyword search finds for a few of the record's sentences; each candidate's stored sentences are fingerprinted and
// compared exactly as within a run (identity.ts), so a paper is never matched on a shared sentence alone.
import { fingerprint, MIN_SHINGLES, sameWork } from '../paper/fingerprint.js';
import { idsOfPaperId } from '../paper/ids.js';
import type { CorpusStore, PaperRef } from '../store/types.js';
import { conflicting } from './identity.js';
import type { ParsedPaper } from './types.js';

/** Sentences of the record searched for (the longest of each third of the paper: specific words, spread out). */
const PROBES = 3;
/** Hits per probe: a stored copy of the work ranks at the top for its own sentence. */
const HITS = 3;

/** The longest sentence of each third of the paper. */
function probes(paper: ParsedPaper): string[] {
  const n = paper.sentences.length;
  const out: string[] = [];
  for (let i = 0; i < PROBES; i++) {
    const part = paper.sentences.slice(Math.floor((i * n) / PROBES), Math.floor(((i + 1) * n) / PROBES));
    const best = part.reduce<string | null>((b, s) => (!b || s.text.length > b.length ? s.text : b), null);
    if (best) out.push(best);
  }
  return out;
}

/**
 * The stored paper (one of `eligible`) that is the same work as `paper`, with its metadata; undefined when there is
 * none, the record is too short to tell, or the store cannot list a paper's sentences (Supabase).
 */
export async function findStoredWork(
  store: CorpusStore,
  paper: ParsedPaper,
  eligible: (id: string) => boolean,
  signal?: AbortSignal,
): Promise<PaperRef | undefined> {
  if (!store.paperSentences) return undefined;
  const print = fingerprint(paper.sentences.map((s) => s.text));
  if (print.size < MIN_SHINGLES) return undefined;
  const candidates = new Map<string, PaperRef>();
  for (const text of probes(paper)) {
    signal?.throwIfAborted();
    let hits;
    try {
      hits = await store.matchKeyword(text, { count: HITS });
    } catch {
      continue; // a probe the keyword search refuses (nothing but stop words) decides nothing
    }
    for (const h of hits) if (eligible(h.paper.id)) candidates.set(h.paper.id, h.paper);
  }
  for (const [id, ref] of candidates) {
    if (conflicting(paper, { ...ref, arxivId: idsOfPaperId(id).arxivId })) continue;
    if (sameWork(print, fingerprint(await store.paperSentences(id, signal)))) return ref;
  }
  return undefined;
}
