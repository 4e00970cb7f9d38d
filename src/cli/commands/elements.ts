import { parseArgs } from 'node:util';
import type { ElementHit, ElementType } from '../../core/store/types.js';
import { CliError, negativeValues, type Command } from '../command.js';
import { embedderFromFlags, openDb, outputs, writeJson, type StoreDeps } from './import.js';
import { redactSecrets } from '../../core/redact.js';

const USAGE = `Usage: corpus-lens elements --db DB [--type figure|table|equation] [--paper ID]… [--k N] [--json]
                            [--embedder offline|openai] [--model M] [--prefixes P] [QUERY]
  The figures, tables and equations ingest found (LaTeX, arXiv HTML, PDF). Without QUERY: every element, in the
  order written (--k: at most N). With QUERY: the best --k (default 10), by the vector of their caption + context
  fused with keyword search over label, caption, table cells and equation LaTeX.
  --json prints a JSON array of {match, similarity, score, element: {id, paperId, elementIndex, type, label,
  labelKey, caption, content, description, sectionTitle, sectionIndex, afterSentence, page, bbox}, paper}; page and
  bbox ([x0, y0, x1, y1] in points from the page's top-left) for PDFs, else null. Otherwise one line each.`;

const TYPES: readonly ElementType[] = ['figure', 'table', 'equation'];

/** One line: 'Table 2 (table, p. 3) Median lookup latency by corpus size. — Paper title [paper id]'. */
function line(h: ElementHit): string {
  const e = h.element;
  const where = [e.type, e.page != null ? `p. ${e.page}` : null, e.sectionTitle ? `§ ${e.sectionTitle}` : null].filter(Boolean).join(', ');
  const text = e.caption ?? e.content?.split('\n')[0] ?? '';
  const score = h.similarity != null ? ` ${h.similarity.toFixed(3)}` : '';
  return `${e.label ?? '(unnumbered)'} (${where})${score} ${text} — ${h.paper.title ?? h.paper.id} [${h.paper.id}]`;
}

export function createElementsCommand(deps: StoreDeps = {}): Command {
  return {
    summary: 'list or search the figures, tables and equations of the corpus',
    async run(args) {
      const env = deps.env ?? process.env;
      const { out } = outputs(deps);
      const { values, positionals } = parseArgs({
        args: negativeValues(args, ['help']),
        allowPositionals: true,
        options: {
          db: { type: 'string' },
          type: { type: 'string' },
          paper: { type: 'string', multiple: true },
          k: { type: 'string' },
          json: { type: 'boolean' },
          embedder: { type: 'string' },
          model: { type: 'string' },
          prefixes: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
      if (values.help) {
        out(USAGE + '\n');
        return 0;
      }
      const type = values.type as ElementType | undefined;
      if (type !== undefined && !TYPES.includes(type)) throw new CliError(`--type must be figure, table or equation (got '${values.type}')`, 2);
      let k: number | undefined;
      if (values.k !== undefined) {
        k = Number(values.k);
        if (values.k.trim() === '' || !Number.isInteger(k) || k < 1 || k > 100_000) throw new CliError(`--k must be an integer from 1 to 100000 (got '${values.k}')`, 2);
      }
      const query = positionals.join(' ').trim();
      if (query) {
        const { checkQueryText } = await import('../../core/retrieve/index.js');
        try {
          checkQueryText(query);
        } catch (err) {
          throw new CliError((err as Error).message, 2);
        }
      }
      const store = await openDb(values.db, undefined, env);
      try {
        const meta = await store.meta();
        if (!meta) throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens ingest first)`);
        if (!store.listElements || !store.matchElements) throw new CliError('this corpus keeps no figures, tables or equations (a Corpus Lens corpus does)');
        let hits: ElementHit[];
        if (query) {
          const embedder = await (deps.makeEmbedder ?? ((f) => embedderFromFlags(f, env)))({
            embedder: values.embedder,
            model: values.model,
            prefixes: values.prefixes,
            corpus: meta,
          });
          const { searchElements } = await import('../../core/retrieve/elements.js');
          hits = await searchElements(store, embedder, query, { k: k ?? 10, type, paperIds: values.paper });
        } else {
          hits = [];
          const limit = k ?? Infinity;
          for (;;) {
            const page = await store.listElements({ count: Math.min(1000, limit - hits.length), type, paperIds: values.paper, after: hits.at(-1)?.element.id });
            hits.push(...page);
            if (!page.length || hits.length >= limit) break;
          }
        }
        if (values.json) writeJson(out, hits.map((h) => ({ match: h.match, similarity: h.similarity, score: h.score, element: h.element, paper: h.paper })));
        else out(hits.map((h) => line(h) + '\n').join(''));
        return 0;
      } finally {
        await store.close();
      }
    },
  };
}

export const elementsCommand = createElementsCommand();
