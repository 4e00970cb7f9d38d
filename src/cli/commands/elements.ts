import { parseCommand, type Values } from '../options.js';
import { elementsSpec } from '../spec.js';
import type { ElementHit } from '../../core/store/types.js';
import { CliError, outputs, writeJson, type Command, type StoreDeps } from '../command.js';
import { chatFromFlags, openDb, queryEmbedder } from '../corpus.js';
import { redactSecrets } from '../../core/redact.js';

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
    async run(args) {
      const env = deps.env ?? process.env;
      const { out } = outputs(deps);
      const parsed = parseCommand(elementsSpec, args);
      if ('help' in parsed) {
        out(parsed.help);
        return 0;
      }
      const { values, positionals } = parsed;
      if (values.enrich) return enrich(values, positionals, env, deps);
      if (values.force) throw new CliError('--force goes with --enrich', 2);
      const { type, k } = values;
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
        if (!store.listElements || !store.matchElements)
          throw new CliError('this corpus keeps no figures, tables or equations (a Corpus Lens corpus does)');
        let hits: ElementHit[];
        if (query) {
          const embedder = await queryEmbedder(deps, env, values, meta);
          const { searchElements } = await import('../../core/retrieve/elements.js');
          hits = await searchElements(store, embedder, query, { k: k ?? 10, type, paperIds: values.paper });
        } else {
          hits = [];
          const limit = k ?? Infinity;
          for (;;) {
            const page = await store.listElements({
              count: Math.min(1000, limit - hits.length),
              type,
              paperIds: values.paper,
              after: hits.at(-1)?.element.id,
            });
            hits.push(...page);
            if (!page.length || hits.length >= limit) break;
          }
        }
        if (values.json)
          writeJson(
            out,
            hits.map((h) => ({ match: h.match, similarity: h.similarity, score: h.score, element: h.element, paper: h.paper })),
          );
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
  values: Values<typeof elementsSpec.options>,
  positionals: string[],
  env: NodeJS.ProcessEnv,
  deps: StoreDeps,
): Promise<number> {
  const { out, err } = outputs(deps);
  if (positionals.length) throw new CliError('--enrich takes no QUERY', 2);
  const chat = await chatFromFlags(values, env);
  if (!chat) throw new CliError('--enrich needs a chat model: --llm-base-url URL (or OPENAI_BASE_URL)', 2);
  const store = await openDb(values.db, undefined, env);
  try {
    const meta = await store.meta();
    if (!meta) throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens ingest first)`);
    if (!store.listElements || !store.describeElements)
      throw new CliError('this corpus keeps no figures, tables or equations that can be described (a Corpus Lens corpus does)');
    const embedder = await queryEmbedder(deps, env, values, meta);
    const { enrichElements } = await import('../../core/ingest/enrich.js');
    const s = await enrichElements(store, embedder, chat, { force: values.force });
    if (values.json) writeJson(out, s);
    else {
      out(`${s.enriched} of ${s.elements} elements described; ${s.skipped} already had a description; ${s.failed.length} failed\n`);
      for (const f of s.failed) out(`  ${f.label ?? '(unnumbered)'} [${f.paperId}]: ${f.reason}\n`);
    }
    if (s.stopped)
      err(
        `corpus-lens: the model could not be used, ${s.elements - s.enriched - s.skipped - s.failed.length} elements left undescribed: ${redactSecrets(s.stopped)}\n`,
      );
    return s.stopped ? 1 : 0;
  } finally {
    await store.close();
  }
}

export const elementsCommand = createElementsCommand();
