import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { parseCommand } from '../options.js';
import { askSpec } from '../spec.js';
import type { AskElement, AskTurn, Conversation } from '../../core/ask/index.js';
import { redactSecrets } from '../../core/redact.js';
import { describeFilters } from '../../core/retrieve/question-filters.js';
import { CliError, outputs, type Command, type StoreDeps } from '../command.js';
import { chatFromFlags, openDb, queryEmbedder } from '../corpus.js';

async function readHistory(file: string): Promise<Conversation> {
  const { newConversation, parseConversation, ConversationError } = await import('../../core/ask/index.js');
  if (!existsSync(file)) return newConversation();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read --history ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (!text.trim()) return newConversation();
  try {
    return parseConversation(text);
  } catch (err) {
    if (err instanceof ConversationError) throw new CliError(`--history ${file} is ${err.message}`);
    throw err;
  }
}

/** Written beside the file and renamed over it: an interrupted write never leaves half a conversation. */
async function writeHistory(file: string, c: Conversation): Promise<void> {
  const { serializeConversation } = await import('../../core/ask/index.js');
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, serializeConversation(c));
    await rename(tmp, file);
  } catch (err) {
    throw new CliError(`cannot write --history ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** The --json shape (documented in USAGE and docs/cli.md). */
export function askJson(turn: AskTurn, c: Conversation, threshold: number) {
  return {
    question: turn.question,
    standalone: turn.standalone,
    rewrite: turn.rewrite,
    kind: turn.kind,
    answered: turn.kind === 'answer' || turn.kind === 'extract',
    text: turn.text,
    sentences: turn.sentences,
    citations: turn.citations,
    // A conversation saved before line numbers has sources without them: null, so the JSON keeps one shape.
    sources: turn.citations
      .map((n) => c.sources[n - 1])
      .map((s) => ({ ...s, lineStart: s.lineStart ?? null, lineEnd: s.lineEnd ?? null, pageEnd: s.pageEnd ?? null })),
    answerability: turn.answerability,
    threshold,
    counts: turn.counts,
    model: turn.model,
    conversation: { turns: c.turns.length, sources: c.sources.length },
    elements: turn.elements ?? [],
    filters: turn.filters ?? null,
    /** Each stage's wall time, model calls, cached answers and tokens (null for "where did you find that?"). */
    trace: turn.trace ?? null,
    /** With a chat model: the cost told before the question ran (model calls, tokens, seconds); null without one. */
    estimate: turn.estimate ?? null,
  };
}

/** An element card as one line: 'Table 2 (table, p. 3) Median latency by corpus size. — Title [paper id]'. */
function elementLine(e: AskElement): string {
  const where = [e.type, e.page !== null ? `p. ${e.page}` : null, e.source !== null ? `beside [${e.source}]` : null]
    .filter(Boolean)
    .join(', ');
  const text = e.caption ?? e.content?.split('\n')[0] ?? '';
  return `${e.label ?? `Unnumbered ${e.type}`} (${where}) ${text} — ${e.title ?? e.paperId} [${e.paperId}]`;
}

export function createAskCommand(deps: StoreDeps = {}): Command {
  return {
    async run(args) {
      const env = deps.env ?? process.env;
      const { out, err } = outputs(deps);
      const parsed = parseCommand(askSpec, args);
      if ('help' in parsed) {
        out(parsed.help);
        return 0;
      }
      const { values, positionals } = parsed;
      const question = positionals.join(' ').trim();
      if (!question) throw new CliError('give the question: corpus-lens ask --db DB "QUESTION"', 2);
      const { ask, ANSWERABILITY_THRESHOLD, sourcesText } = await import('../../core/ask/index.js');
      const threshold = values.threshold ?? ANSWERABILITY_THRESHOLD;
      const { evidence, timeout: timeoutMs } = values;
      const conversation = values.history ? await readHistory(values.history) : (await import('../../core/ask/index.js')).newConversation();

      const { isAbortError } = await import('../../core/llm/index.js');
      const chat = await chatFromFlags(values, env, timeoutMs);

      const store = await openDb(values.db, values.schema, env);
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once('SIGINT', onSigint);
      let turn: AskTurn;
      try {
        const meta = await store.meta();
        if (!meta) throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens ingest first)`);
        const embedder = await queryEmbedder(deps, env, values, meta);
        try {
          turn = await ask(conversation, question, {
            store,
            embedder,
            chat,
            threshold,
            evidence,
            maxElements: values['max-elements'],
            verify: values.verify !== 'off',
            signal: controller.signal,
          });
        } catch (e) {
          if (isAbortError(e)) throw new CliError('cancelled', 130);
          throw e;
        }
      } finally {
        process.off('SIGINT', onSigint);
        await store.close();
      }
      if (values.history) await writeHistory(values.history, conversation);

      if (values.json) out(JSON.stringify(askJson(turn, conversation, threshold), null, 2) + '\n');
      else {
        out(turn.text + '\n');
        if (turn.kind !== 'sources' && turn.citations.length) out(`\nSources:\n${sourcesText(conversation, turn.citations)}\n`);
        if (turn.elements?.length) out(`\nFigures, tables and equations:\n${turn.elements.map(elementLine).join('\n')}\n`);
      }
      if (!values.quiet) {
        const c = turn.counts;
        err(
          `corpus-lens: ${turn.kind === 'unknown' ? "I don't know" : turn.kind} (answerability ${turn.answerability.toFixed(2)}, threshold ${threshold}); ` +
            `${c.evidence} evidence sentences from ${c.papers} papers` +
            (chat
              ? `; ${c.removedSentences} sentences and ${c.removedCitations} citations removed by the check; ${c.llmCalls} LLM calls` +
                (turn.trace?.total.cachedCalls ? ` (${turn.trace.total.cachedCalls} answers from the cache)` : '') +
                (turn.trace?.total.fallback
                  ? `; ${turn.trace.total.fallback.calls} answered by the fallback ${turn.trace.total.fallback.model}`
                  : '')
              : '; no LLM configured (--llm-base-url / OPENAI_BASE_URL): extract') +
            (turn.rewrite !== 'none' ? `; searched as: ${turn.standalone}` : '') +
            (turn.filters
              ? `; filters from the question: ${describeFilters(turn.filters)} (from "${turn.filters.phrases.join('", "')}")`
              : '') +
            '\n',
        );
      }
      return 0;
    },
  };
}

export const askCommand = createAskCommand();
