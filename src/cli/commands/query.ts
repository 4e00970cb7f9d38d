import { readFile } from 'node:fs/promises';
import { parseOptions } from '../options.js';
import type { Hit } from '../../core/store/types.js';
import { CliError, negativeValues, type Command } from '../command.js';
import { embedderFromFlags, openDb, outputs, writeJson, type StoreDeps } from './import.js';
import { redactSecrets } from '../../core/redact.js';

const USAGE = `Usage: corpus-lens query --db DB [--k 25] [--offset N] [--threshold T] [--mode vector|keyword|hybrid]
                         [--group sentences|papers] [--year-min Y] [--year-max Y] [--paper ID]… [--rrf-k 60]
                         [--schema corpusStudio] [--embedder offline|neural|openai] [--model M] [--prefixes P] (TEXT | --queries FILE.jsonl)
  Prints a JSON array of hits {similarity, sentence, previous, next, paper, score} (similarity: the cosine, null
  with --mode keyword; score: the ranking's score: cosine, BM25 or reciprocal-rank fusion); with --queries (one {"id","text"}
  a line) one JSON line {"id","hits"} per query. --group papers: one hit per paper (k papers) in the paper
  ranking's order (whole-paper BM25 plus the paper's vector similarity), each the paper's sentence most similar
  to TEXT; it has its own ranking, so --mode is not given with it.`;

/** PostgreSQL's integer range: a larger --offset or --k is a mistake, not a request. */
const INT_MAX = 2_147_483_647;

function intFlag(name: string, v: string | undefined, min: number, max = INT_MAX): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new CliError(`--${name} must be an integer from ${min} to ${max} (got '${v}')`, 2);
  }
  return n;
}

/**
 * The CLI's hit shape (the black-box contract). `similarity` is a cosine or null (keyword mode ranks by BM25, which
 * is no similarity); `score` is the ranking's own score (vector: the cosine; keyword: BM25; hybrid: RRF).
 */
function shape(mode: string) {
  return (h: Hit) => ({
    similarity: mode === 'keyword' || !Number.isFinite(h.similarity) ? null : h.similarity,
    sentence: h.sentence,
    previous: h.previous,
    next: h.next,
    paper: h.paper,
    score: h.score,
  });
}

export function createQueryCommand(deps: StoreDeps = {}): Command {
  return {
    summary: 'find corpus sentences similar to TEXT, with previous/next sentence and paper (JSON)',
    async run(args) {
      const env = deps.env ?? process.env;
      const { out } = outputs(deps);
      const { values, positionals } = parseOptions({
        args: negativeValues(args, ['help']),
        allowPositionals: true,
        options: {
          db: { type: 'string' },
          k: { type: 'string' },
          offset: { type: 'string' },
          threshold: { type: 'string' },
          mode: { type: 'string' },
          group: { type: 'string' },
          queries: { type: 'string' },
          'year-min': { type: 'string' },
          'year-max': { type: 'string' },
          paper: { type: 'string', multiple: true },
          'rrf-k': { type: 'string' },
          schema: { type: 'string' },
          embedder: { type: 'string' },
          prefixes: { type: 'string' },
          model: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
      if (values.help) {
        out(USAGE + '\n');
        return 0;
      }
      const mode = values.mode ?? 'vector';
      if (mode !== 'vector' && mode !== 'keyword' && mode !== 'hybrid') {
        throw new CliError(`--mode must be vector, keyword or hybrid (got '${mode}')`, 2);
      }
      const group = values.group ?? 'sentences';
      if (group !== 'sentences' && group !== 'papers') {
        throw new CliError(`--group must be sentences or papers (got '${group}')`, 2);
      }
      if (group === 'papers' && values.mode !== undefined) {
        throw new CliError('--group papers has its own ranking (whole-paper BM25 and vectors); drop --mode', 2);
      }
      let threshold: number | undefined;
      if (values.threshold !== undefined) {
        threshold = Number(values.threshold);
        if (values.threshold.trim() === '' || !Number.isFinite(threshold) || threshold < -1 || threshold > 1) {
          throw new CliError(`--threshold must be a number in [-1, 1] (got '${values.threshold}')`, 2);
        }
      }
      const k = intFlag('k', values.k, 1, 10_000) ?? 25;
      const offset = intFlag('offset', values.offset, -INT_MAX, INT_MAX) ?? 0; // a shift to a neighbouring sentence
      const options = {
        k,
        offset,
        threshold,
        years:
          values['year-min'] !== undefined || values['year-max'] !== undefined
            ? { min: intFlag('year-min', values['year-min'], 0), max: intFlag('year-max', values['year-max'], 0) }
            : undefined,
        paperIds: values.paper,
        rrfK: intFlag('rrf-k', values['rrf-k'], 1),
      };

      let queries: { id: unknown; text: string }[] | null = null;
      if (values.queries) {
        if (positionals.length) throw new CliError('give either TEXT or --queries FILE, not both', 2);
        let raw: string;
        try {
          raw = await readFile(values.queries, 'utf8');
        } catch (err) {
          throw new CliError(`cannot read ${values.queries}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        }
        queries = [];
        for (const [i, line] of raw.split(/\r?\n/).entries()) {
          if (!line.trim()) continue;
          let o: { id?: unknown; text?: unknown };
          try {
            o = JSON.parse(line);
          } catch {
            throw new CliError(`${values.queries}:${i + 1}: not valid JSON`);
          }
          if (typeof o?.text !== 'string') throw new CliError(`${values.queries}:${i + 1}: "text" must be a string`);
          queries.push({ id: o.id ?? null, text: o.text });
        }
      } else if (!positionals.length) {
        throw new CliError('give the query TEXT (or --queries FILE.jsonl)', 2);
      }
      // Bad query text is refused before the corpus opens (exit 2, nothing printed on stdout).
      const { checkQueryText } = await import('../../core/retrieve/index.js');
      const texts = queries ? queries.map((q, i) => ({ where: `${values.queries}: query ${i + 1}: `, text: q.text })) : [{ where: '', text: positionals.join(' ') }];
      for (const { where, text } of texts) {
        try {
          checkQueryText(text);
        } catch (err) {
          throw new CliError(where + (err as Error).message, 2);
        }
      }

      const store = await openDb(values.db, values.schema, env);
      try {
        const { search, paperSearch } = await import('../../core/retrieve/index.js');
        const meta = await store.meta();
        if (!meta) throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens import first)`);
        const embedder =
          mode === 'keyword' && group === 'sentences'
            ? null
            : await (deps.makeEmbedder ?? ((f) => embedderFromFlags(f, env)))({
                embedder: values.embedder,
                model: values.model,
                prefixes: values.prefixes,
                corpus: meta,
              });
        const find = (text: string) =>
          group === 'papers' ? paperSearch(store, embedder!, text, options) : search(store, embedder, text, mode, options);
        if (!queries) {
          const hits = await find(positionals.join(' '));
          writeJson(out, hits.map(shape(group === 'papers' ? 'papers' : mode)));
          return 0;
        }
        if (embedder && queries.length) await embedder.embed(queries.map((q) => q.text), { role: 'query' }); // one batch; cached after
        for (const q of queries) {
          const hits = await find(q.text);
          writeJson(out, { id: q.id, hits: hits.map(shape(group === 'papers' ? 'papers' : mode)) });
        }
        return 0;
      } finally {
        await store.close();
      }
    },
  };
}

export const queryCommand = createQueryCommand();
