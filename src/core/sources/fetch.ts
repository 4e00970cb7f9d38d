// Candidates → corpus: resolve identifiers, fetch each paper's open full text (fulltext.ts), and write the papers
// through the ingest pipeline's store path, a few at a time so a stopped run keeps what it finished. Papers already
// in the corpus (same DOI / arXiv id) are not fetched again. Every entry gets a line in the report.
import type { Embedder } from '../embed/types.js';
import { ingestPapers, type IngestSummary } from '../ingest/pipeline.js';
import { initCorpus } from '../ingest/corpus-embedder.js';
import type { ParsedPaper } from '../ingest/index.js';
import type { CorpusStore } from '../store/types.js';
import { resolveIdentifiers } from './bibliography.js';
import { describeSourceError } from './errors.js';
import { NO_COPY_KNOWN, readFullText, type Outcome } from './fulltext.js';
import type { Candidate, SourceContext } from './types.js';
import { normaliseArxivId, normaliseDoi } from '../paper/ids.js';

export interface EntryReport {
  /** The .bib key (or the stored paper's key). */
  key: string | null;
  title: string | null;
  doi: string | null;
  arxivId: string | null;
  outcome: Outcome | 'in-corpus';
  /** Where the full text came from (a URL), null for metadata only / not found. */
  from: string | null;
  license: string | null;
  paperId: string | null;
  /** True when a lookup or download failed (network, timeout, unreadable file) rather than finding nothing. */
  failed: boolean;
  /** Why earlier choices gave nothing, in the order tried. */
  notes: string[];
}

export interface FetchProgress {
  done: number;
  total: number;
  failed: number;
  phase: 'resolving' | 'fetching';
  entry?: EntryReport;
}

export interface FetchSummary extends IngestSummary {
  entries: EntryReport[];
  /** Entries by outcome. */
  outcomes: Record<EntryReport['outcome'], number>;
}

export interface FetchOptions {
  embedder: Embedder;
  signal?: AbortSignal;
  onProgress?: (p: FetchProgress) => void;
  /** Papers written per store write (default 8). */
  writeBatch?: number;
  useS2?: boolean;
}

/** "12/40 papers · 3 failed" */
export function progressLine(p: FetchProgress): string {
  return p.phase === 'resolving' ? `looking up ${p.done}/${p.total} entries` : `${p.done}/${p.total} papers · ${p.failed} failed`;
}

/** How an entry is named in a report: its .bib key, arXiv id, DOI or title. */
export function entryName(e: EntryReport): string {
  return e.key ?? (e.arxivId ? `arXiv:${e.arxivId}` : null) ?? (e.doi ? `doi:${e.doi}` : null) ?? e.title ?? '?';
}

/**
 * How an entry ended, in words: "latex", "metadata", "not found" (every source answered that it has no copy),
 * "failed: cannot reach arXiv (no network?)" (a lookup or download failed, so whether there is a copy is unknown).
 * The same reason from several attempts (metadata, e-print, HTML of one host) is said once.
 */
export function entryStatus(e: EntryReport): string {
  if (e.failed && !e.paperId) return `failed: ${distinctReasons(e.notes).join('; ')}`;
  return e.outcome === 'not-found' ? 'not found' : e.outcome;
}

/** "arXiv e-print: cannot reach arXiv (no network?)" and "arXiv HTML: cannot reach arXiv (no network?)" → one reason. */
function distinctReasons(notes: readonly string[]): string[] {
  const reasons = notes.map((n) =>
    /^(?:arXiv e-print|arXiv HTML|arXiv metadata|open-access PDF): /.exec(n) ? n.slice(n.indexOf(': ') + 2) : n,
  );
  return [...new Set(reasons)];
}

/**
 * Null when the run fetched something (or had nothing to do: every entry already in the corpus); else why nothing
 * came in, e.g. "nothing was fetched: cannot reach arXiv (no network?)". A run whose every entry failed counts as
 * nothing fetched even when abstracts from the .bib were stored.
 */
export function nothingFetched(s: FetchSummary): string | null {
  const todo = s.entries.filter((e) => e.outcome !== 'in-corpus');
  if (!todo.length) return null;
  if (s.papers > 0 && todo.some((e) => !e.failed)) return null;
  const reasons = [...new Set(todo.filter((e) => e.failed).flatMap((e) => distinctReasons(e.notes)))];
  if (reasons.length) return `nothing was fetched: ${reasons.slice(0, 3).join('; ')}${reasons.length > 3 ? '; …' : ''}`;
  return `nothing was fetched: ${todo.length === 1 ? 'the paper was not found' : `none of the ${todo.length} papers was found`}`;
}

export async function fetchToCorpus(
  store: CorpusStore,
  ctx: SourceContext,
  candidates: Candidate[],
  options: FetchOptions,
): Promise<FetchSummary> {
  const { embedder, signal } = options;
  const summary: FetchSummary = {
    papers: 0,
    sentences: 0,
    elements: 0,
    skipped: 0,
    failed: [],
    warnings: [],
    entries: [],
    outcomes: { latex: 0, html: 0, pdf: 0, metadata: 0, 'not-found': 0, 'in-corpus': 0 },
  };
  await initCorpus(store, embedder, { signal });
  const known = new Set((await store.sources()).map((s) => s.id));
  const lookupErrors = new Map<Candidate, string[]>();
  const todo = candidates.filter((c) => !inCorpus(c, known));
  await resolveIdentifiers(ctx, todo, {
    useS2: options.useS2,
    onProgress: (done, total) => options.onProgress?.({ done, total, failed: 0, phase: 'resolving' }),
    onError: (c, reason) => lookupErrors.set(c, [...(lookupErrors.get(c) ?? []), reason]),
  });
  let pending: ParsedPaper[] = [];
  const flush = async () => {
    if (!pending.length) return;
    const batch = pending;
    pending = [];
    const r = await ingestPapers(store, batch, { embedder, signal });
    summary.papers += r.papers;
    summary.sentences += r.sentences;
    summary.elements += r.elements;
    summary.skipped += r.skipped;
  };
  let failed = 0;
  for (const [i, c] of candidates.entries()) {
    signal?.throwIfAborted();
    const entry = await fetchOne(ctx, c, known, lookupErrors.get(c) ?? []);
    if (entry.report.failed) {
      failed++;
      summary.failed.push({
        file: entry.report.key ?? entry.report.doi ?? entry.report.arxivId ?? entry.report.title ?? '?',
        reason: entry.report.notes.join('; ') || entry.report.outcome,
      });
    }
    if (entry.paper) {
      known.add(entry.paper.id);
      pending.push(entry.paper);
      if (pending.length >= (options.writeBatch ?? 8)) await flush();
    }
    summary.entries.push(entry.report);
    summary.outcomes[entry.report.outcome]++;
    options.onProgress?.({ done: i + 1, total: candidates.length, failed, phase: 'fetching', entry: entry.report });
  }
  await flush();
  return summary;
}

function candidateIds(c: Candidate): string[] {
  const doi = normaliseDoi(c.doi);
  const arxiv = normaliseArxivId(c.arxivId);
  return [doi ? `doi:${doi}` : null, arxiv ? `arxiv:${arxiv}` : null].filter((x): x is string => !!x);
}

function inCorpus(c: Candidate, known: Set<string>): boolean {
  const ids = candidateIds(c);
  // A paper is stored under its DOI when it has one: only that id says "already there".
  return ids.length > 0 && known.has(ids[0]);
}

async function fetchOne(
  ctx: SourceContext,
  c: Candidate,
  known: Set<string>,
  lookupErrors: string[],
): Promise<{ paper: ParsedPaper | null; report: EntryReport }> {
  const base = { key: c.citationKey, title: c.title, doi: c.doi, arxivId: c.arxivId, license: c.license };
  if (inCorpus(c, known)) {
    return { paper: null, report: { ...base, outcome: 'in-corpus', from: null, paperId: candidateIds(c)[0], failed: false, notes: [] } };
  }
  try {
    const r = await readFullText(ctx, c);
    // A lookup that failed cannot say that there is no copy: only that it could not look.
    const notes = [...lookupErrors, ...r.tried.filter((t) => !(lookupErrors.length && t === NO_COPY_KNOWN))];
    const failed = (r.errored || lookupErrors.length > 0) && (r.outcome === 'metadata' || r.outcome === 'not-found');
    return {
      paper: r.paper,
      report: {
        ...base,
        key: c.citationKey ?? r.paper?.citationKey ?? null,
        title: c.title ?? r.paper?.title ?? null,
        outcome: r.outcome,
        from: r.from,
        paperId: r.paper?.id ?? null,
        failed,
        notes,
      },
    };
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    const reason = describeSourceError(e, ctx.config);
    return {
      paper: null,
      report: { ...base, outcome: 'not-found', from: null, paperId: null, failed: true, notes: [...lookupErrors, reason] },
    };
  }
}
