import { readFile } from 'node:fs/promises';
import { parseCommand } from '../options.js';
import { querySpec } from '../spec.js';
import type { Hit } from '../../core/store/types.js';
import { CliError, outputs, writeJson, type Command, type StoreDeps } from '../command.js';
import { openDb, queryEmbedder } from '../corpus.js';
import { redactSecrets } from '../../core/redact.js';

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
    async run(args) {
      const env = deps.env ?? process.env;
      const { out } = outputs(deps);
      const parsed = parseCommand(querySpec, args);
      if ('help' in parsed) {
        out(parsed.help);
        return 0;
      }
      const { values, positionals } = parsed;
      const mode = values.mode ?? 'vector';
      const group = values.group;
      if (group === 'papers' && values.mode !== undefined) {
        throw new CliError('--group papers has its own ranking (whole-paper BM25 and vectors); drop --mode', 2);
      }
      const options = {
        k: values.k,
        offset: values.offset, // a shift to a neighbouring sentence
        threshold: values.threshold,
        years:
          values['year-min'] !== undefined || values['year-max'] !== undefined
            ? { min: values['year-min'], max: values['year-max'] }
            : undefined,
        paperIds: values.paper,
        venue: values.venue,
        section: values.section,
        rrfK: values['rrf-k'],
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
      const texts = queries
        ? queries.map((q, i) => ({ where: `${values.queries}: query ${i + 1}: `, text: q.text }))
        : [{ where: '', text: positionals.join(' ') }];
      for (const { where, text } of texts) {
        try {
          checkQueryText(text);
        } catch (err) {
          throw new CliError(where + (err as Error).message, 2);
        }
      }

      const store = await openDb(values.db, values.schema, env);
      try {
        const { search, paperSearch, withTitle } = await import('../../core/retrieve/index.js');
        const meta = await store.meta();
        if (!meta) throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens import first)`);
        const embedder = mode === 'keyword' && group === 'sentences' ? null : await queryEmbedder(deps, env, values, meta);
        const find = (sentence: string) => {
          const text = withTitle(values['with-title'], sentence);
          return group === 'papers' ? paperSearch(store, embedder!, text, options) : search(store, embedder, text, mode, options);
        };
        if (!queries) {
          const hits = await find(positionals.join(' '));
          writeJson(out, hits.map(shape(group === 'papers' ? 'papers' : mode)));
          return 0;
        }
        if (embedder && queries.length)
          await embedder.embed(
            queries.map((q) => withTitle(values['with-title'], q.text)),
            { role: 'query' },
          ); // one batch; cached after
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
