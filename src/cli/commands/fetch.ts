import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { parseCommand } from '../options.js';
import { fetchSpec } from '../spec.js';
import type { Candidate, FetchSummary, SourcesConfig } from '../../core/sources/index.js';
import { CliError, printJson, type Command } from '../command.js';
import { embedderFromFlags, openDb } from '../corpus.js';

function msEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new CliError(`${name} must be a number of milliseconds (got '${v}')`, 2);
  return n;
}

/** `corpus-lens fetch`: search or bibliography → reviewed candidate list → open full text → corpus. */
export const fetchCommand: Command = {
  async run(args) {
    const parsed = parseCommand(fetchSpec, args);
    if ('help' in parsed) {
      process.stdout.write(parsed.help);
      return 0;
    }
    const { values, positionals } = parsed;
    if (!values.db) throw new CliError('--db is required (a directory, a postgres:// URL, or supabase:<url>)', 2);
    const query = values.arxiv ?? values.query;
    const ids = values.ids ? [...values.ids, ...positionals] : [];
    if (!values.ids && positionals.length)
      throw new CliError(`unexpected argument '${positionals[0]}' (DOIs and arXiv ids go after --ids)`, 2);
    const modes = [query !== undefined, !!values.ids, values.bib !== undefined].filter(Boolean).length;
    if (modes !== 1) throw new CliError('fetch needs exactly one of --arxiv QUERY, --ids ID…, --bib FILE (see --help)', 2);
    const { source, max, since, until } = values;
    const env = process.env;

    const sources = await import('../../core/sources/index.js');
    let config: SourcesConfig;
    try {
      config = sources.sourcesConfig({
        arxivUrl: values['arxiv-url'] ?? env.CORPUS_LENS_ARXIV_URL,
        arxivApiUrl: values['arxiv-api-url'] ?? env.CORPUS_LENS_ARXIV_API_URL,
        s2Url: values['s2-url'] ?? env.CORPUS_LENS_S2_URL,
        openalexUrl: values['openalex-url'] ?? env.CORPUS_LENS_OPENALEX_URL,
        contact: values.contact ?? env.CORPUS_LENS_CONTACT,
        s2ApiKey: env.SEMANTIC_SCHOLAR_API_KEY,
        openalexApiKey: env.OPENALEX_API_KEY,
        openLicenseOnly: values['open-license-only'] ?? false,
        cacheDir: values.cache ?? env.CORPUS_LENS_CACHE,
        // For tests and mirrors that allow it; arXiv itself asks for 3 s.
        arxivIntervalMs: msEnv(env, 'CORPUS_LENS_ARXIV_INTERVAL_MS'),
        s2IntervalMs: msEnv(env, 'CORPUS_LENS_S2_INTERVAL_MS'),
        openalexIntervalMs: msEnv(env, 'CORPUS_LENS_OPENALEX_INTERVAL_MS'),
        maxEprintBytes: values['max-eprint-mb'],
        maxPdfBytes: values['max-pdf-mb'],
      });
    } catch (e) {
      throw new CliError(e instanceof Error ? e.message : String(e));
    }
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGINT', stop);
    try {
      const ctx = sources.sourceContext(config, { signal: controller.signal });
      let candidates: Candidate[];
      const inputErrors: { file: string; reason: string }[] = [];
      if (query !== undefined) {
        if (!query.trim()) throw new CliError('the search query is empty', 2);
        process.stderr.write(`searching ${source} for "${query}"…\n`);
        candidates = await sources.search(ctx, source, query, { max, since, until });
      } else if (values.bib !== undefined) {
        let text: string;
        try {
          text = await readFile(values.bib, 'utf8');
        } catch (e) {
          throw new CliError(`cannot read ${values.bib}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
        }
        const r = await sources.candidatesFromBib(text, values.bib);
        candidates = r.candidates;
        inputErrors.push(...r.errors);
      } else {
        const r = sources.candidatesFromIds(ids);
        candidates = r.candidates;
        inputErrors.push(...r.errors);
      }
      for (const e of inputErrors) process.stderr.write(`skipped: ${e.file}: ${e.reason}\n`);
      if (!candidates.length) throw new CliError('no candidates: nothing to fetch');
      process.stderr.write(candidateList(candidates) + '\n');
      if (!values.yes && !(await confirm(`Fetch ${candidates.length} paper(s) into the corpus?`))) {
        process.stderr.write('nothing fetched\n');
        return 1;
      }

      const store = await openDb(values.db, undefined, env, undefined, { create: true });
      try {
        if (store.readOnly) throw new CliError('this corpus is read only (CorpusStudio schema)');
        const embedder = await embedderFromFlags({
          embedder: values.embedder,
          model: values.model,
          dimensions: values.dimensions,
          prefixes: values.prefixes,
          corpus: await store.meta(),
        });
        const summary = await sources.fetchToCorpus(store, ctx, candidates, {
          embedder,
          signal: controller.signal,
          useS2: !values['no-s2'],
          onProgress: (p) =>
            process.stderr.write(
              `${sources.progressLine(p)}${p.entry ? ` · ${sources.entryName(p.entry)}: ${sources.entryStatus(p.entry)}` : ''}\n`,
            ),
        });
        summary.failed.unshift(...inputErrors);
        if (values.json) printJson(summary);
        else process.stdout.write(report(summary, sources.entryName, sources.entryStatus));
        // Nothing came in (offline, every entry missing): a failure, so that a script does not go on as if it had.
        const nothing = sources.nothingFetched(summary);
        if (nothing) process.stderr.write(`corpus-lens fetch: ${nothing}\n`);
        return nothing ? 1 : 0;
      } finally {
        await store.close();
      }
    } finally {
      process.off('SIGINT', stop);
    }
  },
};

function candidateList(cs: readonly Candidate[]): string {
  return cs
    .map((c, i) => {
      const id = c.citationKey ?? (c.arxivId ? `arXiv:${c.arxivId}` : c.doi ? `doi:${c.doi}` : '');
      const who = c.authors.length ? `${c.authors[0].split(/\s+/).pop()}${c.authors.length > 1 ? ' et al.' : ''}` : '';
      return `${String(i + 1).padStart(3)}. ${[id, who, c.year ?? ''].filter(Boolean).join(' · ')}  ${c.title ?? '(no title)'}`;
    })
    .join('\n');
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) throw new CliError('fetching needs confirmation: pass --yes (no terminal to ask on)', 2);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

type EntryWords = (e: FetchSummary['entries'][number]) => string;

function report(s: FetchSummary, name: EntryWords, status: EntryWords): string {
  const o = s.outcomes;
  const lines = [
    `${s.papers} papers, ${s.sentences} sentences added; ${o.latex} from LaTeX, ${o.html} from HTML, ${o.pdf} from PDF, ${o.metadata} metadata only, ${s.entries.filter((e) => e.outcome === 'not-found' && !e.failed).length} not found, ${o['in-corpus']} already in the corpus; ${s.failed.length} failed`,
  ];
  for (const e of s.entries) {
    const said = status(e);
    const failed = said.startsWith('failed');
    const detail = failed ? '' : e.notes.length && e.outcome !== 'latex' ? e.notes.join('; ') : (e.from ?? '');
    lines.push(`  ${name(e).padEnd(28)} ${said.padEnd(9)} ${detail}`.trimEnd());
  }
  return lines.join('\n') + '\n';
}
