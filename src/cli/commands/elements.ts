import { parseOptions } from '../options.js';
import type { ElementHit, ElementType } from '../../core/store/types.js';
import { CliError, negativeValues, type Command } from '../command.js';
import { embedderFromFlags, openDb, outputs, writeJson, type StoreDeps } from './import.js';
import { redactSecrets } from '../../core/redact.js';

const USAGE = `Usage: corpus-lens elements --db DB [--type figure|table|equation] [--paper ID]… [--k N] [--json]
                            [--embedder offline|neural|openai] [--model M] [--prefixes P] [QUERY]
  The figures, tables and equations ingest found (LaTeX, arXiv HTML, PDF). Without QUERY: every element, in the
  order written (--k: at most N). With QUERY: the best --k (default 10), by the vector of their caption + context
  fused with keyword search over label, caption, table cells and equation LaTeX.
  --json prints a JSON array of {match, similarity, score, element: {id, paperId, elementIndex, type, label,
  labelKey, caption, content, description, sectionTitle, sectionIndex, afterSentence, page, bbox}, paper}; page and
  bbox ([x0, y0, x1, y1] in points from the page's top-left) for PDFs, else null. Otherwise one line each.
       corpus-lens elements --db DB --enrich [--force] [--llm-base-url URL] [--llm-model M] [--json]
  --enrich asks the chat model (--llm-base-url or OPENAI_BASE_URL, key in OPENAI_API_KEY) for a short searchable
  description of every element without one (--force: of every element) from its label, caption, content and the
  sentences around it, stores it (plain text, at most 400 characters) and recomputes the element's vector from
  label + caption + content + description + context, so searches find it by the description too. Ingest never
  calls a model: run this after it. --json prints {elements, enriched, skipped, failed: [{id, paperId, label,
  reason}], stopped}; stopped says why the model could not be used (unreachable, key refused, rate-limited): the
  elements described before stay described, the rest are left as they were, and the exit code is 1.`;

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
      const { values, positionals } = parseOptions({
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
          enrich: { type: 'boolean' },
          force: { type: 'boolean' },
          'llm-base-url': { type: 'string' },
          'llm-model': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
      if (values.help) {
        out(USAGE + '\n');
        return 0;
      }
      if (values.enrich) return enrich(values, positionals, env, deps);
      if (values.force) throw new CliError('--force goes with --enrich', 2);
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

/** `--enrich`: describe the elements with the chat model (src/core/ingest/enrich.ts), print what was done. */
async function enrich(
  values: { db?: string; json?: boolean; force?: boolean; embedder?: string; model?: string; prefixes?: string; 'llm-base-url'?: string; 'llm-model'?: string },
  positionals: string[],
  env: NodeJS.ProcessEnv,
  deps: StoreDeps,
): Promise<number> {
  const { out, err } = outputs(deps);
  if (positionals.length) throw new CliError('--enrich takes no QUERY', 2);
  const baseURL = values['llm-base-url'] || env.OPENAI_BASE_URL || '';
  if (!baseURL) throw new CliError('--enrich needs a chat model: --llm-base-url URL (or OPENAI_BASE_URL)', 2);
  const { OpenAIChat } = await import('../../core/llm/index.js');
  const chat = new OpenAIChat({ baseURL, model: values['llm-model'] || 'gpt-4o-mini', apiKey: env.OPENAI_API_KEY || undefined });
  const store = await openDb(values.db, undefined, env);
  try {
    const meta = await store.meta();
    if (!meta) throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens ingest first)`);
    if (!store.listElements || !store.describeElements) throw new CliError('this corpus keeps no figures, tables or equations that can be described (a Corpus Lens corpus does)');
    const embedder = await (deps.makeEmbedder ?? ((f) => embedderFromFlags(f, env)))({ embedder: values.embedder, model: values.model, prefixes: values.prefixes, corpus: meta });
    const { enrichElements } = await import('../../core/ingest/enrich.js');
    const s = await enrichElements(store, embedder, chat, { force: values.force });
    if (values.json) writeJson(out, s);
    else {
      out(`${s.enriched} of ${s.elements} elements described; ${s.skipped} already had a description; ${s.failed.length} failed\n`);
      for (const f of s.failed) out(`  ${f.label ?? '(unnumbered)'} [${f.paperId}]: ${f.reason}\n`);
    }
    if (s.stopped) err(`corpus-lens: the model could not be used, ${s.elements - s.enriched - s.skipped - s.failed.length} elements left undescribed: ${redactSecrets(s.stopped)}\n`);
    return s.stopped ? 1 : 0;
  } finally {
    await store.close();
  }
}

export const elementsCommand = createElementsCommand();
